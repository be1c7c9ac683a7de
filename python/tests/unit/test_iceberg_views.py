"""DuckDB views of Iceberg tables, and views narrowed to the data files that hold given keys."""

from __future__ import annotations

import pyarrow as pa
import pytest

from lakemix import duck
from lakemix.catalog import catalog
from lakemix.iceberg.views import PIN_VARIABLE, narrowed, refresh_views
from lakemix.settings import Settings


def rows(*ids: str) -> pa.Table:
    return pa.table(
        {
            "document_id": pa.array(ids, pa.string()),
            "text": pa.array([i * 3 for i in ids], pa.string()),
        }
    )


def keys(*ids: str) -> pa.Table:
    return pa.table({"document_id": pa.array(ids, pa.string())})


def test_a_narrowed_view_reads_the_files_holding_the_keys_and_only_while_the_block_runs(
    lakehouse: Settings,
) -> None:
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    table = tables.create_table("marts.docs", schema=rows().schema)
    table.append(rows("a", "b"))  # one data file each append
    table.append(rows("c", "d"))
    table.append(rows("e"))
    conn = duck.connect(settings=lakehouse)
    refresh_views(conn, tables)
    every = "select document_id from marts.docs order by 1"

    with narrowed(conn, tables, ["marts.docs"], keys("c", "e", "zz")) as reader:
        # the files of c and e, whole (d shares c's file); a join on the keys picks them
        assert [r[0] for r in reader.execute(every).fetchall()] == ["c", "d", "e"]
        picked = reader.execute(
            "select document_id, text from marts.docs semi join narrowed_keys using (document_id)"
            " order by 1"
        ).fetchall()
        assert picked == [("c", "ccc"), ("e", "eee")]
        # the session it came from still sees every row
        assert len(conn.execute(every).fetchall()) == 5
    assert [r[0] for r in conn.execute(every).fetchall()] == ["a", "b", "c", "d", "e"]

    with narrowed(conn, tables, ["marts.docs"], keys("zz")) as reader:  # no file holds it
        assert reader.execute(every).fetchall() == []
    assert len(conn.execute(every).fetchall()) == 5


def test_a_narrowed_view_of_a_pinned_table_reads_the_pinned_snapshot(
    lakehouse: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under LAKEMIX_SNAPSHOTS (a release rebuilt) the narrowed view reads what the pinned view
    reads: a row appended after the pinned snapshot is not there."""
    tables = catalog(lakehouse)
    tables.create_namespace("marts")
    table = tables.create_table("marts.docs", schema=rows().schema)
    table.append(rows("a", "b"))
    pinned = table.current_snapshot()
    assert pinned is not None
    table.append(rows("c"))
    monkeypatch.setenv(PIN_VARIABLE, f'{{"marts.docs": {pinned.snapshot_id}}}')
    conn = duck.connect(settings=lakehouse)
    refresh_views(conn, tables)
    every = "select document_id from marts.docs order by 1"
    assert [r[0] for r in conn.execute(every).fetchall()] == ["a", "b"]
    with narrowed(conn, tables, ["marts.docs"], keys("b", "c")) as reader:
        assert [r[0] for r in reader.execute(every).fetchall()] == ["a", "b"]
