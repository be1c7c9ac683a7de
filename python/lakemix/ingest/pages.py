"""Fetched pages into documents: a web archive's records, or HTML files, as raw documents.

A response record with an HTML or plain-text payload becomes a document holding the payload
as fetched (HTML stays HTML: extraction is a model of the pipeline, ``int_pages_extracted``);
other records (requests, metadata, redirects, images) are counted, not stored (``Skipped``).
The payload's bytes are decoded by the charset they are in, which is not always the one they
declare: valid UTF-8 is read as UTF-8 whatever the header says, then the HTTP header's charset,
the page's ``<meta>`` one, and a statistical guess are tried in that order.
"""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO

import orjson

from lakemix.ingest.records import Document, Rejected, excerpt
from lakemix.ingest.webarchive import ArchiveRecord, Placed, read_archive

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain"})
# HTTP headers kept in a page's metadata: what later rules read (opt-outs, language).
KEPT_HEADERS = ("content-language", "x-robots-tag", "last-modified")
# A page whose best decoding still replaces more than this share of its characters is not text.
MAX_REPLACED = 0.01
SNIFF_BYTES = 4096
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE
)
_HTML_START = re.compile(rb"\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)", re.I | re.S)
# WHATWG's encoding standard reads these labels as windows-1252.
_AS_CP1252 = frozenset({"ascii", "us-ascii", "latin1", "latin-1", "iso-8859-1", "iso8859-1"})


@dataclass(frozen=True, slots=True)
class Skipped:
    """A record read but not stored, by kind (``request record``, ``HTTP status 404``...)."""

    offset: int
    reason: str


@dataclass(frozen=True, slots=True)
class Decoded:
    """A payload's text, the charset it was read in, and whether bytes had to be replaced."""

    text: str
    charset: str
    repaired: bool


def _codec(label: str | None) -> str | None:
    """The Python codec of a charset label, or None for an unknown label."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    if label in _AS_CP1252:
        return "cp1252"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def meta_charset(body: bytes) -> str | None:
    """The charset a page names in a ``<meta>`` tag of its first bytes."""
    found = _META_CHARSET.search(body[:SNIFF_BYTES])
    return found.group(1).decode("ascii") if found else None


def decode_payload(body: bytes, declared: str | None) -> Decoded | str:
    """The text of ``body``, or why it is not text (too many bytes no charset reads)."""
    if body.startswith(codecs.BOM_UTF8):
        return Decoded(body[3:].decode("utf-8", "replace"), "utf-8", False)
    if body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Decoded(body.decode("utf-16", "replace"), "utf-16", False)
    if body.isascii():
        return Decoded(body.decode("ascii"), "ascii", False)
    try:  # valid UTF-8 of any length is almost never anything else, whatever is declared
        return Decoded(body.decode("utf-8"), "utf-8", False)
    except UnicodeDecodeError:
        pass
    for label in (declared, meta_charset(body)):
        codec = _codec(label)
        if codec is None or codec == "utf-8":
            continue
        try:
            return Decoded(body.decode(codec), codec, False)
        except (UnicodeDecodeError, LookupError):
            continue
    from charset_normalizer import from_bytes

    best = from_bytes(body[: 256 << 10]).best()
    codec = _codec(best.encoding) if best is not None else None
    if codec is not None:
        return Decoded(body.decode(codec, "replace"), codec, False)
    text = body.decode("utf-8", "replace")
    replaced = text.count("\ufffd")
    if replaced > MAX_REPLACED * max(1, len(text)):
        return f"undecodable: {replaced} of {len(text)} characters are in no known charset"
    return Decoded(text, "utf-8", True)


def _media_type(value: str | None) -> tuple[str | None, str | None]:
    """``text/html; charset=UTF-8`` -> ``("text/html", "UTF-8")``."""
    if not value:
        return None, None
    parts = [p.strip() for p in value.split(";")]
    charset = None
    for p in parts[1:]:
        name, _, v = p.partition("=")
        if name.strip().lower() == "charset":
            charset = v.strip().strip("\"'") or None
    return (parts[0].lower() or None), charset


@dataclass(frozen=True, slots=True)
class _Http:
    status: int
    headers: dict[str, str]
    body: bytes


def parse_http(block: bytes) -> _Http | str:
    """An HTTP response message: status, headers (lower-cased names) and body, or why not."""
    end = block.find(b"\r\n\r\n")
    skip = 4
    if end < 0:
        end, skip = block.find(b"\n\n"), 2
    if end < 0:
        return "HTTP headers without an end"
    lines = block[:end].split(b"\n")
    status_line = lines[0].strip().split(b" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/"):
        return f"not an HTTP response: {lines[0][:80]!r}"
    if not status_line[1].isdigit():
        return f"HTTP status is not a number: {status_line[1][:20]!r}"
    headers: dict[str, str] = {}
    for raw in lines[1:]:
        name, colon, value = raw.decode("latin-1").partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return _Http(int(status_line[1]), headers, block[end + skip :])


def _dechunk(body: bytes) -> bytes | None:
    """A chunked transfer-coded body put together, or None if it is not well formed."""
    out: list[bytes] = []
    pos = 0
    while True:
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            return None
        size_text = body[pos:eol].split(b";")[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            return None
        if size == 0:
            return b"".join(out)
        out.append(body[eol + 2 : eol + 2 + size])
        pos = eol + 2 + size + 2


def _decoded_body(http: _Http, max_bytes: int) -> bytes | str:
    """The body without transfer and content codings, or why it cannot be had."""
    body = http.body
    if "chunked" in http.headers.get("transfer-encoding", "").lower():
        dechunked = _dechunk(body)
        if dechunked is None:
            return "malformed chunked transfer coding"
        body = dechunked
    coding = http.headers.get("content-encoding", "identity").strip().lower()
    if coding in ("gzip", "x-gzip", "deflate"):
        wbits = 16 + zlib.MAX_WBITS if coding != "deflate" else zlib.MAX_WBITS
        try:
            decoder = zlib.decompressobj(wbits=wbits)
            body = decoder.decompress(body, max_bytes + 1)
        except zlib.error as exc:
            return f"content encoding {coding} does not decode: {exc}"
        if len(body) > max_bytes:
            return f"payload longer than {max_bytes} bytes once decoded"
    elif coding not in ("", "identity"):
        return f"content encoding {coding} is not read"
    return body


def _is_html(body: bytes) -> bool:
    return _HTML_START.match(body[:SNIFF_BYTES]) is not None


def _fetched_at(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _strip_brackets(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value[1:-1] if value.startswith("<") and value.endswith(">") else value or None


def page_of(placed: Placed, max_bytes: int) -> Document | Skipped | Rejected:
    """One placed record as a document, or skipped (not a page), or rejected (a broken one)."""
    record: ArchiveRecord = placed.record
    headers = record.headers
    kind = headers.get("warc-type", "").lower() or "untyped"
    block = record.block or b""
    status: int | None = None
    kept: dict[str, str] = {}
    if kind == "response":
        media, _ = _media_type(headers.get("content-type"))
        if record.kind == "warc" and media != "application/http":
            return Skipped(record.offset, f"response record of {media or 'no content type'}")
        if record.kind == "arc" and not headers.get("warc-target-uri", "").startswith("http"):
            return Skipped(record.offset, "ARC record of a non-HTTP URL")
        http = parse_http(block)
        if isinstance(http, str):
            return Rejected(record.offset, None, f"malformed HTTP response: {http}", excerpt(block))
        status = http.status
        if not 200 <= status < 300:
            return Skipped(record.offset, f"HTTP status {status}")
        payload = _decoded_body(http, max_bytes)
        if isinstance(payload, str):
            return Rejected(record.offset, None, payload, excerpt(http.body))
        content_type = http.headers.get("content-type")
        kept = {h: http.headers[h] for h in KEPT_HEADERS if h in http.headers}
    elif kind in ("resource", "conversion"):
        payload = block
        content_type = headers.get("content-type")
    else:
        return Skipped(record.offset, f"{kind} record")
    media, declared = _media_type(content_type)
    if media is None or media not in HTML_TYPES | TEXT_TYPES:
        if media not in (None, "application/octet-stream") or not _is_html(payload):
            return Skipped(record.offset, f"content type {media or 'unknown'}")
        media = "text/html"
    if not payload.strip():
        return Skipped(record.offset, "empty payload")
    decoded = decode_payload(payload, declared)
    if isinstance(decoded, str):
        return Rejected(record.offset, None, decoded, excerpt(payload))
    url = _strip_brackets(headers.get("warc-target-uri"))
    return Document(
        offset=record.offset,
        line_number=None,
        text=decoded.text,
        record_id=_strip_brackets(headers.get("warc-record-id")),
        url=url,
        metadata=orjson.dumps({"http": kept}).decode() if kept else None,
        is_utf8_repaired=decoded.repaired,
        content_type="text/html" if media in HTML_TYPES else media,
        charset=decoded.charset,
        http_status=status,
        fetched_at=_fetched_at(headers.get("warc-date")),
        payload_digest=headers.get("warc-payload-digest") or None,
        record_offset=placed.file_offset if placed.compressed else None,
        record_length=placed.file_length if placed.compressed else None,
    )


def read_warc(raw: BinaryIO, max_bytes: int) -> Iterator[Document | Skipped | Rejected]:
    """The pages of a WARC, WET or ARC file (plain, gzip per record or gzip as a whole)."""
    for item in read_archive(raw, max_bytes):
        yield item if isinstance(item, Rejected) else page_of(item, max_bytes)


def read_html(stream: BinaryIO, max_bytes: int) -> Iterator[Document | Rejected]:
    """An HTML file as one page (its charset told from its bytes and its ``<meta>``)."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        yield Rejected(0, 1, f"document longer than {max_bytes} bytes", excerpt(data))
        return
    decoded = decode_payload(data, None)
    if isinstance(decoded, str):
        yield Rejected(0, 1, decoded, excerpt(data))
        return
    yield Document(
        offset=0,
        line_number=1,
        text=decoded.text,
        is_utf8_repaired=decoded.repaired,
        content_type="text/html",
        charset=decoded.charset,
    )
