"""When a sync model writes only its changed rows, and when it is rebuilt whole (and why)."""

from __future__ import annotations

import pyarrow as pa

from lakemix.catalog import catalog
from lakemix.dbt.sync import MAX_DELETED_SHARE, plan
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

    assert plan(None, {}).reason == "a first build, or a --full-refresh"
    assert not plan(target, {}).sync  # no snapshot yet

    target.append(ROWS, snapshot_properties={watermark_property("intermediate.src"): str(read)})
    target = tables.load_table("marts.synced")
    decided = plan(target, {"intermediate.src": (source, read)})
    assert decided.sync and decided.parent == target.metadata.current_snapshot_id

    source.append(ROWS)  # appended since: still a sync
    source = tables.load_table("intermediate.src")
    now = source.metadata.current_snapshot_id
    assert now is not None
    assert plan(target, {"intermediate.src": (source, now)}).sync

    source.overwrite(ROWS)  # a --full-refresh of the source: its rows may have changed
    source = tables.load_table("intermediate.src")
    now = source.metadata.current_snapshot_id
    assert now is not None
    decided = plan(target, {"intermediate.src": (source, now)})
    assert not decided.sync
    assert decided.reason == "intermediate.src was rewritten since the last run"

    decided = plan(target, {"intermediate.other": (source, now)})
    assert decided.reason == (
        "no record of which snapshot of intermediate.other its rows were read from"
    )


def test_a_table_with_many_deleted_rows_is_rewritten_whole(lakehouse: Settings) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    target = tables.create_table("marts.deleted", schema=ROWS.schema)
    target.append(ROWS)
    target = tables.load_table("marts.deleted")
    commit_row_delta(target, [], positions_of(target, "document_id", pa.array(["a"])), {})
    target = tables.load_table("marts.deleted")
    assert MAX_DELETED_SHARE >= 1 / 5 and plan(target, {}).sync  # a fifth is not more
    commit_row_delta(target, [], positions_of(target, "document_id", pa.array(["b"])), {})
    target = tables.load_table("marts.deleted")
    decided = plan(target, {})
    assert not decided.sync
    assert decided.reason == (
        "2 of its 5 stored rows are deleted, in 2 delete files: rewritten whole"
    )
