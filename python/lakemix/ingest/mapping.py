"""Which fields of a structured record hold the text, the id, the URL, and what to leave out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from lakemix.ingest.records import Document, Rejected, repair_str

_MISSING = object()


def lookup(obj: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` ("a.b.c" walks nested objects; an exact key wins), or _MISSING."""
    if path in obj:
        return obj[path]
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


@dataclass(frozen=True, kw_only=True)
class FieldMapping:
    """Candidate field paths, tried in order; the first present one is used.

    Attributes:
        text: Fields that may hold the document text (required; must be a string).
        id: Fields that may hold the record's own id (used for a stable ``document_id``).
        url: Fields that may hold the page URL.
        drop: Top-level fields left out of ``metadata`` (e.g. raw HTML).
    """

    text: tuple[str, ...] = ("text", "content")
    id: tuple[str, ...] = ("id",)
    url: tuple[str, ...] = ("url", "metadata.url", "warc_headers.warc-target-uri")
    drop: tuple[str, ...] = ()

    def with_overrides(
        self,
        *,
        text: str | None = None,
        id: str | None = None,
        url: str | None = None,
        drop: tuple[str, ...] = (),
    ) -> FieldMapping:
        """A copy with single fields chosen by the user instead of the candidates."""
        return FieldMapping(
            text=(text,) if text else self.text,
            id=(id,) if id else self.id,
            url=(url,) if url else self.url,
            drop=self.drop + drop,
        )

    def document(
        self, obj: Any, *, offset: int, line_number: int | None, repaired: bool
    ) -> Document | Rejected:
        """Turn one parsed record into a document, or say why it cannot be one."""
        if not isinstance(obj, Mapping):
            return Rejected(
                offset, line_number, f"record is a JSON {type(obj).__name__}, not an object"
            )
        text = _MISSING
        text_path = self.text[0]
        for text_path in self.text:
            text = lookup(obj, text_path)
            if text is not _MISSING:
                break
        if text is _MISSING:
            return Rejected(
                offset, line_number, f"missing text field (tried {', '.join(self.text)})"
            )
        if not isinstance(text, str):
            return Rejected(
                offset, line_number, f"text field {text_path!r} is {_kind(text)}, expected a string"
            )
        text, fixed = repair_str(text)
        used = {text_path}
        record_id = self._first_scalar(obj, self.id, used)
        url = self._first_scalar(obj, self.url, used)
        skip = used | set(self.drop)
        rest = {k: v for k, v in obj.items() if k not in skip}
        metadata = _to_json(rest) if rest else None
        return Document(
            offset=offset,
            line_number=line_number,
            text=text,
            record_id=record_id,
            url=url,
            metadata=metadata,
            is_utf8_repaired=repaired or fixed,
        )

    @staticmethod
    def _first_scalar(obj: Mapping[str, Any], paths: tuple[str, ...], used: set[str]) -> str | None:
        for path in paths:
            value = lookup(obj, path)
            if value is _MISSING or value is None or isinstance(value, (Mapping, list)):
                continue
            if path in obj:
                used.add(path)
            return repair_str(str(value))[0]
        return None


def _to_json(value: Any) -> str:
    try:
        return orjson.dumps(value, default=str).decode()
    except orjson.JSONEncodeError:  # lone surrogates from a lenient parse: escape them
        return json.dumps(value, default=str, ensure_ascii=True)


def _kind(value: Any) -> str:
    return "null" if value is None else f"a JSON {type(value).__name__}"


JSONL = FieldMapping()
# HPLT warc2text: t = extracted text, u = URL, h = raw HTML (dropped: it is the page, not text).
HPLT = FieldMapping(text=("t",), id=(), url=("u",), drop=("h",))
