"""Relations are named in lakemix.tables only, and the names there are the dbt project's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from lakemix import tables
from tests.conftest import ROOT

PACKAGE = ROOT / "python" / "lakemix"
HOME = PACKAGE / "tables.py"


def schemas() -> set[str]:
    """Every schema the project writes: dbt_project.yml's ``+schema``s, snapshots' target
    schema, and the two lakemix writes itself (raw by ingest, meta by its bookkeeping)."""
    found = {tables.RAW, tables.META}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "+schema":
                    found.add(str(value))
                walk(value)

    walk(yaml.safe_load((ROOT / "dbt_project.yml").read_text()))
    for path in (ROOT / "snapshots").glob("*.sql"):
        found.update(re.findall(r"target_schema\s*=\s*'(\w+)'", path.read_text()))
    return found


def literal_relations(path: Path, names: set[str]) -> list[str]:
    """``path:line: text`` of each string literal (f-string parts included, docstrings not)
    that names ``<schema>.<something>`` for a schema in ``names``."""
    pattern = re.compile(rf"\b({'|'.join(sorted(names))})\.(?!json\b)(?:[\"a-z_]|$)")
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{path.name}:{node.lineno}: {match.group(0)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        for match in pattern.finditer(node.value)
    ]


def test_the_schemas_are_read_from_the_project() -> None:
    assert {"raw", "staging", "intermediate", "marts", "meta", "seeds", "snapshots"} <= schemas()


def test_no_relation_is_named_outside_lakemix_tables() -> None:
    names = schemas()
    found = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != HOME
        for hit in literal_relations(path, names)
    ]
    assert found == [], "name relations with lakemix.tables, not string literals"


def test_a_literal_relation_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "module.py"
    path.write_text(
        '"""Reads marts.fct_clean_documents (a docstring may name it)."""\n'
        "A = 'select * from marts.fct_clean_documents'\n"
        "B = f'marts.mix_{name}'\n"
        "C = f'{x} meta.json raw_documents'\n"  # a file name and a word, not relations
        'D = """\n    from intermediate.int_documents_deduplicated\n"""\n'
        "E = f'from marts.\"{name}\"'\n"
        "def f():\n    '''meta.builds'''\n    return 'meta.builds'\n"
    )
    assert sorted(literal_relations(path, schemas())) == [
        "module.py:11: meta.b",
        "module.py:2: marts.f",
        "module.py:3: marts.m",
        "module.py:5: intermediate.i",
        'module.py:8: marts."',
    ]


def models() -> set[str]:
    """``schema.model`` of every model file, by the folder's schema in dbt_project.yml."""
    folders = {"staging": "staging", "intermediate": "intermediate", "marts": "marts"}
    return {
        f"{folders[path.relative_to(ROOT / 'models').parts[0]]}.{path.stem}"
        for path in (ROOT / "models").rglob("*.sql")
        if path.relative_to(ROOT / "models").parts[0] in folders
    }


def test_every_named_model_exists() -> None:
    named = {
        value
        for name, value in vars(tables).items()
        if name.isupper()
        and isinstance(value, str)
        and "." in value
        and tables.split(value)[0] in {tables.INTERMEDIATE, tables.MARTS}
    }
    assert len(named) >= 10
    assert named - models() == set()


def test_every_named_seed_exists() -> None:
    seed = tables.split(tables.QUALITY_THRESHOLDS)[1]
    assert (ROOT / "seeds" / f"{seed}.csv").is_file()


def test_mix_names() -> None:
    assert tables.mix_table("web") == "marts.mix_web"
    assert tables.mix_languages_table("web") == "marts.mix_web_languages"
    assert tables.mix_model("web") == "mix_web"
    assert tables.mix_of("mix_web") == "web"
    assert tables.mix_of("mix_web_languages") is None
    assert tables.mix_of("fct_clean_documents") is None
    assert tables.mix_of_languages("mix_web_languages") == "web"
    assert tables.mix_of_languages("mix_web") is None
    assert tables.mix_of_any("mix_web_languages") == tables.mix_of_any("mix_web") == "web"
    models_of_mixes = {path.stem for path in (ROOT / "models" / "marts" / "mixes").glob("*.sql")}
    assert {"mix_documents", "mix_languages"} <= models_of_mixes  # renamed per mix by dbt


@pytest.mark.parametrize("bad", ["builds", "meta.", ".builds", "a.b.c"])
def test_split_refuses_what_is_not_schema_dot_table(bad: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        tables.split(bad)
    assert tables.split("meta.builds") == ("meta", "builds")
