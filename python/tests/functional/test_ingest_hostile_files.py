"""Files that change, cannot be read or are not files, and two homes on one catalog: every row
is committed exactly once, and the summary says what this command committed, never more.

The reproductions of items 8, 10 and 13 of the issue "The gate holds".
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from lakemix import catalog
from lakemix.cli import main
from lakemix.ingest import ingest, run
from lakemix.ingest.checked import CHANGED
from lakemix.settings import Settings
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE
from tests.conftest import BIN
from tests.functional.test_ingest import scan


def _lines(first: int, last: int, prefix: str = "row") -> bytes:
    """Records without an id: their document ids come from the file's checksum."""
    return b"".join(orjson.dumps({"text": f"{prefix} {n}"}) + b"\n" for n in range(first, last))


def _rows(settings: Settings) -> tuple[int, int]:
    """(rows, distinct texts) of raw.documents."""
    [(rows, texts)] = scan(settings, RAW_DOCUMENTS, "select count(*), count(distinct text) from t")
    return int(str(rows)), int(str(texts))


def test_a_file_written_while_it_is_read_commits_nothing_then_once(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    growing, steady = tmp_path / "growing.jsonl", tmp_path / "steady.jsonl"
    growing.write_bytes(_lines(0, 600))
    steady.write_bytes(_lines(0, 50, "steady"))
    opened = run.open_stream
    appended: list[bool] = []

    def writer_not_done(raw: Any) -> Any:  # the writer appends once the checksum is taken
        stream = opened(raw)
        if not appended:
            appended.append(True)
            with growing.open("ab") as f:
                f.write(_lines(600, 1000))
        return stream

    with monkeypatch.context() as patch:
        patch.setattr(run, "open_stream", writer_not_done)
        result = ingest([growing, steady], source="growing", progress=False)
    by_name = {Path(f.path).name: f for f in result.files}
    assert by_name["growing.jsonl"].status == "not read"
    assert by_name["growing.jsonl"].note == CHANGED
    assert by_name["growing.jsonl"].documents == by_name["growing.jsonl"].read == 0
    assert by_name["steady.jsonl"].documents == 50
    assert _rows(lakehouse) == (50, 50)  # nothing of the growing file
    assert not list(lakehouse.home.rglob(f"ingest-{result.ingest_id}-00000-*"))  # none left

    # the file is complete now
    again = ingest([growing, steady], source="growing", progress=False)
    assert again.total("documents") == 1000
    assert _rows(lakehouse) == (1050, 1050)  # each row exactly once


def _without_read_permission(cmd: list[str]) -> list[str]:
    """``cmd`` run as a user that file permissions bind: as root, without the capabilities
    that let root read everything (the files stay root's, so the lakehouse stays writable)."""
    if os.geteuid() != 0:
        return cmd
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", *cmd]


def test_unreadable_files_and_folders_are_not_read_and_the_rest_is_ingested(
    lakehouse: Settings, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "locked").mkdir(parents=True)
    (corpus / "good.jsonl").write_bytes(_lines(0, 30, "good"))
    (corpus / "secret.jsonl").write_bytes(_lines(0, 20, "secret"))
    (corpus / "locked" / "inner.jsonl").write_bytes(_lines(0, 10, "inner"))
    os.mkfifo(corpus / "pipe.jsonl")
    (corpus / "loop_a.jsonl").symlink_to(corpus / "loop_b.jsonl")
    (corpus / "loop_b.jsonl").symlink_to(corpus / "loop_a.jsonl")
    (corpus / "secret.jsonl").chmod(0)
    (corpus / "locked").chmod(0)
    command = [str(BIN / "lakemix"), "ingest", str(corpus), "--source", "locks", "--no-progress"]
    try:
        out = subprocess.run(
            _without_read_permission(command), capture_output=True, text=True, timeout=300
        )
    finally:
        (corpus / "secret.jsonl").chmod(0o644)
        (corpus / "locked").chmod(0o755)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr + out.stdout
    lines = {Path(line.split()[0]).name: line for line in out.stdout.splitlines() if "/" in line}
    assert "ingested" in lines["good.jsonl"]
    for name, reason in {
        "secret.jsonl": "cannot be read: Permission denied",
        "locked": "folder not listed: Permission denied",
        "pipe.jsonl": "a FIFO (named pipe), not a regular file",
        "loop_a.jsonl": "a symlink loop",
        "loop_b.jsonl": "a symlink loop",
    }.items():
        assert "not read" in lines[name] and reason in lines[name], lines[name]
    assert "30 ingested" in out.stdout
    assert _rows(lakehouse) == (30, 30)

    # readable now: what was not read is ingested, once; the rest is already in
    again = ingest([corpus], source="locks", progress=False)
    assert again.total("documents") == 30 and again.skipped == 1
    assert _rows(lakehouse) == (60, 60)


def test_a_disk_error_midway_commits_nothing_of_that_file(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad, good = tmp_path / "bad.jsonl.gz", tmp_path / "good.jsonl"
    import gzip

    bad.write_bytes(gzip.compress(_lines(0, 5_000), compresslevel=1))
    good.write_bytes(_lines(0, 10, "good"))
    real_open = os.open
    failing: set[int] = set()

    def opening(path: Any, flags: int, *args: Any) -> int:
        fd = real_open(path, flags, *args)
        if Path(path).name == bad.name:
            failing.add(fd)
        return fd

    real_readinto = run.CheckedFile.reader

    def reader(self: Any) -> Any:  # the disk fails after the first 4 KiB of bad.jsonl.gz
        stream = real_readinto(self)
        if self._file.fileno() in failing:
            raw = stream.raw
            inner = raw._file

            class Failing:
                def __getattr__(self, name: str) -> Any:
                    return getattr(inner, name)

                def readinto(self, buffer: Any) -> int:
                    if inner.tell() >= 4096:
                        raise OSError(errno.EIO, "Input/output error")
                    return int(inner.readinto(memoryview(buffer)[: 4096 - inner.tell()]))

            raw._file = Failing()
        return stream

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", opening)
        patch.setattr(run.CheckedFile, "reader", reader)
        result = ingest([bad, good], source="eio", progress=False)
    by_name = {Path(f.path).name: f for f in result.files}
    assert by_name["bad.jsonl.gz"].status == "not read"
    assert "read failed: Input/output error" in by_name["bad.jsonl.gz"].note
    assert _rows(lakehouse) == (10, 10)
    assert scan(lakehouse, RAW_QUARANTINE) == [(0,)]  # no row for a disk's failure

    assert ingest([bad, good], source="eio", progress=False).total("documents") == 5_000
    assert _rows(lakehouse) == (5_010, 5_010)


@pytest.fixture
def shared(any_lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A second lakehouse home on the catalog and warehouse of ``any_lakehouse`` (set for
    both, as two machines sharing a PostgreSQL catalog or a SQLite file would)."""
    shared = {
        "LAKEMIX_CATALOG_URI": any_lakehouse.catalog_uri,
        "LAKEMIX_WAREHOUSE": any_lakehouse.warehouse,
    }
    for name, value in shared.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env({"LAKEMIX_HOME": str(tmp_path / "other-home"), **shared})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three files of 1,000 records; the first two also hold a broken record each."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(3):
        broken = b'{"text": \n' if n < 2 else b""
        (corpus / f"part-{n}.jsonl").write_bytes(_lines(n * 1000, n * 1000 + 1000) + broken)
    return corpus


def test_the_home_that_loses_the_race_says_it_committed_nothing(
    any_lakehouse: Settings, shared: Settings, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other: list[Any] = []
    real = run._Run.read_file

    def racing(self: Any, *args: Any) -> Any:
        if not other:  # the other home ingests the folder while this one reads it
            other.append(None)
            other[0] = ingest([folder], source="race", settings=shared, progress=False)
        return real(self, *args)

    monkeypatch.setattr(run._Run, "read_file", racing)
    out = CliRunner().invoke(main, ["ingest", str(folder), "--source", "race", "--no-progress"])
    assert out.exit_code == 0, out.output
    assert other[0].total("documents") == 3_000 and other[0].total("quarantined") == 2
    assert "0 ingested, 0 quarantined, 3 files skipped" in out.output
    assert "3,000 ingested" not in out.output
    assert out.output.count("ingested by a concurrent ingest while this one read it") == 3
    assert _rows(any_lakehouse) == (3_000, 3_000)
    assert scan(any_lakehouse, RAW_QUARANTINE) == [(2,)]


def test_when_each_home_wins_one_table_each_counts_its_own(
    any_lakehouse: Settings, shared: Settings, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other: list[Any] = []
    real = run._commit

    def racing(cat: Any, identifier: str, *args: Any) -> Any:
        if identifier == RAW_DOCUMENTS and not other:  # between this home's two commits
            other.append(None)
            other[0] = ingest([folder], source="race", settings=shared, progress=False)
        return real(cat, identifier, *args)

    monkeypatch.setattr(run, "_commit", racing)
    mine = ingest([folder], source="race", progress=False)
    theirs = other[0]
    assert (mine.total("documents"), mine.total("quarantined")) == (0, 2)
    assert (theirs.total("documents"), theirs.total("quarantined")) == (3_000, 0)
    assert _rows(any_lakehouse) == (3_000, 3_000)
    assert scan(any_lakehouse, RAW_QUARANTINE) == [(2,)]
    assert mine.documents_snapshot_id is None and theirs.quarantine_snapshot_id is None
    table = catalog(any_lakehouse).load_table(RAW_DOCUMENTS)
    assert len(table.snapshots()) == 1


def test_an_unreadable_file_in_process_is_not_read(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open call refused, as for a file without read permission (tests run as root)."""
    (tmp_path / "a.jsonl").write_bytes(_lines(0, 3))
    (tmp_path / "b.jsonl").write_bytes(_lines(3, 6))
    real_open = os.open

    def opening(path: Any, flags: int, *args: Any) -> int:
        if Path(path).name == "b.jsonl":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", opening)
    result = ingest([tmp_path], source="perm", fmt="jsonl", progress=False)
    [b] = [f for f in result.files if f.path.endswith("b.jsonl")]
    assert (b.status, b.note) == ("not read", "cannot be read: Permission denied")
    assert result.total("documents") == 3
