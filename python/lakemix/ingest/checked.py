"""An input file opened once and checked: its records count only if they were read from the
bytes its checksum names.

The checksum is needed before the records are read (a file already ingested is skipped, and
records without an id are named after it), so a file still being written could be recorded
under the checksum of what it held before it grew. ``CheckedFile`` hashes the file, then hashes
the bytes again as the reader reads them (a reader that stops early or seeks, as Parquet's does,
has the rest hashed after it), all through the one descriptor it opened; ``verify`` refuses the
file when the two differ or its size or times changed on the way.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from lakemix.errors import LakemixError

CHUNK_BYTES = 1 << 20
BUFFER_BYTES = 1 << 20
CHANGED = "changed while it was being read; ingest it again when it is complete"


class FileChangedError(LakemixError, RuntimeError):
    """The file changed while it was read: nothing read from it may be committed."""


class NotRegularFileError(LakemixError, OSError):
    """What the path names is no longer a regular file (a FIFO would block its reader)."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words: ``"a FIFO (named pipe)"``, ``"a socket"``..."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


@dataclass(frozen=True)
class FileState:
    """What changes when a file is written to, replaced or cut (not when it is read)."""

    device: int
    inode: int
    size: int
    modified_ns: int
    changed_ns: int

    @classmethod
    def of(cls, fd: int) -> FileState:
        """The state of the open file ``fd``."""
        s = os.fstat(fd)
        return cls(s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)


class _HashedReads(io.RawIOBase):
    """The file's bytes as a reader reads them, hashed on the way. After a seek away from the
    bytes hashed so far, the whole file is hashed again by ``digest``. An ``OSError`` of the
    file itself is kept in ``failure`` (the reader may have turned it into a record). Closing it
    leaves the descriptor open, for ``digest``."""

    def __init__(self, file: io.FileIO) -> None:
        super().__init__()
        self._file = file
        self._hash = hashlib.sha256()
        self._hashed = 0  # bytes hashed, in order from the start
        self._in_order = True
        self.failure: OSError | None = None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._file.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        position = self._file.seek(offset, whence)
        self._in_order = self._in_order and position == self._hashed
        return position

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        try:
            n = self._file.readinto(buffer) or 0
        except OSError as exc:
            self.failure = exc
            raise
        if self._in_order:
            self._hash.update(memoryview(buffer)[:n])
            self._hashed += n
        return n

    def digest(self) -> str:
        """SHA-256 of every byte read, and of the bytes the reader left, to the file's end."""
        if not self._in_order:
            self._hash, self._hashed = hashlib.sha256(), 0
        fd = self._file.fileno()
        try:
            while chunk := os.pread(fd, CHUNK_BYTES, self._hashed):
                self._hash.update(chunk)
                self._hashed += len(chunk)
        except OSError as exc:
            self.failure = exc
            raise
        return self._hash.hexdigest()


class CheckedFile:
    """One input file, open for the whole of its ingest.

    Attributes:
        path: The file.
        state: Its size, times and inode when it was opened.
        sha256: Hex SHA-256 of its bytes when it was opened.

    Raises:
        OSError: it cannot be opened or read (``NotRegularFileError``: it is not a regular file).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # O_NONBLOCK: a FIFO put where a file was must not hang the ingest at open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        self._file = io.FileIO(fd, "r", closefd=True)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise NotRegularFileError(f"{file_kind(mode)}, not a regular file")
            os.set_blocking(fd, True)
            self.state = FileState.of(fd)
            self.sha256 = _HashedReads(self._file).digest()
        except BaseException:
            self._file.close()
            raise
        self._reads: _HashedReads | None = None

    def reader(self) -> io.BufferedReader:
        """The file from its start, hashed as it is read; ``verify`` checks what was read."""
        self._file.seek(0)
        self._reads = _HashedReads(self._file)
        return io.BufferedReader(self._reads, BUFFER_BYTES)

    def verify(self) -> None:
        """Check that what ``reader`` read is the file ``sha256`` names.

        Raises:
            OSError: reading the file failed on the way (the file system's error, not its
                content's).
            FileChangedError: its bytes, size or times are not those it was opened with.
        """
        reads = self._reads
        if reads is None:
            raise RuntimeError("verify() before reader()")
        if reads.failure is not None:
            raise reads.failure
        if reads.digest() != self.sha256 or FileState.of(self._file.fileno()) != self.state:
            raise FileChangedError(f"{self.path}: {CHANGED}")

    def close(self) -> None:
        """Close the descriptor."""
        self._file.close()

    def __enter__(self) -> CheckedFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
