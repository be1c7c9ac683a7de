"""What a reader yields: a document, or a record that could not be read and why."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Document:
    """One document read from a raw file.

    ``offset`` is the byte offset of the record in the decompressed stream (the row index for
    Parquet); ``record_id`` is the record's own id, when the format has one. A fetched page
    (a web archive's record, an HTML file) also says what it is (``content_type``: ``text/html``
    or ``text/plain``), the charset its bytes were read in, and what its archive says of it:
    HTTP status, when it was fetched, the payload's digest, and where the record lies in the
    file (its gzip member's offset and length, when it has one of its own).
    """

    offset: int
    line_number: int | None
    text: str
    record_id: str | None = None
    url: str | None = None
    metadata: str | None = None
    is_utf8_repaired: bool = False
    content_type: str | None = None
    charset: str | None = None
    http_status: int | None = None
    fetched_at: datetime | None = None
    payload_digest: str | None = None
    record_offset: int | None = None
    record_length: int | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    """A record that cannot become a document: it goes to ``raw.quarantine`` with ``reason``."""

    offset: int
    line_number: int | None
    reason: str
    excerpt: str | None = None


EXCERPT_BYTES = 1024


def excerpt(data: bytes | None) -> str | None:
    """The first bytes of a bad record, decoded leniently, for a reviewer to look at."""
    if data is None:
        return None
    return data[:EXCERPT_BYTES].decode("utf-8", errors="replace").replace("\x00", "\\x00")


def decode_utf8(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8, replacing invalid bytes with U+FFFD; the flag says whether any were."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def repair_str(text: str) -> tuple[str, bool]:
    """Replace lone surrogates (valid in JSON escapes, invalid in UTF-8) with U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text), True
    return text, False
