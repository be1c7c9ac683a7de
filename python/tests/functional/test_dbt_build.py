"""dbt build end to end on a small real fixture corpus, on SQLite and on PostgreSQL catalogs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lakemix import catalog, duck
from lakemix.dbt import cache_key, watermark
from lakemix.iceberg.stats import row_count
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.udf import pii, tokens
from tests.conftest import WEB, dbt

OSCAR = sorted((WEB / "oscar2019").glob("unshuffled_*_[a-d]*.txt.gz"))


def ingest_fixture() -> int:
    """A few hundred real documents from three sources and four formats; returns documents."""
    results = [
        ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl"),
        ingest(OSCAR, source="oscar2019", fmt="oscar"),
        ingest([WEB / "hplt_warc2text" / "sample100_CC.jsonl.zst"], source="hplt", fmt="hplt"),
    ]
    return sum(r.total("documents") for r in results)


def counts_by_engine(settings: Settings, tmp: Path) -> dict[str, dict[str, int]]:
    """Rows of every Iceberg table as pyiceberg, DuckDB's iceberg_scan and dbt see them."""
    cat = catalog(settings)
    conn = duck.connect(settings=settings)
    out: dict[str, dict[str, int]] = {"pyiceberg": {}, "iceberg_scan": {}, "dbt": {}}
    names = []
    for namespace in cat.list_namespaces():
        for ident in cat.list_tables(namespace):
            table = cat.load_table(ident)
            name = ".".join(ident)
            names.append(name)
            streamed = sum(b.num_rows for b in table.scan().to_arrow_batch_reader())
            assert streamed == row_count(table), name
            out["pyiceberg"][name] = streamed
            sql = f"select count(*) from iceberg_scan('{table.metadata_location}')"
            out["iceberg_scan"][name] = conn.execute(sql).fetchone()[0]  # type: ignore[index]
    union = " union all ".join(f"select '{n}' as t, count(*) as n from {n}" for n in sorted(names))
    shown = dbt("show", "--inline", union, "--output", "json", "--limit", "100", tmp=tmp)
    payload = shown.stdout[shown.stdout.index("{") :]
    out["dbt"] = {row["t"]: row["n"] for row in json.loads(payload)["show"]}
    return out


def copies_of_clean_documents(settings: Settings, path: Path, n: int) -> Path:
    """A JSON-lines file with the raw texts of ``n`` clean documents (exact duplicates)."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    texts = conn.execute(
        "select raw.text from raw.documents as raw inner join marts.fct_clean_documents "
        f"using (document_id) order by document_id limit {n}"
    ).fetchall()
    conn.close()
    lines = (json.dumps({"id": f"copy-{i}", "text": text}) for i, (text,) in enumerate(texts))
    path.write_text("\n".join(lines) + "\n")
    return path


def one_row(settings: Settings, sql: str) -> tuple[Any, ...]:
    """The row a query of the lakehouse's DuckDB file gives (read-only)."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    row = conn.execute(sql).fetchone()
    conn.close()
    assert row is not None
    return tuple(row)


def mart_rows(settings: Settings, table: str = "marts.fct_clean_documents") -> tuple[int, int]:
    """Rows of a table and the sum of their hashes (every column)."""
    rows, hashes = one_row(settings, f"select count(*), sum(hash(t) // 16) from {table} as t")
    return int(rows), int(hashes)


def model_rows(settings: Settings, tmp: Path, model: str) -> tuple[int, int]:
    """``mart_rows`` of the model's SQL as dbt compiled it: the table rebuilt whole."""
    sql = next((tmp / "target" / "compiled").rglob(f"{model}.sql")).read_text()
    return mart_rows(settings, f"({sql})")


def test_build_on_fixture_corpus(any_lakehouse: Settings, tmp_path: Path) -> None:
    documents = ingest_fixture()
    build = dbt("build", tmp=tmp_path)
    assert "Completed successfully" in build.stdout
    assert "ERROR=0" in build.stdout and "SKIP=0" in build.stdout

    counts = counts_by_engine(any_lakehouse, tmp_path)
    assert counts["pyiceberg"] == counts["iceberg_scan"] == counts["dbt"]
    assert counts["dbt"]["raw.documents"] == documents
    assert {"raw.documents", "marts.fct_clean_documents", "marts.dim_duplicate_clusters"} <= set(
        counts["dbt"]
    )
    assert counts["dbt"]["marts.dim_sources"] == 3
    # accounting: every raw document is clean or rejected (a dbt test checks it per document)
    clean, rejected = (
        counts["dbt"]["marts.fct_clean_documents"],
        counts["dbt"]["marts.fct_document_rejections"],
    )
    assert clean > 0 and rejected > 0 and clean + rejected == documents

    # the mart is an Iceberg table whose snapshot records the dbt run that wrote it
    table = catalog(any_lakehouse).load_table("marts.dim_sources")
    snap = table.current_snapshot()
    assert snap is not None and snap.summary is not None
    props = snap.summary.additional_properties
    assert props["lakemix.dbt_model"] == "model.lakemix.dim_sources"
    assert props["lakemix.dbt_invocation_id"] and props["lakemix.git_commit"]

    # a second build overwrites (the same rows), a new ingest shows up in the next build;
    # copies of three clean documents grow their duplicate clusters: the clean mart syncs (it
    # deletes the rows that changed by position and adds them again) instead of rewriting
    copies = copies_of_clean_documents(any_lakehouse, tmp_path / "copies.jsonl", 3)
    copied = ingest([copies], source="copies", fmt="jsonl")
    new_ingest = ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
    build = dbt("build", tmp=tmp_path)
    assert "fct_clean_documents: synced" in build.stdout
    counts = counts_by_engine(any_lakehouse, tmp_path)
    assert counts["pyiceberg"] == counts["iceberg_scan"] == counts["dbt"]
    assert counts["dbt"]["marts.dim_sources"] == 5
    assert counts["dbt"]["raw.documents"] == documents + 63 + 3
    clean, rejected = (
        counts["dbt"]["marts.fct_clean_documents"],
        counts["dbt"]["marts.fct_document_rejections"],
    )
    assert clean + rejected == documents + 63 + 3
    mart = catalog(any_lakehouse).load_table("marts.fct_clean_documents")
    summary = mart.current_snapshot().summary  # type: ignore[union-attr]
    assert summary is not None and summary.operation.value == "overwrite"
    assert int(summary["added-position-deletes"] or 0) >= 3
    assert int(summary["added-records"] or 0) < clean  # not rewritten whole
    assert mart_rows(any_lakehouse) == model_rows(any_lakehouse, tmp_path, "fct_clean_documents")

    # the second build tested only the new ingest's raw rows (tests with where: __new_rows__),
    # recorded every ingest as tested, and indexed only the new documents for search
    compiled = tmp_path / "target" / "run" / "lakemix" / "models" / "staging" / "raw"
    test_sql = (compiled / "_raw__models.yml" / "not_null_stg_raw__documents_text.sql").read_text()
    # the new ingests' ids themselves: with a NOT IN subquery DuckDB normalized every text to
    # test it
    ids = "', '".join(sorted((copied.ingest_id, new_ingest.ingest_id)))
    assert f"where ingest_id in ('{ids}')) dbt_subquery" in test_sql
    tested, ingests, indexed, added = one_row(
        any_lakehouse,
        "select (select count(distinct ingest_id) from main.lakemix_tested_ingests), "
        "(select count(distinct ingest_id) from raw.documents), document_count, added_count "
        "from search.search_index",
    )
    assert tested == ingests == 5
    assert indexed == documents + 66 and 66 <= added < documents
    # redaction and token counts read the texts of the documents they had not done from the
    # data files holding them, not from every file of their source
    models = tmp_path / "target" / "run" / "lakemix" / "models" / "intermediate"
    for model in ("redaction/int_documents_pii_redacted", "tokenization/int_documents_tokenized"):
        assert "where filename in ('" in (models / f"{model}.sql").read_text()
    # the PII test of the clean texts read the files the sync wrote (where: __written_rows__),
    # not every text; the snapshot it tested is recorded for the next build
    marts = tmp_path / "target" / "run" / "lakemix" / "models" / "marts" / "_marts__models.yml"
    pii_sql = next(marts.glob("no_pii_pattern_fct_clean_documents_text*.sql")).read_text()
    synced = catalog(any_lakehouse).load_table("marts.fct_clean_documents")
    parent = synced.current_snapshot().parent_snapshot_id  # type: ignore[union-attr]
    written = watermark.files_since(synced, parent)
    assert written and "where filename in (" in pii_sql
    assert all(f"'{path}'" in pii_sql for path in written)
    recorded = one_row(
        any_lakehouse,
        "select max_by(snapshot_id, tested_at) from main.lakemix_tested_snapshots "
        "where table_name = 'marts.fct_clean_documents'",
    )
    assert recorded == (synced.metadata.current_snapshot_id,)

    # the redacted texts and token counts record what they were computed with, and another
    # tokenizer refuses an incremental run instead of mixing two tokenizers' counts in one table
    tables = catalog(any_lakehouse)
    tokenized = cache_key.recorded(tables.load_table("intermediate.int_documents_tokenized"))
    redacted = cache_key.recorded(tables.load_table("intermediate.int_documents_pii_redacted"))
    assert json.loads(tokenized or "{}") == {
        "settings": {"tokenizer": "cl100k"},
        "udfs": {"tokens": tokens.DEFINITION},
    }
    assert json.loads(redacted or "{}") == {"settings": {}, "udfs": {"pii": pii.DEFINITION}}
    select = ["--select", "int_documents_tokenized"]
    refused = dbt("run", *select, "--vars", "{lakemix_tokenizer: o200k}", tmp=tmp_path, check=False)
    assert refused.returncode != 0
    assert "int_documents_tokenized holds rows computed with" in refused.stdout
    assert "dbt run --select int_documents_tokenized+ --full-refresh" in refused.stdout

    # the clean mart syncs only while the incremental models it reads were only appended to:
    # the token counts rewritten (a --full-refresh), it is rebuilt whole, to the same rows
    dbt("run", *select, "--full-refresh", tmp=tmp_path)
    rebuilt = dbt("run", "--select", "fct_clean_documents", tmp=tmp_path)
    assert "rebuilt whole: intermediate.int_documents_tokenized was rewritten" in rebuilt.stdout
    assert mart_rows(any_lakehouse) == model_rows(any_lakehouse, tmp_path, "fct_clean_documents")
