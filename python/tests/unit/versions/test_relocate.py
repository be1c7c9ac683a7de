"""A copied lakehouse refuses the original's files; `lakemix relocate` makes it whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from click.testing import CliRunner

from lakemix import catalog, duck
from lakemix.catalog import OutsideWarehouseError
from lakemix.cli import main
from lakemix.iceberg.row_delta import commit_row_delta, positions_of
from lakemix.iceberg.views import scan_sql
from lakemix.settings import Settings
from lakemix.versions.gc import _referenced


def rows(ids: list[str]) -> pa.Table:
    return pa.table({"document_id": pa.array(ids, pa.string())})


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def build(settings: Settings) -> None:
    """Two appends, a row delta (a position-delete file naming a data file), and a tag."""
    tables = catalog(settings)
    tables.create_namespace("marts")
    table = tables.create_table("marts.docs", schema=rows([]).schema)
    table.append(rows(["a", "b", "c"]))
    table.manage_snapshots().create_tag(table.metadata.current_snapshot_id, "v1").commit()
    table = tables.load_table("marts.docs")
    table.append(rows(["d"]))
    added = Path(table.location().removeprefix("file://")) / "data" / "added.parquet"
    duckdb.sql(f"copy (select 'e' as document_id) to '{added}' (format parquet)")
    commit_row_delta(table, [str(added)], positions_of(table, "document_id", pa.array(["a"])), {})


def read(settings: Settings, version: str | None = None) -> list[str]:
    table = catalog(settings).load_table("marts.docs")
    snapshot = None if version is None else table.metadata.refs[version].snapshot_id
    conn = duck.connect(settings=settings)
    found = conn.execute(f"select document_id from {scan_sql(table, snapshot)} order by 1")
    return [r[0] for r in found.fetchall()]


def test_a_copy_refuses_then_relocates_without_touching_the_original(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(lakehouse)
    assert read(lakehouse) == ["b", "c", "d", "e"] and read(lakehouse, "v1") == ["a", "b", "c"]
    copy = tmp_path / "copy"
    shutil.copytree(lakehouse.home, copy)
    before = tree(lakehouse.home)
    monkeypatch.setenv("LAKEMIX_HOME", str(copy))
    moved = Settings.from_env()

    with pytest.raises(OutsideWarehouseError, match="outside this lakehouse's warehouse"):
        catalog(moved).load_table("marts.docs")
    refused = CliRunner().invoke(main, ["tables"])
    assert refused.exit_code == 1 and "lakemix relocate" in refused.output, refused.output

    done = CliRunner().invoke(main, ["relocate"])
    assert done.exit_code == 0, done.output
    assert f"relocated 1 tables (4 files) from {lakehouse.warehouse} to {moved.warehouse}" in (
        done.output
    )
    # Every file the copy's table references is in the copy, deletes included.
    table = catalog(moved).load_table("marts.docs")
    referenced = _referenced(table)
    outside = [path for path in referenced if not path.startswith(str(copy))]
    assert referenced and not outside, outside
    assert read(moved) == ["b", "c", "d", "e"] and read(moved, "v1") == ["a", "b", "c"]
    assert [s.snapshot_id for s in table.metadata.snapshots] == [
        s.snapshot_id for s in catalog(lakehouse).load_table("marts.docs").metadata.snapshots
    ]

    # Writing into the copy leaves the original as it was, and a second run has nothing to do.
    table.append(rows(["f"]))
    assert read(moved) == ["b", "c", "d", "e", "f"] and read(lakehouse) == ["b", "c", "d", "e"]
    assert tree(lakehouse.home) == before
    again = CliRunner().invoke(main, ["relocate"])
    assert again.exit_code == 0 and "nothing to relocate" in again.output


def test_damaged_metadata_is_named_and_recovered(lakehouse: Settings) -> None:
    build(lakehouse)
    location = catalog(lakehouse).load_table("marts.docs").metadata_location
    path = Path(location.removeprefix("file://"))
    good = path.read_bytes()
    path.write_bytes(good[:100])
    failed = CliRunner().invoke(main, ["tables"])
    assert failed.exit_code == 1 and f"marts.docs: its metadata file {path} cannot be read" in (
        failed.output
    )
    assert "`lakemix recover-metadata marts.docs`" in failed.output
    verified = CliRunner().invoke(main, ["verify"])  # every table reported, this one broken
    assert verified.exit_code == 1 and "BROKEN  marts.docs" in verified.output, verified.output
    assert "repair: `lakemix recover-metadata marts.docs`" in verified.output
    path.unlink()
    failed = CliRunner().invoke(main, ["sql", "select 1"])
    assert failed.exit_code == 1 and f"its metadata file {path} is missing" in failed.output

    recovered = CliRunner().invoke(main, ["recover-metadata", "marts.docs"])
    assert recovered.exit_code == 0, recovered.output
    assert "1 commit(s) after it dropped" in recovered.output
    assert read(lakehouse) == ["a", "b", "c", "d"]  # the state before the last commit
    again = CliRunner().invoke(main, ["recover-metadata", "marts.docs"])
    assert again.exit_code == 1 and "reads: nothing to recover" in again.output
