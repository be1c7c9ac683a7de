"""A file's checksum is of the bytes its records were read from: a change on the way is caught."""

from __future__ import annotations

import errno
import hashlib
import io
import os
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakemix.ingest.checked import CHANGED, CheckedFile, FileChangedError, NotRegularFileError

LINES = b"".join(b'{"text": "line %d"}\n' % n for n in range(10_000))


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "part.jsonl"
    path.write_bytes(LINES)
    return path


def test_the_checksum_is_of_the_file_and_a_full_read_verifies(jsonl: Path) -> None:
    with CheckedFile(jsonl) as checked:
        assert checked.sha256 == hashlib.sha256(LINES).hexdigest()
        assert checked.reader().read() == LINES
        checked.verify()


def test_a_reader_that_stops_early_has_the_rest_checked(jsonl: Path) -> None:
    with CheckedFile(jsonl) as checked:
        assert checked.reader().read(10) == LINES[:10]
        checked.verify()
    with CheckedFile(jsonl) as checked:
        checked.reader().read(10)
        with jsonl.open("r+b") as f:  # the part not read changes: the file is not the same
            f.seek(len(LINES) - 5)
            f.write(b"XXXX\n")
        with pytest.raises(FileChangedError, match=CHANGED):
            checked.verify()


def test_a_file_that_grows_while_it_is_read_is_refused(jsonl: Path) -> None:
    with CheckedFile(jsonl) as checked:
        reader = checked.reader()
        reader.read(100)
        with jsonl.open("ab") as f:  # the writer is not done
            f.write(b'{"text": "one more"}\n')
        assert reader.read().endswith(b'one more"}\n')
        with pytest.raises(FileChangedError, match="ingest it again when it is complete"):
            checked.verify()


def test_a_same_size_rewrite_in_place_is_refused(jsonl: Path) -> None:
    with CheckedFile(jsonl) as checked:
        reader = checked.reader()
        with jsonl.open("r+b") as f:
            f.write(LINES[:20].upper())
        reader.read()
        with pytest.raises(FileChangedError):
            checked.verify()


def test_a_seeking_reader_parquet_is_hashed_again(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"text": [f"row {n}" for n in range(1000)]}), path)
    with CheckedFile(path) as checked:
        rows = pq.ParquetFile(checked.reader()).read().num_rows
        assert rows == 1000
        checked.verify()
    with CheckedFile(path) as checked:
        pq.ParquetFile(checked.reader()).read()
        data = path.read_bytes()
        path.write_bytes(data[:8] + bytes([data[8] ^ 1]) + data[9:])  # same size, one bit
        with pytest.raises(FileChangedError):
            checked.verify()


class _FailingAfter(io.FileIO):
    """The file, until ``limit`` bytes were read: then the disk fails (EIO)."""

    limit = 100

    def readinto(self, buffer: Any) -> int:
        if self.tell() >= self.limit:
            raise OSError(errno.EIO, "Input/output error")
        return super().readinto(memoryview(buffer)[: self.limit - self.tell()])


def test_a_read_failure_is_kept_and_raised_by_verify(
    jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lakemix.ingest.checked.io.FileIO", _FailingAfter)
    with CheckedFile(jsonl) as checked:  # the checksum's reads (pread) work
        reader = checked.reader()
        assert reader.read(100) == LINES[:100]
        with pytest.raises(OSError, match="Input/output error"):
            reader.read()
        # a record reader turns the error into a quarantine row; verify says it was the disk
        with pytest.raises(OSError, match="Input/output error"):
            checked.verify()


def test_a_file_the_kernel_cannot_read_fails_at_open() -> None:
    with pytest.raises(OSError):  # regular, and EIO at offset 0
        CheckedFile(Path("/proc/self/mem"))


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = threading.Event()

    def open_it() -> None:
        with pytest.raises(NotRegularFileError, match="a FIFO"):
            CheckedFile(fifo)
        done.set()

    thread = threading.Thread(target=open_it, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert done.is_set(), "opening a FIFO blocked"
