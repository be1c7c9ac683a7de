"""Every relation the Python package reads or writes, named once as ``schema.table``.

The dbt project decides the schemas (``dbt_project.yml``: ``+schema`` per folder) and the
models' names; Python names them only here, so a renamed model is one edit and a grep finds
every reader. ``python/tests/unit/test_tables.py`` fails on a ``schema.table`` string literal
anywhere else in the package (docstrings excepted).
"""

from __future__ import annotations

import re

# Schemas (Iceberg namespaces; DuckDB schemas of the same names).
RAW = "raw"
STAGING = "staging"
INTERMEDIATE = "intermediate"
MARTS = "marts"
META = "meta"
SEEDS = "seeds"
SNAPSHOTS = "snapshots"
SEARCH = "search"

# raw: what `lakemix ingest` writes.
RAW_DOCUMENTS = f"{RAW}.documents"
RAW_QUARANTINE = f"{RAW}.quarantine"

# intermediate: private to dbt; Python reads them only to explain a document or a release.
PAGES_EXTRACTED = f"{INTERMEDIATE}.int_pages_extracted"
DOCUMENT_URLS = f"{INTERMEDIATE}.int_documents_urls"
URL_FILTERED = f"{INTERMEDIATE}.int_documents_url_filtered"
BENCHMARK_OVERLAPS = f"{INTERMEDIATE}.int_documents_benchmark_overlaps"
LANGUAGE_SCORED = f"{INTERMEDIATE}.int_documents_language_scored"
QUALITY_SCORED = f"{INTERMEDIATE}.int_documents_quality_scored"
QUALITY_FILTERED = f"{INTERMEDIATE}.int_documents_quality_filtered"
DEDUPLICATED = f"{INTERMEDIATE}.int_documents_deduplicated"
PII_REDACTED = f"{INTERMEDIATE}.int_documents_pii_redacted"
TOKENIZED = f"{INTERMEDIATE}.int_documents_tokenized"

# marts: what users, the loader and the report read.
CLEAN_DOCUMENTS = f"{MARTS}.fct_clean_documents"
DOCUMENT_REJECTIONS = f"{MARTS}.fct_document_rejections"
RULE_REJECTIONS = f"{MARTS}.fct_rule_rejections"
SIGNAL_HISTOGRAMS = f"{MARTS}.fct_signal_histograms"
SCORE_HISTOGRAMS = f"{MARTS}.fct_quality_score_histograms"
DUPLICATE_CLUSTERS = f"{MARTS}.dim_duplicate_clusters"
LANGUAGES = f"{MARTS}.dim_languages"
SOURCES = f"{MARTS}.dim_sources"

# meta: lakemix's own bookkeeping tables.
BUILDS = f"{META}.builds"
BUILD_STATS = f"{META}.build_stats"
MIX_PLANS = f"{META}.mix_plans"
RELEASES = f"{META}.releases"
REVIEW_VERDICTS = f"{META}.review_verdicts"
QUALITY_MODELS = f"{META}.quality_models"
URL_BLOCKLISTS = f"{META}.url_blocklists"
BENCHMARKS = f"{META}.benchmarks"
# meta tables that exist only once a user adds to them (`lakemix blocklist add`, `lakemix
# benchmark add`): absent, the build reads no rows of them (macro rows_or_none), a release
# records none and its rebuild reads none.
ON_REQUEST = (URL_BLOCKLISTS, BENCHMARKS)

# seeds
QUALITY_THRESHOLDS = f"{SEEDS}.quality_thresholds"

# search: the full-text index's one row per build (a table of dbt's DuckDB file, not Iceberg).
SEARCH_INDEX = f"{SEARCH}.search_index"

# A mix's two models: `mix_<name>` (its documents) and `mix_<name>_languages` (its shares).
MIX_PREFIX = "mix_"
LANGUAGES_SUFFIX = "_languages"
_MIX_LANGUAGES = re.compile(rf"{MIX_PREFIX}(\w+){LANGUAGES_SUFFIX}")


def split(relation: str) -> tuple[str, str]:
    """``"meta.builds"`` -> ``("meta", "builds")``.

    Raises:
        ValueError: ``relation`` is not ``schema.table``.
    """
    schema, dot, table = relation.partition(".")
    if not dot or not schema or not table or "." in table:
        raise ValueError(f"expected a relation as schema.table, got {relation!r}")
    return schema, table


def mix_model(mix: str) -> str:
    """The dbt model (table name, no schema) of the mix ``mix``'s documents: ``mix_<mix>``."""
    return f"{MIX_PREFIX}{mix}"


def mix_languages_model(mix: str) -> str:
    """The table name of the mix ``mix``'s realized shares: ``mix_<mix>_languages``."""
    return f"{MIX_PREFIX}{mix}{LANGUAGES_SUFFIX}"


def mix_table(mix: str) -> str:
    """The relation of the mix ``mix``'s documents: ``marts.mix_<mix>``."""
    return f"{MARTS}.{mix_model(mix)}"


def mix_languages_table(mix: str) -> str:
    """The relation of the mix ``mix``'s realized shares: ``marts.mix_<mix>_languages``."""
    return f"{MARTS}.{mix_languages_model(mix)}"


def mix_of(table: str) -> str | None:
    """The mix whose documents table is ``table`` (``mix_web`` -> ``web``), else ``None``.

    A ``mix_<name>_languages`` table is not a documents table: its answer is ``None``.
    """
    if not table.startswith(MIX_PREFIX) or table.endswith(LANGUAGES_SUFFIX):
        return None
    return table.removeprefix(MIX_PREFIX)


def mix_of_languages(table: str) -> str | None:
    """The mix whose shares table is ``table`` (``mix_web_languages`` -> ``web``), else ``None``."""
    match = _MIX_LANGUAGES.fullmatch(table)
    return match.group(1) if match else None


def mix_of_any(table: str) -> str | None:
    """The mix either of whose tables is ``table``, else ``None``."""
    return mix_of_languages(table) or mix_of(table)
