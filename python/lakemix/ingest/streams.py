"""Open raw files as decompressed byte streams and read them in bounded pieces."""

from __future__ import annotations

import codecs
import io
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from lakemix.errors import LakemixError

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BUFFER_BYTES = 1 << 20
CHUNK_BYTES = 64 << 10  # compressed bytes decoded at a time


class TruncatedStreamError(LakemixError):
    """A compressed stream ended before its end-of-stream marker."""


def compression_of(path: Path) -> str | None:
    """``"gzip"``, ``"zstd"`` or None, decided by the file's first bytes, not its name."""
    with path.open("rb") as f:
        return _compression(f.read(4))


def _compression(head: bytes) -> str | None:
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    return None


class _Decoder(Protocol):
    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes) -> bytes: ...


class _ConvertedStream(io.RawIOBase):
    """A readable stream whose bytes come from converting another stream chunk by chunk;
    subclasses say how in ``_convert`` (``final`` marks the end of the input)."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._pending = b""
        self._pos = 0
        self._eof = False

    def readable(self) -> bool:
        return True

    def _convert(self, chunk: bytes, *, final: bool) -> bytes:
        raise NotImplementedError

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while self._pos >= len(self._pending) and not self._eof:
            chunk = self._source.read(CHUNK_BYTES)
            self._eof = not chunk
            self._pending, self._pos = self._convert(chunk, final=self._eof), 0
        n = min(len(buffer), len(self._pending) - self._pos)
        buffer[:n] = self._pending[self._pos : self._pos + n]
        self._pos += n
        return n


class _DecodedStream(_ConvertedStream):
    """Decompress gzip or zstd (several members or frames in a row) and hand out every byte
    decoded before a cut-off or corruption, then raise ``TruncatedStreamError``."""

    def __init__(self, raw: BinaryIO, new_decoder: Callable[[], _Decoder], kind: str) -> None:
        super().__init__(raw)
        self._new = new_decoder
        self._kind = kind
        self._decoder = new_decoder()
        self._started = False
        self._error: TruncatedStreamError | None = None  # raised once what came before is out

    def _convert(self, chunk: bytes, *, final: bool) -> bytes:
        if self._error is not None:
            raise self._error
        if final:
            if self._started and not self._decoder.eof:
                raise TruncatedStreamError(f"{self._kind} stream ends before its end marker")
            return b""
        self._started = True
        out = []
        try:
            while chunk:
                if self._decoder.eof:  # the previous member ended: the next one starts here
                    self._decoder = self._new()
                out.append(self._decoder.decompress(chunk))
                chunk = self._decoder.unused_data if self._decoder.eof else b""
        except Exception as exc:  # zlib.error, zstandard.ZstdError
            # the members before the corrupt one in this chunk are handed out first
            self._error = TruncatedStreamError(f"corrupt {self._kind} stream: {exc}")
            if not out:
                raise self._error from None
        return b"".join(out)


def _gzip_decoder() -> _Decoder:
    return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)


def _zstd_decoder() -> _Decoder:
    import zstandard

    return zstandard.ZstdDecompressor().decompressobj()


@dataclass
class OpenedFile:
    """A raw file and the decompressed stream read from it."""

    raw: BinaryIO
    stream: BinaryIO

    def raw_position(self) -> int:
        """Bytes of the file on disk consumed so far (for progress)."""
        return self.raw.tell()

    def close(self) -> None:
        self.stream.close()
        self.raw.close()


class _TranscodedStream(_ConvertedStream):
    """UTF-16 text re-encoded as UTF-8 on the fly (undecodable units become U+FFFD)."""

    def __init__(self, source: BinaryIO, encoding: str) -> None:
        super().__init__(source)
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")

    def _convert(self, chunk: bytes, *, final: bool) -> bytes:
        return self._decoder.decode(chunk, final=final).encode("utf-8")


def utf16_encoding(head: bytes) -> str | None:
    """``utf-16`` (with a byte-order mark), ``utf-16-le``/``-be`` (ASCII-led text without one)
    or None for anything else: UTF-8 and binary formats pass through untouched."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if len(head) >= 4 and head[1] == head[3] == 0 and 0 < head[0] < 128 and 0 < head[2] < 128:
        return "utf-16-le"
    if len(head) >= 4 and head[0] == head[2] == 0 and 0 < head[1] < 128 and 0 < head[3] < 128:
        return "utf-16-be"
    return None


def open_file(path: Path) -> OpenedFile:
    """Open ``path`` for reading, decompressing gzip or zstd and transcoding UTF-16 to UTF-8.

    Offsets in a transcoded file count bytes of its UTF-8 form.
    """
    return open_stream(path.open("rb", buffering=BUFFER_BYTES))


def open_stream(raw: BinaryIO) -> OpenedFile:
    """``open_file`` on a file already open (at its start, buffered: it has ``peek``):
    compression and encoding are told from its first bytes, read through ``raw`` itself.
    Closing the result closes ``raw``."""
    try:
        kind = _compression(raw.peek(4)[:4])  # type: ignore[attr-defined]
        stream: BinaryIO = raw
        if kind is not None:
            decoder = _gzip_decoder if kind == "gzip" else _zstd_decoder
            stream = io.BufferedReader(_DecodedStream(raw, decoder, kind), BUFFER_BYTES)
        encoding = utf16_encoding(stream.peek(4)[:4])  # type: ignore[attr-defined]
    except BaseException:
        raw.close()
        raise
    if encoding is not None:
        stream = io.BufferedReader(_TranscodedStream(stream, encoding), BUFFER_BYTES)
    return OpenedFile(raw=raw, stream=stream)


def read_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean the stream itself is broken (not one record)."""
    return (TruncatedStreamError, EOFError, zlib.error, OSError)


@dataclass(frozen=True)
class Line:
    """One line of a stream: where it starts, its number (1-based) and its bytes.

    ``data`` is None when the line is longer than the limit; its bytes were skipped, not kept.
    """

    offset: int
    number: int
    data: bytes | None


def iter_lines(stream: BinaryIO, max_bytes: int) -> Iterator[Line]:
    """Yield the lines of ``stream`` without their line break, never holding more than
    ``max_bytes`` of one line in memory."""
    offset = 0
    number = 0
    while True:
        chunk = stream.readline(max_bytes + 1)
        if not chunk:
            return
        number += 1
        start = offset
        offset += len(chunk)
        if len(chunk) > max_bytes and not chunk.endswith(b"\n"):
            while True:  # skip the rest of an oversized line
                rest = stream.readline(BUFFER_BYTES)
                offset += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield Line(start, number, None)
            continue
        if chunk.endswith(b"\n"):
            chunk = chunk[:-1]
            if chunk.endswith(b"\r"):
                chunk = chunk[:-1]
        yield Line(start, number, chunk)
