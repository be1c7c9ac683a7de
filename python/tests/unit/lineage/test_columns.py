"""Column lineage on a small hand-written manifest: UDFs, struct fields, joins, unnest, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.docs import annotate
from lakemix.lineage import (
    ColumnLineage,
    LineageError,
    column_lineage,
    derivation_markdown,
    format_tree,
    lineage_paths,
    load_project,
)

DB = '"lake"'
STG = f'{DB}."staging"."stg_raw__documents"'
SCORED = f'{DB}."intermediate"."int_scored"'
SIGNALS = f'{DB}."intermediate"."int_signals"'

MODELS = {
    "stg_raw__documents": (
        "staging",
        ["document_id", "source_id", "text"],
        f'select document_id, source as source_id, trim(text) as text from {DB}."raw"."documents"',
    ),
    # a UDF returning a struct, then field access on it, across CTEs and a select *
    "int_scored": (
        "intermediate",
        ["document_id", "language", "language_score"],
        f"""
        with documents as (select * from {STG}),
        documents_identified as (
            select *, lakemix_language(text) as identified from documents
        )
        select document_id, identified.language as language,
            identified.language_score as language_score
        from documents_identified
        """,
    ),
    # DuckDB's unnest of a struct: one column per field, none of them named in the SQL
    "int_signals": (
        "intermediate",
        ["document_id", "word_count"],
        f"select document_id, unnest(lakemix_quality_signals(text, 'en', null)) from {STG}",
    ),
    "fct_documents": (
        "marts",
        ["document_id", "source_id", "language", "character_count", "word_count", "tokenizer"],
        f"""
        with joined as (
            select
                documents.document_id,
                documents.source_id,
                scored.language,
                length(documents.text) as character_count,
                signals.word_count,
                'cl100k' as tokenizer
            from {STG} as documents
            inner join {SCORED} as scored on documents.document_id = scored.document_id
            left join {SIGNALS} as signals on documents.document_id = signals.document_id
        )
        select * from joined
        """,
    ),
}


def write_manifest(target: Path, *, compiled: bool = True) -> Path:
    nodes = {}
    for name, (schema, columns, sql) in MODELS.items():
        nodes[f"model.demo.{name}"] = {
            "unique_id": f"model.demo.{name}",
            "resource_type": "model",
            "name": name,
            "alias": name,
            "database": "lake",
            "schema": schema,
            "description": f"one row per document ({name})",
            "columns": {c: {"name": c, "description": f"{c} of {name}"} for c in columns},
            **({"compiled_code": sql} if compiled else {}),
        }
    sources = {
        "source.demo.raw.documents": {
            "unique_id": "source.demo.raw.documents",
            "resource_type": "source",
            "source_name": "raw",
            "name": "documents",
            "identifier": "documents",
            "database": "lake",
            "schema": "raw",
            "columns": {c: {"name": c} for c in ("document_id", "source", "text", "url")},
        }
    }
    target.mkdir(parents=True, exist_ok=True)
    (target / "manifest.json").write_text(json.dumps({"nodes": nodes, "sources": sources}))
    return target


@pytest.fixture
def target(tmp_path: Path) -> Path:
    return write_manifest(tmp_path / "target")


def chain(node: ColumnLineage) -> list[str]:
    """The names along a lineage that never branches."""
    names = [node.name]
    while node.upstream:
        assert len(node.upstream) == 1, node
        node = node.upstream[0]
        names.append(node.name)
    return names


def test_through_udf_and_struct_field(target: Path) -> None:
    tree = column_lineage(load_project(target), "marts.fct_documents.language")
    assert chain(tree) == [
        "fct_documents.language",
        "int_scored.language",
        "stg_raw__documents.text",
        "raw.documents.text",
    ]


def test_through_join_and_rename(target: Path) -> None:
    project = load_project(target)
    assert chain(column_lineage(project, "marts.fct_documents.source_id")) == [
        "fct_documents.source_id",
        "stg_raw__documents.source_id",
        "raw.documents.source",
    ]
    length = column_lineage(project, "marts.fct_documents.character_count")
    assert chain(length)[1:] == ["stg_raw__documents.text", "raw.documents.text"]


def test_field_of_an_unnested_struct(target: Path) -> None:
    tree = column_lineage(load_project(target), "marts.fct_documents.word_count")
    signals = tree.upstream[0]
    assert signals.name == "int_signals.word_count"
    assert "unnest" in signals.note
    assert chain(signals)[1:] == ["stg_raw__documents.text", "raw.documents.text"]


def test_constant_has_no_upstream(target: Path) -> None:
    tree = column_lineage(load_project(target), "marts.fct_documents.tokenizer")
    assert tree.upstream == ()
    assert "no upstream column" in format_tree(tree)
    assert "no upstream column" in derivation_markdown(tree)


def test_tree_and_paths(target: Path) -> None:
    tree = column_lineage(load_project(target), "marts.fct_documents.language")
    assert format_tree(tree, title="marts.fct_documents.language").splitlines() == [
        "marts.fct_documents.language",
        "└── int_scored.language",
        "    └── stg_raw__documents.text",
        "        └── raw.documents.text",
    ]
    assert lineage_paths(tree) == [
        "int_scored.language <- stg_raw__documents.text <- raw.documents.text"
    ]


def test_unknown_names_list_the_known_ones(target: Path) -> None:
    project = load_project(target)
    with pytest.raises(LineageError, match="tables in marts: fct_documents"):
        column_lineage(project, "marts.fct_nothing.text")
    with pytest.raises(LineageError, match="its columns: document_id, source_id, language"):
        column_lineage(project, "marts.fct_documents.nothing")
    with pytest.raises(LineageError, match=r"<schema>\.<table>\.<column>"):
        column_lineage(project, "fct_documents.text")
    with pytest.raises(LineageError, match="lakemix_mix"):
        column_lineage(project, "marts.mix_demo.split")


def test_missing_manifest_and_missing_compiled_sql(tmp_path: Path) -> None:
    with pytest.raises(LineageError, match="run `dbt build` or `dbt docs generate` first"):
        load_project(tmp_path / "nowhere")
    parsed_only = load_project(write_manifest(tmp_path / "parsed", compiled=False))
    with pytest.raises(LineageError, match=r"no compiled SQL.*dbt compile"):
        column_lineage(parsed_only, "marts.fct_documents.language")


def test_cli(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBT_TARGET_PATH", str(target))
    runner = CliRunner()
    printed = runner.invoke(main, ["lineage", "--column", "marts.fct_documents.source_id"])
    assert printed.exit_code == 0, printed.output
    assert printed.output.splitlines() == [
        "marts.fct_documents.source_id",
        "└── stg_raw__documents.source_id",
        "    └── raw.documents.source",
    ]
    missing = runner.invoke(main, ["lineage"])
    assert missing.exit_code == 2 and "--column" in missing.output
    unknown = runner.invoke(main, ["lineage", "--column", "marts.fct_documents.nope"])
    assert unknown.exit_code == 1 and "its columns: document_id" in unknown.output
    monkeypatch.setenv("DBT_TARGET_PATH", str(target.parent / "empty"))
    no_manifest = runner.invoke(main, ["lineage", "--column", "marts.fct_documents.language"])
    assert no_manifest.exit_code == 1 and "dbt docs generate" in no_manifest.output


def test_annotate_appends_lineage_to_mart_columns_once(target: Path) -> None:
    assert annotate(target) == 6
    assert annotate(target) == 6  # again: the old lineage is replaced, not repeated
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    language = nodes["model.demo.fct_documents"]["columns"]["language"]["description"]
    assert language.startswith("language of fct_documents\n\n**Derived from:**")
    assert language.count("Derived from") == 1
    assert "int_scored.language <- stg_raw__documents.text <- raw.documents.text" in language
    staging = nodes["model.demo.stg_raw__documents"]["columns"]["text"]["description"]
    assert staging == "text of stg_raw__documents"  # only marts are annotated
