"""Readers for the raw formats: each turns one file into documents and rejected records."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import orjson

from lakemix.errors import LakemixError
from lakemix.ingest import mapping as mappings
from lakemix.ingest.mapping import FieldMapping
from lakemix.ingest.pages import Skipped, read_html, read_warc
from lakemix.ingest.records import Document, Rejected, decode_utf8, excerpt
from lakemix.ingest.streams import Line, OpenedFile, iter_lines

FORMATS = ("auto", "jsonl", "parquet", "text", "oscar", "hplt", "warc", "html")
COMPRESSION_SUFFIXES = (".gz", ".zst", ".zstd")
# File name endings (before any compression suffix) that each format reads.
SUFFIXES: dict[str, tuple[str, ...]] = {
    "jsonl": (".jsonl", ".json", ".ndjson"),
    "parquet": (".parquet",),
    "text": (".txt",),
    "oscar": (".txt",),
    "hplt": (".jsonl", ".tsv"),
    # web archives: WARC (and Common Crawl's WET text), ARC; fetched pages
    "warc": (".warc", ".wet", ".arc"),
    "html": (".html", ".htm", ".xhtml"),
}
# Formats whose reader takes the file's own bytes (it handles their compression itself: a
# web archive's gzip members say where each record lies).
READS_FILE = frozenset({"warc"})
DEFAULT_MAX_RECORD_BYTES = 64 << 20

Item = Document | Rejected | Skipped


class UnknownFormatError(LakemixError, ValueError):
    """A format name, or a file whose format cannot be told from its name."""


def _base_suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def detect_format(path: Path, fmt: str) -> str:
    """The concrete format of ``path`` (``fmt`` unless it is ``auto``).

    Raises:
        UnknownFormatError: ``fmt`` is not a known format, or ``auto`` cannot tell.
    """
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    suffix = _base_suffix(path)
    if suffix == ".tsv":
        return "hplt"
    for name in ("jsonl", "parquet", "text", "warc", "html"):
        if suffix in SUFFIXES[name]:
            return name
    raise UnknownFormatError(
        f"cannot tell the format of {path} from its name; pass --format "
        f"({', '.join(f for f in FORMATS if f != 'auto')})"
    )


# Files that document a corpus rather than belong to it (skipped when walking a directory).
DOCUMENTATION = re.compile(
    r"(readme|licen[cs]e|source|notice|copying|changelog)(\.[a-z]+)?", re.IGNORECASE
)


def is_documentation(path: Path) -> bool:
    """README.txt, LICENSE, SOURCE.txt and the like."""
    return DOCUMENTATION.fullmatch(path.name) is not None


def accepts(path: Path, fmt: str) -> bool:
    """Whether a file found while walking a directory belongs to format ``fmt``."""
    if path.name.startswith(".") or is_documentation(path):
        return False
    if fmt == "auto":
        try:
            detect_format(path, fmt)
        except UnknownFormatError:
            return False
        return True
    return _base_suffix(path) in SUFFIXES[fmt]


def _parse_json_line(data: bytes) -> tuple[object, bool] | str:
    """Parse one JSON line: (value, utf8_repaired) or the reason it cannot be parsed."""
    try:
        return orjson.loads(data), False
    except orjson.JSONDecodeError as first:
        text, repaired = decode_utf8(data)
        try:
            # The stdlib parser also accepts lone surrogate escapes that orjson refuses.
            return json.loads(text), repaired
        except (json.JSONDecodeError, RecursionError):
            return f"invalid JSON: {first}"


def _record_lines(opened: OpenedFile, max_bytes: int) -> Iterator[tuple[Line, bytes] | Rejected]:
    """Non-blank lines (with their bytes) of a one-record-a-line file; oversized ones rejected."""
    for line in iter_lines(opened.stream, max_bytes):
        if line.data is None:
            yield Rejected(line.offset, line.number, f"record longer than {max_bytes} bytes")
        elif line.data.strip():
            yield line, line.data


def read_jsonl(opened: OpenedFile, mapping: FieldMapping, max_bytes: int) -> Iterator[Item]:
    """JSON Lines: one object per line; blank lines are skipped."""
    for record in _record_lines(opened, max_bytes):
        if isinstance(record, Rejected):
            yield record
            continue
        line, data = record
        parsed = _parse_json_line(data)
        if isinstance(parsed, str):
            yield Rejected(line.offset, line.number, parsed, excerpt(data))
            continue
        value, repaired = parsed
        item = mapping.document(
            value, offset=line.offset, line_number=line.number, repaired=repaired
        )
        if isinstance(item, Rejected):
            item = dataclasses.replace(item, excerpt=excerpt(data))
        yield item


def read_hplt_tsv(opened: OpenedFile, max_bytes: int) -> Iterator[Item]:
    """HPLT text dumps: ``url<TAB>base64(text)`` per line."""
    for record in _record_lines(opened, max_bytes):
        if isinstance(record, Rejected):
            yield record
            continue
        line, data = record
        url, tab, encoded = data.partition(b"\t")
        if not tab:
            yield Rejected(line.offset, line.number, "no TAB between URL and text", excerpt(data))
            continue
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as exc:
            yield Rejected(
                line.offset, line.number, f"text is not valid base64: {exc}", excerpt(data)
            )
            continue
        text, repaired = decode_utf8(raw)
        url_text, url_repaired = decode_utf8(url)
        yield Document(
            offset=line.offset,
            line_number=line.number,
            text=text,
            url=url_text or None,
            is_utf8_repaired=repaired or url_repaired,
        )


def read_oscar(opened: OpenedFile, max_bytes: int) -> Iterator[Item]:
    """OSCAR 2019 plain text: one paragraph a line, documents separated by a blank line."""
    lines: list[bytes] = []
    size = 0
    start = 0
    first_line = 0
    oversized = False

    def flush() -> Item:
        if oversized:
            return Rejected(start, first_line, f"document longer than {max_bytes} bytes")
        text, repaired = decode_utf8(b"\n".join(lines))
        return Document(offset=start, line_number=first_line, text=text, is_utf8_repaired=repaired)

    for line in iter_lines(opened.stream, max_bytes):
        if line.data is not None and not line.data.strip():
            if lines or oversized:
                yield flush()
            lines, size, oversized = [], 0, False
            continue
        if not lines and not oversized:
            start, first_line = line.offset, line.number
        if line.data is None or size + len(line.data) > max_bytes:
            oversized, lines, size = True, [], 0
            continue
        if not oversized:
            lines.append(line.data)
            size += len(line.data) + 1
    if lines or oversized:
        yield flush()


def read_text(opened: OpenedFile, max_bytes: int) -> Iterator[Item]:
    """Plain text: the whole file is one document."""
    data = opened.stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        yield Rejected(0, 1, f"document longer than {max_bytes} bytes", excerpt(data))
        return
    text, repaired = decode_utf8(data)
    yield Document(offset=0, line_number=1, text=text, is_utf8_repaired=repaired)


def read_parquet(source: Path | BinaryIO, mapping: FieldMapping) -> Iterator[Item]:
    """Parquet: one document a row (``offset`` is the row index), read a row group at a time
    from a path or an open file (read at random)."""
    import pyarrow.parquet as pq

    reader = pq.ParquetFile(source)
    names = set(reader.schema_arrow.names)
    top = {p.split(".")[0] for p in mapping.text}
    if not names & top:
        yield Rejected(
            0,
            None,
            f"no text column (tried {', '.join(mapping.text)}; "
            f"file has {', '.join(sorted(names))})",
        )
        return
    row = 0
    for batch in reader.iter_batches(batch_size=4096):
        for record in batch.to_pylist():
            yield mapping.document(record, offset=row, line_number=None, repaired=False)
            row += 1


def reader_for(
    fmt: str, mapping: FieldMapping | None, max_bytes: int
) -> Callable[[Path, OpenedFile], Iterator[Item]]:
    """A function reading one opened file of concrete format ``fmt``."""
    if fmt == "jsonl":
        m = mapping or mappings.JSONL
        return lambda _path, opened: read_jsonl(opened, m, max_bytes)
    if fmt == "hplt":
        m = mapping or mappings.HPLT

        def hplt(path: Path, opened: OpenedFile) -> Iterator[Item]:
            if _base_suffix(path) == ".tsv":
                return read_hplt_tsv(opened, max_bytes)
            return read_jsonl(opened, m, max_bytes)

        return hplt
    if fmt == "oscar":
        return lambda _path, opened: read_oscar(opened, max_bytes)
    if fmt == "text":
        return lambda _path, opened: read_text(opened, max_bytes)
    if fmt == "parquet":
        m = mapping or mappings.JSONL
        return lambda _path, opened: read_parquet(opened.raw, m)
    if fmt == "warc":
        return lambda _path, opened: read_warc(opened.raw, max_bytes)
    if fmt == "html":
        return lambda _path, opened: read_html(opened.stream, max_bytes)
    raise UnknownFormatError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
