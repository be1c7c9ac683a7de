"""``lakemix ingests`` lists ingests; ``lakemix ingest-remove ID`` takes one back out, also
when its files are damaged or an earlier removal was killed half-way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lakemix import catalog
from lakemix.cli import main
from lakemix.iceberg import local_path
from lakemix.ingest import ingest
from lakemix.ingest.drop import drop_files, ingest_files
from lakemix.ingest.history import live_ingests
from lakemix.ingest.ledger import REMOVED_PROPERTY, ingested_files
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


# Damaged files, and a removal killed between its two commits (issue "The gate holds", 5 and 7).


def _ids(settings: Settings) -> tuple[list[str], list[str]]:
    """Every document id and quarantine id of the current snapshots, sorted (doubles kept)."""
    cat = catalog(settings)
    out = []
    for table, key in (("raw.documents", "document_id"), ("raw.quarantine", "quarantine_id")):
        scan = cat.load_table(table).scan(selected_fields=(key,))
        out.append(sorted(scan.to_arrow().column(key).to_pylist()))
    return out[0], out[1]


def _data_files(settings: Settings, table: str) -> list[Path]:
    t = catalog(settings).load_table(table)
    return sorted(Path(local_path(task.file.file_path)) for task in t.scan().plan_files())


def _damage(path: Path, how: str) -> None:
    good = path.read_bytes()
    if how == "lost":
        path.unlink()
    elif how == "truncated":
        path.write_bytes(good[: len(good) // 2])
    else:  # the text column's pages zeroed: same size, footer intact
        chunk = pq.ParquetFile(path).metadata.row_group(0).column(9)
        assert chunk.path_in_schema == "text"
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        size = chunk.total_compressed_size
        path.write_bytes(good[:start] + bytes(size) + good[start + size :])


@pytest.mark.parametrize("how", ["lost", "truncated", "pages"])
def test_a_damaged_ingest_is_removed_and_ingested_again(
    lakehouse: Settings, tmp_path: Path, how: str
) -> None:
    """verify names the damaged file and the commands that repair it; ``ingest-remove`` drops
    the ingest's files without reading them; the source ingested again gives each row once,
    and the other ingest's files are left as they were."""
    first_folder, second_folder = _folder(tmp_path, "first", 5), _folder(tmp_path, "second", 3)
    first = ingest([first_folder], source="one", progress=False)
    ingest([second_folder], source="two", progress=False)
    expected = _ids(lakehouse)
    before = set(_data_files(lakehouse, "raw.documents"))
    damaged = next(p for p in before if first.ingest_id in p.name)
    _damage(damaged, how)

    runner = CliRunner()
    found = runner.invoke(main, ["verify", *(["--deep"] if how == "pages" else [])])
    assert found.exit_code == 1, found.output
    assert str(damaged) in found.output
    source_file = str(first_folder.resolve() / "part.jsonl")
    assert f"repair: `lakemix ingest-remove {first.ingest_id}`" in found.output
    assert f"`lakemix ingest {source_file} --source one`" in found.output

    removed = runner.invoke(main, ["ingest-remove", first.ingest_id])
    assert removed.exit_code == 0, removed.output
    assert f"removed ingest {first.ingest_id}: 5 rows from raw.documents, 1 rows" in removed.output
    assert set(_data_files(lakehouse, "raw.documents")) == before - {damaged}  # untouched
    assert runner.invoke(main, ["verify", "--deep"]).exit_code == 0

    again = runner.invoke(main, ["ingest", source_file, "--source", "one", "--no-progress"])
    assert again.exit_code == 0, again.output
    assert _ids(lakehouse) == expected  # each row exactly once
    assert first.ingest_id not in _rows(lakehouse, "raw.documents")


KILLED_AFTER_FIRST_COMMIT = """
import os, sys
from lakemix.ingest import remove
real = remove.commit_with_retry
commits = []
def commit_then_die(*args, **kwargs):
    if commits:
        os._exit(137)  # killed between the two commits: nothing after this runs
    commits.append(real(*args, **kwargs))
    return commits[-1]
remove.commit_with_retry = commit_then_die
remove.remove_ingest(sys.argv[1])
"""


def test_a_removal_killed_between_its_commits_then_ingested_again(
    lakehouse: Settings, tmp_path: Path
) -> None:
    """Killed after its first commit, the removal leaves the documents, whose files still count
    as ingested; its rerun removes only what that ingest committed; the files ingested again
    give each row once."""
    folder = _folder(tmp_path, "first", 5)
    first = ingest([folder], source="one", progress=False)
    ingest([_folder(tmp_path, "second", 3)], source="two", progress=False)
    expected = _ids(lakehouse)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_FIRST_COMMIT, first.ingest_id],
        env={**os.environ, "LAKEMIX_HOME": str(lakehouse.home)},
        capture_output=True,
        text=True,
    )
    assert killed.returncode == 137, killed.stderr
    documents, quarantined = _ids(lakehouse)
    assert len(documents) == len(expected[0]) and len(quarantined) == len(expected[1]) - 1

    meanwhile = ingest([folder], source="one", progress=False)  # the kill's window: nothing new
    assert meanwhile.files[0].status == "already ingested"
    rerun = CliRunner().invoke(main, ["ingest-remove", first.ingest_id])
    assert rerun.exit_code == 0, rerun.output
    assert f"removed ingest {first.ingest_id}: 5 rows from raw.documents (1 files)" in rerun.output
    again = ingest([folder], source="one", progress=False)
    assert again.files[0].status == "ingested"
    assert _ids(lakehouse) == expected
    assert CliRunner().invoke(main, ["ingest-remove", again.ingest_id]).exit_code == 0
    assert ingest([folder], source="one", progress=False).files[0].status == "ingested"
    assert _ids(lakehouse) == expected


def test_quarantine_rows_another_ingest_took_over_are_not_removed(
    lakehouse: Settings, tmp_path: Path
) -> None:
    """The state the old order (documents first) left when killed between its commits: the
    documents removed, the quarantine rows not. Ingested again, the files' new documents go
    with those quarantine rows; the old removal's rerun refuses to delete them, in one line."""
    folder = _folder(tmp_path, "first", 5)
    first = ingest([folder], source="one", progress=False)
    expected = _ids(lakehouse)
    documents = catalog(lakehouse).load_table("raw.documents")
    snapshot_id, _, _ = live_ingests(documents)[first.ingest_id]
    own = ingest_files(documents, snapshot_id, first.ingest_id).own
    drop_files(documents, own, {REMOVED_PROPERTY: first.ingest_id})  # the old first commit
    again = ingest([folder], source="one", progress=False)
    assert again.files[0].status == "ingested" and again.quarantine_snapshot_id is None

    runner = CliRunner()
    refused = runner.invoke(main, ["ingest-remove", first.ingest_id])
    assert refused.exit_code == 1
    assert refused.output.count("\n") == 1, refused.output
    assert "nothing removed" in refused.output
    assert f"`lakemix ingest-remove {again.ingest_id}` first" in refused.output
    assert _ids(lakehouse) == expected  # the re-ingested rows and their quarantine row survive

    assert runner.invoke(main, ["ingest-remove", again.ingest_id]).exit_code == 0
    assert runner.invoke(main, ["ingest-remove", first.ingest_id]).exit_code == 0
    assert _ids(lakehouse) == ([], [])
    ingest([folder], source="one", progress=False)
    assert _ids(lakehouse) == expected
