"""Column lineage and documentation on the real project, compiled (with a mix) by dbt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlglot.lineage import lineage

from lakemix.lineage import LineageTracer, column_lineage, lineage_paths, load_project
from lakemix.lineage.columns import DIALECT, NO_UPSTREAM, UNNAMED
from lakemix.lineage.project import Project
from lakemix.settings import Settings
from tests.conftest import dbt


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """target/ of `dbt compile` with the mix demo_unimax enabled, on an empty lakehouse."""
    tmp = tmp_path_factory.mktemp("compiled")
    home = tmp / "lakehouse"
    home.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAKEMIX_HOME", str(home))
        for name in ("LAKEMIX_CATALOG_URI", "LAKEMIX_WAREHOUSE", "LAKEMIX_DUCKDB_PATH"):
            patch.delenv(name, raising=False)
        assert Settings.from_env().home == home
        dbt("compile", "--vars", "{lakemix_mix: demo_unimax}", tmp=tmp)
    return tmp / "target"


@pytest.fixture(scope="module")
def project(compiled: Path) -> Project:
    return load_project(compiled)


def test_every_mart_column_reaches_a_source_seed_or_constant(project: Project) -> None:
    tracer = LineageTracer(project)
    sources = {r.label for r in project.relations if r.kind in ("source", "seed")}
    marts = [r for r in project.relations if r.kind == "model" and r.schema == "marts"]
    assert {r.label for r in marts} >= {"fct_clean_documents", "mix_documents", "dim_sources"}
    for relation in marts:
        for column in relation.columns:
            for path in lineage_paths(tracer.trace(relation, column)):
                end = path.rsplit(" <- ", 1)[-1]
                constant = end.endswith(f"({NO_UPSTREAM})")
                assert constant or end.rsplit(".", 1)[0] in sources, f"{relation}: {path}"


def test_known_lineages(project: Project) -> None:
    text = lineage_paths(column_lineage(project, "marts.fct_clean_documents.text"))
    # a fetched page's text is its main text (int_pages_extracted), any other's the staged one
    assert text == [
        "int_documents_pii_redacted.text <- int_documents_language_scored.text"
        " <- int_pages_extracted.text <- stg_raw__documents.text <- raw.documents.text",
        "int_documents_pii_redacted.text <- int_documents_language_scored.text"
        " <- stg_raw__documents.text <- raw.documents.text",
    ]
    # lakemix_language(text) returns a struct; language is one of its fields
    language = lineage_paths(column_lineage(project, "marts.fct_clean_documents.language"))
    assert language == [
        "int_documents_language_scored.language <- int_pages_extracted.text"
        " <- stg_raw__documents.text <- raw.documents.text",
        "int_documents_language_scored.language <- stg_raw__documents.text <- raw.documents.text",
    ]
    split = lineage_paths(column_lineage(project, "marts.mix_demo_unimax.split"))
    assert any(p.endswith("stg_meta__mix_plans.seed <- meta.mix_plans.seed") for p in split)
    assert any(p.endswith("raw.documents.document_id") for p in split)
    word_count = column_lineage(project, "marts.fct_clean_documents.word_count")
    assert lineage_paths(word_count)[0].endswith("stg_raw__documents.text <- raw.documents.text")


def test_every_model_and_selected_column_is_described(compiled: Path, project: Project) -> None:
    manifest = json.loads((compiled / "manifest.json").read_text())
    schema = project.sqlglot_schema()
    missing = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model":
            continue
        if not node["description"].strip():
            missing.append(f"{node['name']} (the model)")
        if "one row per" not in node["description"].lower():
            missing.append(f"{node['name']}: the description does not state the grain")
        if node.get("language") == "python":  # its columns are in its YAML, not in SQL
            continue
        selected = lineage(None, node["compiled_code"], schema=schema, dialect=DIALECT)
        for column in selected:
            described = node["columns"].get(column.lower(), {}).get("description", "").strip()
            if not UNNAMED.fullmatch(column) and not described:
                missing.append(f"{node['name']}.{column}")
    for unique_id, source in manifest["sources"].items():
        if not source["description"].strip():
            missing.append(unique_id)
    assert missing == []
