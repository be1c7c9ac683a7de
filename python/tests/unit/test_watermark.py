"""Which data files a source gained since a snapshot, and whether they hold only new rows."""

from __future__ import annotations

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.expressions import AlwaysTrue

from lakemix.catalog import catalog
from lakemix.dbt.watermark import AddedFiles, added_files, files_since
from lakemix.iceberg.row_delta import commit_row_delta, positions_of
from lakemix.settings import Settings


def rows(*ids: str) -> pa.Table:
    return pa.table({"document_id": pa.array(ids, pa.string())})


def snapshot_id(table: object) -> int:
    snapshot = table.current_snapshot()  # type: ignore[attr-defined]
    assert snapshot is not None
    return int(snapshot.snapshot_id)


def test_appends_give_exactly_the_new_files_and_a_rewrite_does_not(lakehouse: Settings) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("intermediate")
    table = tables.create_table("intermediate.source", schema=rows().schema)
    table.append(rows("a", "b"))
    first = snapshot_id(table)
    table.append(rows("c"))
    table.append(rows("d"))
    appended = snapshot_id(table)

    added = added_files(table, first, appended)
    assert added is not None and added.appended_only
    assert len(added.paths) == 2
    new = pa.concat_tables(pq.read_table(p) for p in added.paths)
    assert sorted(new["document_id"].to_pylist()) == ["c", "d"]
    assert added_files(table, appended, appended) == AddedFiles([], appended_only=True)

    # A rebuild rewrites every row into new files: all of them are "added", old rows too.
    with table.transaction() as tx:
        tx.delete(AlwaysTrue())
        tx.append(rows("a", "b", "c", "d", "e"))
    rebuilt = snapshot_id(table)
    added = added_files(table, first, rebuilt)
    assert added is not None and not added.appended_only and len(added.paths) == 1
    table.append(rows("f"))  # an append after the rebuild does not make the chain clean
    added = added_files(table, first, snapshot_id(table))
    assert added is not None and not added.appended_only
    added = added_files(table, rebuilt, snapshot_id(table))  # but from the rebuild on it is
    assert added is not None and added.appended_only and len(added.paths) == 1

    # Not an ancestor (a later snapshot against an earlier one) or unknown: no clean chain.
    assert added_files(table, appended, first) == AddedFiles([], appended_only=False)
    assert added_files(table, None, rebuilt) is None
    assert added_files(table, 12345, rebuilt) is None


def test_rows_since_is_exact_only_while_the_source_was_appended_to(
    lakehouse: Settings,
) -> None:
    """The plugin's answer for lakemix.rows_since: after appends, the new files, exact (the
    macro adds no anti-join); after a rebuild, the new files hold old rows too, not exact; a
    full read is exact when the model is rebuilt too."""
    from lakemix.dbt.plugin import Plugin

    tables = catalog(lakehouse)
    tables.create_namespace("intermediate")
    source = tables.create_table("intermediate.source", schema=rows().schema)
    source.append(rows("a", "b"))
    read = snapshot_id(source)
    target = tables.create_table("intermediate.target", schema=rows().schema)
    target.append(
        rows("a", "b"), snapshot_properties={"lakemix.read.intermediate.source": str(read)}
    )
    source.append(rows("c"))
    plugin = Plugin("lakemix", {})
    conn = duckdb.connect()

    def rows_since(incremental: bool) -> tuple[list[str], bool]:
        answer = orjson.loads(
            plugin._rows_since("intermediate.source", "intermediate.target", incremental)
        )
        found = conn.execute(f"select document_id from {answer['sql']} order by 1").fetchall()
        return [row[0] for row in found], answer["exact"]

    assert rows_since(True) == (["c"], True)

    with source.transaction() as tx:  # rebuilt: its new files hold old rows too
        tx.delete(AlwaysTrue())
        tx.append(rows("a", "b", "c", "d"))
    assert rows_since(True) == (["a", "b", "c", "d"], False)
    assert (
        "iceberg_scan("
        in orjson.loads(plugin._rows_since("intermediate.source", "intermediate.target", False))[
            "sql"
        ]
    )


def test_files_since_are_the_files_written_after_a_snapshot(lakehouse: Settings) -> None:
    """Appends, position deletes and a rewrite: the files a later snapshot has that the earlier
    lacked, deletes or not; None for a snapshot the table does not know."""
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    schema = pa.schema([("document_id", pa.string())])
    table = tables.create_table("marts.written", schema=schema)
    table.append(pa.table({"document_id": ["a", "b"]}, schema=schema))
    first = table.metadata.current_snapshot_id
    assert files_since(table, first) == []
    table.append(pa.table({"document_id": ["c"]}, schema=schema))
    appended = files_since(table, first)
    assert appended is not None and len(appended) == 1
    commit_row_delta(table, [], positions_of(table, "document_id", pa.array(["a"])), {})
    table = tables.load_table("marts.written")
    assert files_since(table, first) == appended  # a delete file writes no rows
    table.overwrite(pa.table({"document_id": ["d"]}, schema=schema))
    rewritten = files_since(table, first)
    assert rewritten is not None and len(rewritten) == 1 and rewritten != appended
    assert files_since(table, None) is None and files_since(table, 12345) is None
