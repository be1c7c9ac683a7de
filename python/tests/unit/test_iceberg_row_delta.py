"""Row deltas: rows deleted by position and rows added in one snapshot, read back the same by
pyiceberg and DuckDB's iceberg_scan."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
import pytest

from lakemix import duck
from lakemix.catalog import catalog
from lakemix.iceberg.row_delta import (
    RowDeltaError,
    commit_row_delta,
    deleted_share,
    positions_of,
)
from lakemix.iceberg.stats import row_count
from lakemix.settings import Settings

if TYPE_CHECKING:
    from pyiceberg.table import Table


def written(folder: Path, name: str, rows: list[tuple[str, int]]) -> str:
    """A Parquet file DuckDB wrote (no field ids), as the iceberg materialization writes them."""
    path = folder / name
    values = ", ".join(f"('{key}', {value})" for key, value in rows)
    duckdb.sql(
        f"copy (select * from (values {values}) as t(document_id, size)) to '{path}' "
        "(format parquet)"
    )
    return str(path)


def scanned(table_location: str) -> list[tuple[str, int]]:
    conn = duck.connect()
    try:
        return sorted(conn.execute(f"select * from iceberg_scan('{table_location}')").fetchall())
    finally:
        conn.close()


def table_of(settings: Settings, name: str, *files: str) -> Table:
    """A new table ``marts.<name>`` of (document_id, size) holding ``files``, one commit each."""
    tables = catalog(settings)
    tables.create_namespace("marts")
    schema = pa.schema([("document_id", pa.string()), ("size", pa.int32())])
    table = tables.create_table(f"marts.{name}", schema=schema)
    for path in files:
        table.add_files([path])
    return tables.load_table(f"marts.{name}")


def test_a_row_delta_deletes_and_adds_rows_in_one_snapshot(
    lakehouse: Settings, tmp_path: Path
) -> None:
    tables = catalog(lakehouse)
    table = table_of(
        lakehouse,
        "synced",
        written(tmp_path, "a.parquet", [("a", 1), ("b", 1), ("c", 1)]),
        written(tmp_path, "b.parquet", [("d", 1), ("e", 1)]),
    )

    # b leaves, d changes (deleted, then added again with its new size), f is new.
    positions = positions_of(table, "document_id", pa.array(["d", "b"]))
    pairs = list(zip(*(positions.column(c).to_pylist() for c in ("file_path", "pos")), strict=True))
    assert pairs == sorted(pairs)  # the spec's order
    assert [pos for _, pos in pairs] == [1, 0]  # b is row 1 of a.parquet, d row 0 of b.parquet
    added = written(tmp_path, "c.parquet", [("d", 2), ("f", 1)])
    commit_row_delta(table, [added], positions, {"lakemix.test": "1"})
    table = tables.load_table("marts.synced")

    expected = [("a", 1), ("c", 1), ("d", 2), ("e", 1), ("f", 1)]
    assert sorted(table.scan().to_arrow().to_pylist(), key=str) == sorted(
        ({"document_id": k, "size": v} for k, v in expected), key=str
    )
    assert scanned(table.metadata_location) == expected
    snapshot = table.current_snapshot()
    assert snapshot is not None and snapshot.summary is not None
    summary = snapshot.summary
    assert summary.operation.value == "overwrite"
    assert summary["added-position-deletes"] == "2"
    assert summary["added-records"] == "2"
    assert summary["lakemix.test"] == "1"
    assert deleted_share(table).deleted == 2
    assert deleted_share(table).stored == 7
    assert row_count(table) == 5

    # A second delta finds d in the file it was added to, not at its deleted position.
    positions = positions_of(table, "document_id", pa.array(["d"]))
    assert positions.to_pylist() == [{"file_path": added, "pos": 0}]
    commit_row_delta(table, [], positions, {})
    table = tables.load_table("marts.synced")
    assert scanned(table.metadata_location) == [("a", 1), ("c", 1), ("e", 1), ("f", 1)]
    assert deleted_share(table).delete_files == 2
    assert row_count(table) == 4

    # Nothing to add or delete: a snapshot all the same (it records who made the table so).
    before = table.metadata.current_snapshot_id
    commit_row_delta(table, [], positions_of(table, "document_id", pa.array([], pa.string())), {})
    table = tables.load_table("marts.synced")
    assert table.metadata.current_snapshot_id != before
    assert scanned(table.metadata_location) == [("a", 1), ("c", 1), ("e", 1), ("f", 1)]


def test_a_row_delta_refuses_keys_the_table_does_not_hold(
    lakehouse: Settings, tmp_path: Path
) -> None:
    table = table_of(lakehouse, "keyed", written(tmp_path, "a.parquet", [("a", 1), ("a", 2)]))
    with pytest.raises(RowDeltaError, match="1 row\\(s\\) to delete by document_id, 0 live"):
        positions_of(table, "document_id", pa.array(["z"]))
    with pytest.raises(RowDeltaError, match="is no key"):
        positions_of(table, "document_id", pa.array(["a"]))
