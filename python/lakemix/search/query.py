"""Full-text search over every document (DuckDB's fts BM25 index, built by dbt)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from lakemix import duck
from lakemix.errors import LakemixError
from lakemix.settings import Settings

# Built by models/search/search_documents.sql and macros/create_search_index.sql.
MATCH_MACRO = "search.match_documents"
COLUMNS = (
    "score",
    "document_id",
    "is_clean",
    "source_id",
    "language",
    "language_score",
    "url",
    "file_path",
    "file_offset",
    "ingest_id",
    "ingested_at",
    "failed_rule_names",
    "duplicate_of_document_id",
    "text",
)


class SearchError(LakemixError, RuntimeError):
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
        SearchError: No index yet (run ``dbt build``), or the database is locked by dbt.
    """
    import duckdb

    if not query.strip():
        raise SearchQueryError("the search query is empty: give at least one word")
    if limit < 1:
        raise SearchQueryError(f"limit must be at least 1, got {limit}")
    settings = settings or Settings.from_env()
    if not settings.duckdb_path.is_file():
        raise SearchError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    filters: list[str] = []
    params: list[object] = [query]
    for column, value in (("language", language), ("source_id", source)):
        if value is not None:
            filters.append(f"{column} = ?")
            params.append(value)
    if min_score is not None:
        filters.append("score >= ?")
        params.append(float(min_score))
    if not include_rejected:
        filters.append("is_clean")
    where = f"where {' and '.join(filters)}" if filters else ""
    sql = (
        f"select {', '.join(COLUMNS)} from {MATCH_MACRO}(?::varchar) {where} "
        f"order by score desc, document_id limit {int(limit)}"
    )
    try:
        conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    except duckdb.IOException as exc:
        raise SearchError(f"cannot read {settings.duckdb_path} (is dbt running?): {exc}") from None
    try:
        rows = conn.execute(sql, params).fetchall()
    except duckdb.CatalogException as exc:
        raise SearchError(
            f"no search index in {settings.duckdb_path}: run `dbt build` ({exc})"
        ) from None
    finally:
        conn.close()
    return [SearchHit(*row) for row in rows]
