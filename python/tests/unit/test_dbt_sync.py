"""When a sync model writes only its changed rows, and when it is rebuilt whole (and why)."""

from __future__ import annotations

import pyarrow as pa

from lakemix.catalog import catalog
from lakemix.dbt.sync import MAX_DELETED_SHARE, SQL_PROPERTY, plan
from lakemix.dbt.watermark import watermark_property
from lakemix.iceberg.row_delta import commit_row_delta, positions_of
from lakemix.settings import Settings

ROWS = pa.table({"document_id": pa.array(["a", "b", "c", "d", "e"], pa.string())})


def test_a_sync_follows_sources_that_were_only_appended_to(lakehouse: Settings) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("intermediate")
    tables.create_namespace("marts")
    source = tables.create_table("intermediate.src", schema=ROWS.schema)
    source.append(ROWS)
    read = source.metadata.current_snapshot_id
    assert read is not None
    target = tables.create_table("marts.synced", schema=ROWS.schema)

    assert plan(None, {}, "sql-1").reason == "a first build, or a --full-refresh"
    assert not plan(target, {}, "sql-1").sync  # no snapshot yet
    target.append(ROWS)  # rows made without a record (an earlier lakemix, or Spark)
    assert plan(target, {}, "sql-1").reason == "no record of the SQL its rows were made with"

    made = {watermark_property("intermediate.src"): str(read), SQL_PROPERTY: "sql-1"}
    target.overwrite(ROWS, snapshot_properties=made)
    target = tables.load_table("marts.synced")
    decided = plan(target, {"intermediate.src": (source, read)}, "sql-1")
    assert decided.sync and decided.parent == target.metadata.current_snapshot_id
    # An edit of the model may change a column the sync does not hash in every row.
    decided = plan(target, {"intermediate.src": (source, read)}, "sql-2")
    assert decided.reason == "its SQL changed since its rows were made"

    source.append(ROWS)  # appended since: still a sync
    source = tables.load_table("intermediate.src")
    now = source.metadata.current_snapshot_id
    assert now is not None
    assert plan(target, {"intermediate.src": (source, now)}, "sql-1").sync

    source.overwrite(ROWS)  # a --full-refresh of the source: its rows may have changed
    source = tables.load_table("intermediate.src")
    now = source.metadata.current_snapshot_id
    assert now is not None
    decided = plan(target, {"intermediate.src": (source, now)}, "sql-1")
    assert not decided.sync
    assert decided.reason == "intermediate.src was rewritten since the last run"

    decided = plan(target, {"intermediate.other": (source, now)}, "sql-1")
    assert decided.reason == (
        "no record of which snapshot of intermediate.other its rows were read from"
    )


def test_a_table_with_many_deleted_rows_is_rewritten_whole(lakehouse: Settings) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    target = tables.create_table("marts.deleted", schema=ROWS.schema)
    target.append(ROWS)
    target = tables.load_table("marts.deleted")
    made = {SQL_PROPERTY: "sql"}
    commit_row_delta(target, [], positions_of(target, "document_id", pa.array(["a"])), made)
    target = tables.load_table("marts.deleted")
    assert MAX_DELETED_SHARE >= 1 / 5 and plan(target, {}, "sql").sync  # a fifth is not more
    commit_row_delta(target, [], positions_of(target, "document_id", pa.array(["b"])), made)
    target = tables.load_table("marts.deleted")
    decided = plan(target, {}, "sql")
    assert not decided.sync
    assert decided.reason == (
        "2 of its 5 stored rows are deleted, in 2 delete files: rewritten whole"
    )
