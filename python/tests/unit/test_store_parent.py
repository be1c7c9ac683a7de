"""An incremental model's rows are appended only onto the snapshot they were computed against."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakemix import catalog
from lakemix.dbt.store import StoreError, StoreRequest, store
from lakemix.iceberg.commit import replays
from lakemix.settings import Settings


def _staged(folder: Path, ids: list[str]) -> str:
    folder.mkdir(parents=True)
    pq.write_table(pa.table({"document_id": ids}), folder / "part-0.parquet")
    return str(folder)


def test_an_append_onto_a_snapshot_another_build_moved_is_refused(
    lakehouse: Settings, tmp_path: Path
) -> None:
    cat = catalog(lakehouse)
    first = StoreRequest("marts.fct_x", _staged(tmp_path / "a", ["1", "2"]), "append", {})
    store(cat, first)
    table = cat.load_table("marts.fct_x")
    assert not replays(table)  # pyiceberg would replay a lost append: switched off
    parent = table.metadata.current_snapshot_id
    # A concurrent build appends the same new rows first...
    store(cat, StoreRequest("marts.fct_x", _staged(tmp_path / "b", ["3"]), "append", {}))
    late = StoreRequest("marts.fct_x", _staged(tmp_path / "c", ["3"]), "append", {}, parent=parent)
    # ...so this run, computed against the older snapshot, must not append them again.
    with pytest.raises(StoreError, match=r"marts\.fct_x: another build committed"):
        store(cat, late)
    rows = cat.load_table("marts.fct_x").scan().to_arrow().column("document_id").to_pylist()
    assert sorted(rows) == ["1", "2", "3"]
    # On the snapshot it was computed against, the same append goes through.
    now = cat.load_table("marts.fct_x").metadata.current_snapshot_id
    store(
        cat, StoreRequest("marts.fct_x", _staged(tmp_path / "d", ["4"]), "append", {}, parent=now)
    )
    assert len(cat.load_table("marts.fct_x").scan().to_arrow()) == 4
