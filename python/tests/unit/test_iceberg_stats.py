"""Counts read from Iceberg metadata: exact where the metrics tell, None where they do not."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from lakemix.catalog import catalog
from lakemix.iceberg.stats import null_count, row_count
from lakemix.settings import Settings


def rows(ids: list[str], scripts: list[str | None]) -> pa.Table:
    return pa.table(
        {"document_id": pa.array(ids, pa.string()), "script": pa.array(scripts, pa.string())}
    )


def test_null_count_sums_the_data_files_metrics(lakehouse: Settings, tmp_path: Path) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    table = tables.create_table("marts.counted", schema=rows([], []).schema)
    table.append(rows(["a", "b", "c"], ["Latn", None, None]))
    table.append(rows(["d"], [None]))
    # A file DuckDB wrote, added as lakemix's iceberg materialization adds its files.
    written = tmp_path / "part.parquet"
    duckdb.sql(
        "copy (select * from (values ('e', null), ('f', 'Cyrl')) as t(document_id, script)) "
        f"to '{written}' (format parquet)"
    )
    table.add_files([str(written)])
    assert row_count(table) == 6
    assert null_count(table, "script") == 4
    assert null_count(table, "document_id") == 0


def test_null_count_is_none_without_metrics(lakehouse: Settings) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    table = tables.create_table(
        "marts.uncounted",
        schema=rows([], []).schema,
        properties={"write.metadata.metrics.default": "none"},
    )
    table.append(rows(["a", "b"], [None, "Latn"]))
    assert null_count(table, "script") is None


def test_null_count_under_position_deletes(lakehouse: Settings, tmp_path: Path) -> None:
    """A file with no NULL keeps none whatever rows its delete file removes (a synced mart's
    old files all carry deletes); a file with NULLs and deletes cannot tell how many are left."""
    from lakemix.iceberg.row_delta import commit_row_delta, positions_of

    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    table = tables.create_table("marts.synced", schema=rows([], []).schema)
    table.append(rows(["a", "b", "c"], ["Latn", "Latn", None]))
    added = Path(table.location().removeprefix("file://")) / "data" / "added.parquet"
    added.parent.mkdir(parents=True, exist_ok=True)
    duckdb.sql(
        "copy (select * from (values ('d', 'Cyrl')) as t(document_id, script)) "
        f"to '{added}' (format parquet)"
    )
    commit_row_delta(table, [str(added)], positions_of(table, "document_id", pa.array(["a"])), {})
    table = tables.load_table("marts.synced")
    assert row_count(table) == 3
    assert null_count(table, "document_id") == 0  # no file holds a NULL id
    assert null_count(table, "script") is None  # the first file's NULL may have been deleted
