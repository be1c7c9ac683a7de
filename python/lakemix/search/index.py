"""The search index: a Tantivy index on local disk beside the DuckDB file, its schema and words.

Words are what the analyzer ``lakemix`` makes of a text, the same at index and query time:
runs of Unicode letters, marks and digits, except that every character of a script written
without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar, Tibetan) is a word of its
own; lower-cased, accents folded to ASCII where they can be. Positions are indexed, so a query
word the analyzer splits (``東京``) becomes a phrase: its characters next to each other, in order
(Lucene's CJK unigram approach; a dictionary segmenter would split differently at index and
query time on unknown words).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.settings import Settings

if TYPE_CHECKING:
    import tantivy

ANALYZER = "lakemix"
# Scripts written without spaces between words: each character is a word.
UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}"
WORD_PATTERN = rf"[{UNSPACED}]|[\p{{L}}\p{{M}}\p{{N}}--{UNSPACED}]+"
# Words longer than this (base64, hashes) are not indexed.
MAX_WORD_BYTES = 100

# A hit's columns (SearchHit's fields, search.match_documents' columns), in order.
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
# Raw (untokenized) text fields: the key, and the exact-match filters.
KEYWORD_FIELDS = ("document_id", "source_id", "language")
# Stored only: lineage returned with a hit.
STORED_TEXT_FIELDS = (
    "url",
    "file_path",
    "ingest_id",
    "failed_rule_names",
    "duplicate_of_document_id",
)


class SearchIndexError(LakemixError, RuntimeError):
    """The search index is missing, locked by a running build, or cannot be read."""


def index_path(settings: Settings) -> Path:
    """Where the index of ``settings.duckdb_path`` lives: ``<name>.search/`` beside it."""
    return settings.duckdb_path.with_name(settings.duckdb_path.stem + ".search")


def analyzer() -> tantivy.TextAnalyzer:
    """The analyzer of the ``text`` field (module docstring)."""
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(WORD_PATTERN))
        .filter(tantivy.Filter.remove_long(MAX_WORD_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def schema() -> tantivy.Schema:
    """Fields of a document in the index (``SearchHit``'s, the score aside)."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    for name in KEYWORD_FIELDS:
        builder.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_boolean_field("is_clean", stored=True, indexed=True)
    builder.add_float_field("language_score", stored=True)
    builder.add_integer_field("file_offset", stored=True)
    builder.add_integer_field("ingested_at_us", stored=True)
    for name in STORED_TEXT_FIELDS:
        builder.add_text_field(name, stored=True, index_option="basic", tokenizer_name="raw")
    builder.add_text_field("text", stored=True, tokenizer_name=ANALYZER, index_option="position")
    return builder.build()


def open_index(path: Path, *, create: bool = False) -> tantivy.Index:
    """The index in folder ``path``, with the ``lakemix`` analyzer registered.

    Args:
        path: The index folder.
        create: Make an empty index when ``path`` holds none (else raise).

    Raises:
        SearchIndexError: No index at ``path`` and not ``create``, or it cannot be opened.
    """
    import tantivy

    exists = (path / "meta.json").is_file()
    if not exists and not create:
        raise SearchIndexError(f"no search index at {path}: run `dbt build`")
    path.mkdir(parents=True, exist_ok=True)
    try:
        index = tantivy.Index(schema(), path=str(path), reuse=True)
    except ValueError as exc:
        raise SearchIndexError(
            f"cannot open the search index at {path} ({exc}); rebuild it with "
            "`dbt build --select search_index --full-refresh`"
        ) from None
    index.register_tokenizer(ANALYZER, analyzer())
    return index
