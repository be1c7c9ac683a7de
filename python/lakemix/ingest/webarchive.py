"""Web archives (WARC 1.0 and 1.1, WET, ARC) read record by record, with where each one lies.

Common Crawl compresses every record as a gzip member of its own; a record's place in the file
is then its member (offset and length in compressed bytes), which one range read and one
gunzip give back. A whole-file gzip or an uncompressed archive gives the record's offset and
length in the decompressed stream instead (``Placed.compressed`` says which).

Memory is bounded: a record's block longer than the limit is skipped in pieces and reported,
never loaded; at most two records (the one read and the one before it, held until its place
in the file is known) are in memory.
"""

from __future__ import annotations

import io
import re
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from lakemix.errors import LakemixError
from lakemix.ingest.records import Rejected, excerpt
from lakemix.ingest.streams import (
    BUFFER_BYTES,
    CHUNK_BYTES,
    GZIP_MAGIC,
    TruncatedStreamError,
    open_stream,
)
from lakemix.settings import is_remote

DEFAULT_RECORD_BYTES = 64 << 20
HEADER_LINE_BYTES = 64 << 10
HEADER_LINES = 1_000
_ARC_DATE = re.compile(rb"\d{12,14}")


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """One record: its headers (names lower-cased) and its block (None when over the limit).

    ARC records are given WARC's header names: ``warc-type`` (``response``, or ``warcinfo`` for
    the file's first, ``filedesc://`` record), ``warc-target-uri``, ``warc-date`` (ISO 8601),
    ``content-type`` and ``content-length``.
    """

    offset: int
    headers: dict[str, str]
    block: bytes | None
    length: int
    kind: str  # "warc" or "arc"


@dataclass(frozen=True, slots=True)
class Placed:
    """A record and where it lies in the file: ``file_offset`` and ``file_length`` count bytes
    of the file itself when ``compressed`` (the record's own gzip member), else bytes of the
    decompressed stream."""

    record: ArchiveRecord
    file_offset: int
    file_length: int
    compressed: bool


class _Members(io.RawIOBase):
    """The decompressed bytes of a gzip file of one or more members, and where each starts.

    ``starts`` holds ``(decompressed offset, file offset)`` of the members not yet forgotten;
    a truncated or corrupt member raises ``TruncatedStreamError`` after every byte decoded
    before it was handed out.
    """

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._pending = b""
        self._pos = 0
        self._produced = 0  # decompressed bytes decoded so far
        self._consumed = 0  # file bytes fed to decoders so far
        self._done = False
        self._error: TruncatedStreamError | None = None  # raised once what came before is out
        self.starts: deque[tuple[int, int]] = deque([(0, 0)])
        self.end: int | None = None  # the file offset where the last member ended, at the end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while self._pos >= len(self._pending) and not self._done:
            if self._error is not None:
                self._done = True
                raise self._error
            self._pending, self._pos = self._decode(self._raw.read(CHUNK_BYTES)), 0
        n = min(len(buffer), len(self._pending) - self._pos)
        buffer[:n] = self._pending[self._pos : self._pos + n]
        self._pos += n
        return n

    def _decode(self, chunk: bytes) -> bytes:
        if not chunk:
            self._done = True
            if not self._decoder.eof:
                raise TruncatedStreamError("the last gzip member is cut off before its end")
            self.end = self._consumed
            self.starts.pop()  # the member that would have started at the end
            return b""
        base = self._consumed
        self._consumed += len(chunk)
        out = []
        data = chunk
        while data:
            if self._decoder.eof:  # the previous member ended: the next one starts here
                if not data.startswith(GZIP_MAGIC[: len(data)]):
                    self._error = TruncatedStreamError(
                        f"bytes after the gzip member ending at file offset "
                        f"{self._consumed - len(data)} are not a gzip member"
                    )
                    break
                self._decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            try:
                piece = self._decoder.decompress(data)
            except zlib.error as exc:
                self._error = TruncatedStreamError(f"corrupt gzip member: {exc}")
                break
            out.append(piece)
            self._produced += len(piece)
            data = self._decoder.unused_data if self._decoder.eof else b""
            if self._decoder.eof:
                self.starts.append((self._produced, base + len(chunk) - len(data)))
        return b"".join(out)

    def member_at(self, offset: int) -> int | None:
        """The file offset of the member whose bytes start at decompressed ``offset``, or None
        (no member starts there); members starting before it are forgotten."""
        while self.starts and self.starts[0][0] < offset:
            self.starts.popleft()
        if self.starts and self.starts[0][0] == offset:
            return self.starts[0][1]
        return None


class _Counted:
    """A buffered stream and how many of its bytes were read."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pos = 0

    def readline(self, limit: int) -> bytes:
        line = self.stream.readline(limit)
        self.pos += len(line)
        return line

    def read(self, n: int) -> bytes:
        data = self.stream.read(n)
        self.pos += len(data)
        return data

    def skip(self, n: int) -> int:
        skipped = 0
        while skipped < n:
            piece = self.stream.read(min(BUFFER_BYTES, n - skipped))
            if not piece:
                break
            skipped += len(piece)
        self.pos += skipped
        return skipped


def _arc_header(line: bytes) -> dict[str, str] | None:
    """The fields of an ARC record's header line (version 1 or 2), or None if it is not one."""
    fields = line.strip().split(b" ")
    if len(fields) not in (5, 10) or not fields[-1].isdigit() or b"://" not in fields[0]:
        return None
    date = fields[2]
    if not _ARC_DATE.fullmatch(date):
        return None
    d = date.decode("ascii").ljust(14, "0")
    url = fields[0].decode("utf-8", "replace")
    return {
        "warc-type": "warcinfo" if url.startswith("filedesc://") else "response",
        "warc-target-uri": url,
        "warc-date": f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}Z",
        "content-type": fields[3].decode("ascii", "replace"),
        "content-length": fields[-1].decode("ascii"),
    }


def _warc_headers(stream: _Counted) -> dict[str, str] | str:
    """The named fields after a ``WARC/1.x`` line, or why they cannot be read."""
    headers: dict[str, str] = {}
    name = ""
    for _ in range(HEADER_LINES):
        line = stream.readline(HEADER_LINE_BYTES)
        if not line:
            return "the archive ends inside a record's headers"
        if not line.endswith(b"\n"):
            return f"a header line longer than {HEADER_LINE_BYTES} bytes"
        text = line.rstrip(b"\r\n").decode("utf-8", "replace")
        if not text:
            return headers
        if text[0] in " \t" and name:  # a folded continuation line
            headers[name] += " " + text.strip()
            continue
        key, colon, value = text.partition(":")
        if not colon:
            return f"a header line without a colon: {text[:80]!r}"
        name = key.strip().lower()
        headers[name] = value.strip()
    return f"more than {HEADER_LINES} header lines"


def _is_header(line: bytes) -> bool:
    return line.startswith(b"WARC/") or _arc_header(line) is not None


def iter_records(counted: _Counted, max_bytes: int) -> Iterator[ArchiveRecord | Rejected]:
    """The records of a decompressed archive stream; a record that cannot be read becomes a
    ``Rejected`` and reading goes on at the next record header."""
    while True:
        start = counted.pos
        line = counted.readline(HEADER_LINE_BYTES)
        if not line:
            return
        if not line.strip():
            continue
        kind = "warc" if line.startswith(b"WARC/") else "arc"
        headers: dict[str, str] | str | None = (
            _warc_headers(counted) if kind == "warc" else _arc_header(line)
        )
        if headers is None:
            yield from _resync(counted, start, line)
            continue
        if isinstance(headers, str):
            yield Rejected(start, None, f"malformed WARC record: {headers}", excerpt(line))
            continue
        raw_length = headers.get("content-length", "")
        if not raw_length.isdigit():
            reason = f"malformed {kind.upper()} record: Content-Length {raw_length or 'missing'}"
            yield Rejected(start, None, reason, excerpt(line))
            continue
        length = int(raw_length)
        if length > max_bytes:
            got = counted.skip(length)
            if got < length:
                yield Rejected(start, None, f"record truncated: {got} of {length} bytes")
                return
            yield Rejected(start, None, f"record longer than {max_bytes} bytes")
            continue
        block = counted.read(length)
        if len(block) < length:
            reason = f"record truncated: {len(block)} of {length} bytes"
            yield Rejected(start, None, reason, excerpt(block))
            return
        yield ArchiveRecord(offset=start, headers=headers, block=block, length=length, kind=kind)


def _resync(counted: _Counted, start: int, line: bytes) -> Iterator[Rejected]:
    """Skip what is not a record header, as one rejected stretch, up to the next header line."""
    first = line
    skipped = len(line)
    while True:
        peek = counted.stream.peek(HEADER_LINE_BYTES)  # type: ignore[attr-defined]
        head = peek.split(b"\n", 1)[0]
        if not peek or _is_header(head):
            break
        skipped += len(counted.readline(HEADER_LINE_BYTES))
    yield Rejected(
        start, None, f"not a WARC or ARC record ({skipped} bytes skipped)", excerpt(first)
    )


def read_archive(raw: BinaryIO, max_bytes: int) -> Iterator[Placed | Rejected]:
    """Every record of an archive file opened at its start (buffered: it has ``peek``), placed
    in the file; ``raw`` may be gzip (one member per record, or one for the file) or plain."""
    compressed = raw.peek(2)[:2] == GZIP_MAGIC  # type: ignore[attr-defined]
    members = _Members(raw) if compressed else None
    stream: BinaryIO = io.BufferedReader(members, BUFFER_BYTES) if members else raw
    counted = _Counted(stream)
    held: ArchiveRecord | None = None

    def place(record: ArchiveRecord, end: int) -> Placed:
        if members is None:
            return Placed(record, record.offset, end - record.offset, compressed=False)
        first = members.member_at(record.offset)
        last = members.member_at(end) if end != -1 else members.end
        if first is None or last is None:
            return Placed(record, record.offset, record.length, compressed=False)
        return Placed(record, first, last - first, compressed=True)

    try:
        for item in iter_records(counted, max_bytes):
            if held is not None:
                yield place(held, item.offset)
                held = None
            if isinstance(item, Rejected):
                yield item
            else:
                held = item
        if held is not None:
            yield place(held, -1 if members is not None else counted.pos)
    except TruncatedStreamError as exc:
        # the record being read lies in the member that broke: the last one that started
        cut = members.starts[-1][0] if members is not None and members.starts else counted.pos
        if held is not None and held.offset < cut:
            yield place(held, cut)
        # else the held record's own member broke after its block (no gzip trailer): it goes
        # to quarantine with the rest of that member
        yield Rejected(cut, None, f"record unreadable: {exc}")


class RecordNotFoundError(LakemixError):
    """The archive no longer holds a readable record where the lakehouse says one lies."""


class _NativeReader(io.RawIOBase):
    """A file-like of pyarrow's (an object store's object) as a raw stream for buffering."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._native.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._native.close()
        super().close()


def _open(location: str) -> BinaryIO:
    """The file at ``location`` from its start, buffered."""
    if is_remote(location):
        from lakemix.ingest.remote import open_remote

        return io.BufferedReader(_NativeReader(open_remote(location)), BUFFER_BYTES)
    return Path(location).open("rb", buffering=BUFFER_BYTES)


def _range(location: str, offset: int, length: int) -> bytes:
    """``length`` bytes of the file at ``location`` from ``offset`` (one ranged read)."""
    if is_remote(location):
        from lakemix.ingest.remote import open_remote

        native = open_remote(location)
        try:
            native.seek(offset)
            return bytes(native.read(length))
        finally:
            native.close()
    with Path(location).open("rb") as f:
        f.seek(offset)
        return f.read(length)


def record_at(
    location: str, *, offset: int, record_offset: int | None, record_length: int | None
) -> ArchiveRecord:
    """The record of an archive (a local path or an ``s3://`` object) that a document was read
    from, as fetched: one range read and one gunzip where the record has its own gzip member,
    else read from the decompressed stream at ``offset``.

    Raises:
        RecordNotFoundError: the file is gone, changed, or holds no record there.
    """
    try:
        if record_offset is not None and record_length is not None:
            decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            data = decoder.decompress(_range(location, record_offset, record_length))
            if not decoder.eof:
                raise RecordNotFoundError(f"{location}: no whole gzip member at {record_offset}")
            found = next(iter_records(_Counted(io.BytesIO(data)), DEFAULT_RECORD_BYTES), None)
        else:
            with _open(location) as f:
                stream = open_stream(f).stream
                skipped = _Counted(stream).skip(offset)
                if skipped < offset:
                    raise RecordNotFoundError(f"{location} ends before offset {offset}")
                found = next(iter_records(_Counted(stream), DEFAULT_RECORD_BYTES), None)
    except (OSError, zlib.error, TruncatedStreamError) as exc:
        raise RecordNotFoundError(f"{location}: {exc}") from None
    if not isinstance(found, ArchiveRecord):
        reason = found.reason if isinstance(found, Rejected) else "nothing there"
        raise RecordNotFoundError(f"{location}: no record at offset {offset} ({reason})")
    return found
