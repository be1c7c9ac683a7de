"""``lakemix ingests`` lists ingests; ``lakemix ingest-remove ID`` takes one back out."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from lakemix import catalog
from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.ingest.ledger import ingested_files
from lakemix.settings import Settings


def _folder(root: Path, name: str, lines: int) -> Path:
    folder = root / name
    folder.mkdir()
    rows = [orjson.dumps({"id": f"{name}-{i}", "text": f"{name} text {i}"}) for i in range(lines)]
    (folder / "part.jsonl").write_bytes(b"\n".join([*rows, b"{not json"]) + b"\n")
    return folder


def _rows(settings: Settings, table: str, snapshot_id: int | None = None) -> list[str]:
    t = catalog(settings).load_table(table)
    scan = t.scan(snapshot_id=snapshot_id, selected_fields=("ingest_id",))
    return scan.to_arrow().column("ingest_id").to_pylist()


def test_remove_one_ingest_and_its_ledger_leaving_tags(lakehouse: Settings, tmp_path: Path) -> None:
    first = ingest([_folder(tmp_path, "first", 5)], source="one", progress=False)
    second = ingest([_folder(tmp_path, "second", 3)], source="two", progress=False)
    cat = catalog(lakehouse)
    pinned = {}
    for name in ("raw.documents", "raw.quarantine"):  # what a release's tag does
        table = cat.load_table(name)
        pinned[name] = table.metadata.current_snapshot_id
        table.manage_snapshots().create_tag(pinned[name], "v1").commit()

    runner = CliRunner()
    listed = runner.invoke(main, ["ingests"])
    assert listed.exit_code == 0, listed.output
    lines = {line.split()[0]: line.split() for line in listed.output.splitlines()[2:]}
    assert lines[first.ingest_id][-4:] == ["one", "1", "5", "1"]  # source files docs quarantined
    assert lines[second.ingest_id][-4:] == ["two", "1", "3", "1"]

    removed = runner.invoke(main, ["ingest-remove", first.ingest_id[:8]])  # a prefix will do
    assert removed.exit_code == 0, removed.output
    assert f"removed ingest {first.ingest_id}: 5 rows from raw.documents, 1 rows" in removed.output
    assert _rows(lakehouse, "raw.documents") == [second.ingest_id] * 3
    assert _rows(lakehouse, "raw.quarantine") == [second.ingest_id]
    assert first.files[0].sha256 not in ingested_files(cat.load_table("raw.documents"))
    assert first.files[0].sha256 not in ingested_files(cat.load_table("raw.quarantine"))
    after = runner.invoke(main, ["ingests"]).output
    assert first.ingest_id not in after and second.ingest_id in after
    # The release's tags still read the removed rows.
    assert _rows(lakehouse, "raw.documents", pinned["raw.documents"]).count(first.ingest_id) == 5
    assert _rows(lakehouse, "raw.quarantine", pinned["raw.quarantine"]).count(first.ingest_id) == 1

    for unknown in (first.ingest_id, "0123456789abcdef"):  # removed already; never ingested
        refused = runner.invoke(main, ["ingest-remove", unknown])
        assert refused.exit_code == 1
        assert refused.output.count("\n") == 1, refused.output
        assert f"no ingest {unknown!r}" in refused.output and "lakemix ingests" in refused.output

    again = ingest([tmp_path / "first"], source="one", progress=False)  # no longer "already in"
    assert again.files[0].status == "ingested"
    assert sorted(set(_rows(lakehouse, "raw.documents"))) == sorted(
        {again.ingest_id, second.ingest_id}
    )
