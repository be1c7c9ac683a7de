"""Full-text search over every document: BM25 over the Tantivy index that ``dbt build`` keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.search.index import SearchIndexError, index_path, open_index
from lakemix.settings import Settings

if TYPE_CHECKING:
    import tantivy

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class SearchError(SearchIndexError):
    """The search index is missing or cannot be read."""


class SearchQueryError(SearchError, ValueError):
    """An empty query or a limit below 1."""


@dataclass(frozen=True)
class SearchHit:
    """A matching document, its BM25 score and its lineage.

    Attributes:
        score: BM25 score (higher is better).
        document_id: Stable document id.
        is_clean: In fct_clean_documents (else rejected, for ``failed_rule_names``).
        source_id: Corpus name given at ingest.
        language: ISO 639 language code.
        language_score: How sure the language is, 0 to 1.
        url: Page URL, when known.
        file_path: Raw file the document came from.
        file_offset: Byte offset in the decompressed raw file.
        ingest_id: Ingest run.
        ingested_at: When ingested (UTC).
        failed_rule_names: Why it was rejected (empty when kept).
        duplicate_of_document_id: The kept document, for a removed duplicate.
        text: The indexed text (PII-redacted when kept).
    """

    score: float
    document_id: str
    is_clean: bool
    source_id: str
    language: str
    language_score: float
    url: str | None
    file_path: str
    file_offset: int
    ingest_id: str
    ingested_at: datetime
    failed_rule_names: list[str]
    duplicate_of_document_id: str | None
    text: str

    def snippet(self, query: str, *, width: int = 100) -> str:
        """About ``width`` characters of the text around the first query word found in it."""
        words = [w for w in re.split(r"\W+", query.lower()) if w]
        lowered = self.text.lower()
        found = [i for i in (lowered.find(w) for w in words) if i >= 0]
        start = max(0, min(found, default=0) - width // 3)
        piece = " ".join(self.text[start : start + width].split())
        return ("..." if start else "") + piece + ("..." if start + width < len(self.text) else "")


def _words(query: str) -> str:
    """The query as words for Tantivy's parser: its syntax characters become spaces, so every
    word is looked for (any of them; a word the analyzer splits, as in Chinese, is a phrase)."""
    return " ".join(re.findall(r"[^\W_]+", query.lower()))


def _hit(score: float, doc: tantivy.Document) -> SearchHit:
    fields: dict[str, Any] = doc.to_dict()

    def one(name: str) -> Any:
        values = fields.get(name)
        return values[0] if values else None

    rules = one("failed_rule_names")
    micros = one("ingested_at_us")
    return SearchHit(
        score=float(score),
        document_id=one("document_id"),
        is_clean=bool(one("is_clean")),
        source_id=one("source_id"),
        language=one("language"),
        language_score=one("language_score"),
        url=one("url"),
        file_path=one("file_path"),
        file_offset=one("file_offset"),
        ingest_id=one("ingest_id"),
        ingested_at=EPOCH + timedelta(microseconds=micros or 0),
        failed_rule_names=rules.split(",") if rules else [],
        duplicate_of_document_id=one("duplicate_of_document_id"),
        text=one("text") or "",
    )


def match(
    path: Path,
    query: str,
    *,
    language: str | None = None,
    source: str | None = None,
    clean_only: bool = False,
    limit: int | None = None,
) -> list[SearchHit]:
    """Documents of the index at ``path`` matching ``query``, best first (ties by id).

    Args:
        path: The index folder (``index_path``).
        query: Words to look for.
        language: Only documents of this language.
        source: Only documents of this source.
        clean_only: Only kept documents.
        limit: At most this many (every match when None).

    Raises:
        SearchIndexError: No index at ``path``.
    """
    import tantivy

    index = open_index(path)
    words = _words(query)
    if not words:
        return []
    searcher = index.searcher()
    parts = [(tantivy.Occur.Must, index.parse_query(words, ["text"]))]
    schema = index.schema
    for field, value in (("language", language), ("source_id", source)):
        if value is not None:
            parts.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, field, value)))
    if clean_only:
        parts.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "is_clean", True)))
    combined = tantivy.Query.boolean_query(parts)
    if limit is None:
        limit = searcher.search(combined, 1, count=True).count  # type: ignore[attr-defined]  # stub lacks it
    if limit < 1:
        return []
    hits = [
        _hit(score, searcher.doc(address))
        for score, address in searcher.search(combined, limit).hits
    ]
    return sorted(hits, key=lambda hit: (-hit.score, hit.document_id))


def search(
    query: str,
    *,
    language: str | None = None,
    source: str | None = None,
    min_score: float | None = None,
    include_rejected: bool = False,
    limit: int = 10,
    settings: Settings | None = None,
) -> list[SearchHit]:
    """Documents matching ``query`` (any of its words; BM25), best first.

    Reads the index folder beside the DuckDB file (``index_path``) directly: no DuckDB, and
    no wait for a running ``dbt build`` (it sees the last committed index).

    Args:
        query: Words to look for; case and accents do not matter.
        language: Only documents identified as this ISO 639 code.
        source: Only documents of this source.
        min_score: Only documents scoring at least this.
        include_rejected: Also rejected documents (default: only clean ones).
        limit: At most this many hits.
        settings: Lakehouse settings; read from the environment when omitted.

    Raises:
        SearchQueryError: An empty query or a limit below 1 (a ``ValueError``).
        SearchError: No index yet (run ``dbt build``).
    """
    if not query.strip():
        raise SearchQueryError("the search query is empty: give at least one word")
    if limit < 1:
        raise SearchQueryError(f"limit must be at least 1, got {limit}")
    settings = settings or Settings.from_env()
    path = index_path(settings)
    if not settings.duckdb_path.is_file() and not path.is_dir():
        raise SearchError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    try:
        hits = match(
            path,
            query,
            language=language,
            source=source,
            clean_only=not include_rejected,
            limit=limit,
        )
    except SearchIndexError as exc:
        raise SearchError(str(exc)) from None
    if min_score is not None:
        hits = [hit for hit in hits if hit.score >= min_score]
    return hits
