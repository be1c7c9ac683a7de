"""The figures of the quality report, queried from a DuckDB session over the lakehouse."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakemix import tables

if TYPE_CHECKING:
    import duckdb


@dataclass
class ReportData:
    """Every number the report shows (also embedded in the page as JSON)."""

    version: str
    summary: dict[str, int]
    languages: list[dict[str, Any]]
    rule_rejections: list[dict[str, Any]]
    rule_language_rejections: list[dict[str, Any]]
    signals: list[dict[str, Any]]
    duplicate_clusters: list[dict[str, Any]]
    mixes: dict[str, list[dict[str, Any]]]
    tests: dict[str, Any]
    precision: list[dict[str, Any]]
    objectives: list[dict[str, Any]] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    trainings: list[dict[str, Any]] = field(default_factory=list)


def _rows(conn: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    result = conn.execute(sql)
    names = [d[0] for d in result.description or []]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def _one(conn: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    return int(row[0] or 0) if row else 0


def _exists(conn: duckdb.DuckDBPyConnection, relation: str) -> bool:
    row = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        list(tables.split(relation)),
    ).fetchone()
    return bool(row and row[0])


def summary(conn: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Documents at each stage: raw, quarantined, rejected by rules, duplicates, clean."""
    rejected = conn.execute(
        "select count_if(duplicate_of_document_id is null), "
        f"count_if(duplicate_of_document_id is not null) from {tables.DOCUMENT_REJECTIONS}"
    ).fetchone() or (0, 0)
    clean = tables.CLEAN_DOCUMENTS
    return {
        "raw_documents": _one(conn, f"select count(*) from {tables.RAW_DOCUMENTS}"),
        "quarantined_records": _one(conn, f"select count(*) from {tables.RAW_QUARANTINE}"),
        "rejected_by_rules": int(rejected[0]),
        "removed_duplicates": int(rejected[1]),
        "clean_documents": _one(conn, f"select count(*) from {clean}"),
        "clean_tokens": _one(conn, f"select sum(token_count) from {clean}"),
    }


def rule_rejections(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Documents failing each rule (duplicates count as exact_/near_duplicate), most first; none
    for a release built before ``marts.fct_rule_rejections`` existed."""
    if not _exists(conn, tables.RULE_REJECTIONS):
        return []
    return _rows(
        conn,
        "select rule, cast(sum(rejected_document_count) as bigint) as documents "
        f"from {tables.RULE_REJECTIONS} group by rule having documents > 0 "
        "order by documents desc, rule",
    )


def rule_language_rejections(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per rule and language where it failed: documents failing it, of all documents of that
    language (``marts.fct_rule_rejections``)."""
    if not _exists(conn, tables.RULE_REJECTIONS):
        return []
    return _rows(
        conn,
        f"""
        select
            rule,
            language,
            rejected_document_count as documents,
            document_count as language_documents,
            rejection_fraction as rejection_rate
        from {tables.RULE_REJECTIONS}
        where rejected_document_count > 0
        order by rule, documents desc, language
        """,
    )


def signal_histograms(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per signal of ``marts.fct_signal_histograms``, in its order: the bin edges, the documents
    the quality filters kept and rejected in each bin, and the signal's default thresholds
    (none in a lakehouse built before the mart)."""
    if not _exists(conn, tables.SIGNAL_HISTOGRAMS):
        return []
    rows = conn.execute(
        f"""
        select
            signal,
            list(lower_edge order by bin),
            max(upper_edge),
            list(kept_document_count order by bin),
            list(rejected_document_count order by bin)
        from {tables.SIGNAL_HISTOGRAMS}
        group by signal, signal_position
        order by signal_position
        """
    ).fetchall()
    thresholds = conn.execute(
        "select signal, list(distinct threshold order by threshold) "
        f"from {tables.QUALITY_THRESHOLDS} where language = '*' group by signal"
    ).fetchall()
    by_signal = {signal: [float(t) for t in values] for signal, values in thresholds}
    return [
        {
            "signal": signal,
            "edges": [round(float(e), 6) for e in [*lower_edges, upper]],
            "kept": [int(n) for n in kept],
            "rejected": [int(n) for n in rejected],
            "thresholds": by_signal.get(signal, []),
            "documents": int(sum(kept) + sum(rejected)),
        }
        for signal, lower_edges, upper, kept, rejected in rows
    ]


def trainings(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every ``lakemix quality train`` of the lakehouse (``meta.quality_models``), oldest
    first: labels fit on, held-out documents and figures. Empty before the first."""
    if not _exists(conn, tables.QUALITY_MODELS):
        return []
    rows = _rows(
        conn,
        "select trained_at, sha256, fitted_documents, held_out_documents, held_out_by, "
        f"accuracy, precision, recall from {tables.QUALITY_MODELS} order by trained_at",
    )
    return [
        {
            **r,
            "trained_at": r["trained_at"].strftime("%Y-%m-%d %H:%M:%S"),
            "sha256": r["sha256"][:12],
        }
        for r in rows
    ]


SCORE_BINS = 20


def score_histograms(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per language, most documents first: the quality model's scores in twenty bins over
    [0, 1], kept and rejected (``marts.fct_quality_score_histograms``), and the language's
    ``model_min_quality_score`` threshold (its own row, else ``*``). Empty in a lakehouse
    built before the mart."""
    if not _exists(conn, tables.SCORE_HISTOGRAMS):
        return []
    rows = conn.execute(
        f"""
        select language, bin, kept_document_count, rejected_document_count
        from {tables.SCORE_HISTOGRAMS}
        """
    ).fetchall()
    thresholds = dict(
        conn.execute(
            f"select language, max(cast(threshold as double)) from {tables.QUALITY_THRESHOLDS} "
            "where rule = 'model_min_quality_score' group by language"
        ).fetchall()
    )
    found: dict[str, dict[str, Any]] = {}
    for language, bin_, kept, rejected in rows:
        entry = found.setdefault(
            language,
            {
                "language": language,
                "kept": [0] * SCORE_BINS,
                "rejected": [0] * SCORE_BINS,
                "threshold": thresholds.get(language, thresholds.get("*")),
            },
        )
        entry["kept"][int(bin_)] = int(kept)
        entry["rejected"][int(bin_)] = int(rejected)
    for entry in found.values():
        entry["documents"] = sum(entry["kept"]) + sum(entry["rejected"])
    return sorted(found.values(), key=lambda e: (-e["documents"], e["language"]))


def mixes(conn: duckdb.DuckDBPyConnection) -> dict[str, list[dict[str, Any]]]:
    """Mix name -> per language: target and realized shares (every marts.mix_*_languages)."""
    names = [
        row[0]
        for row in conn.execute(
            "select table_name from information_schema.tables where table_schema = ? "
            "order by table_name",
            [tables.MARTS],
        ).fetchall()
    ]
    out = {}
    for name in names:
        mix = tables.mix_of_languages(name)
        if mix is not None:
            out[mix] = _rows(
                conn,
                f'select language, target_share, realized_share from {tables.MARTS}."{name}" '
                "order by target_share desc, language",
            )
    return out


def test_results(conn: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """From meta.build_stats: the last build's test counts, and every test whose latest
    recorded status is not pass (warnings included: they do not block a release)."""
    columns = {
        row[0]
        for row in conn.execute(
            "select column_name from information_schema.columns "
            "where table_schema = ? and table_name = ?",
            list(tables.split(tables.BUILD_STATS)),
        ).fetchall()
    }
    if not columns:
        return {}
    last = _rows(
        conn,
        "select invocation_id, cast(recorded_at as varchar) as recorded_at "
        f"from {tables.BUILD_STATS} order by recorded_at desc, invocation_id limit 1",
    )
    if not last:
        return {}
    counts = conn.execute(
        f"select dimension, document_count from {tables.BUILD_STATS} "
        "where invocation_id = ? and metric = 'tests' order by dimension",
        [last[0]["invocation_id"]],
    ).fetchall()
    if "note" not in columns:  # recorded before per-test statuses were
        return {**last[0], "counts": {k: int(v) for k, v in counts}, "not_passed": []}
    not_passed = _rows(
        conn,
        f"""
        select test, status, failures, recorded_at from (
            select
                dimension as test,
                note as status,
                document_count as failures,
                cast(recorded_at as varchar) as recorded_at,
                row_number() over (partition by dimension order by recorded_at desc) as latest
            from {tables.BUILD_STATS}
            where metric = 'test_status'
        )
        where latest = 1 and status != 'pass'
        order by status, test
        """,
    )
    return {**last[0], "counts": {k: int(v) for k, v in counts}, "not_passed": not_passed}


KEPT = "(kept: passed every filter)"


def precision(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per filter: reviewed documents it rejected, how many reviewers call bad, and that share
    (its precision); for kept documents, the share reviewers call good. Latest verdict wins."""
    if not _exists(conn, tables.REVIEW_VERDICTS):
        return []
    return _rows(
        conn,
        f"""
        with verdicts as (
            select document_id, arg_max(verdict, labeled_at) as verdict
            from {tables.REVIEW_VERDICTS} group by document_id
        ),
        decisions as (
            select document_id, unnest(failed_rule_names) as rule
            from {tables.DOCUMENT_REJECTIONS}
            union all
            select document_id, '{KEPT}' as rule from {tables.CLEAN_DOCUMENTS}
        )
        select
            rule,
            count(*) as reviewed,
            count_if(verdict = if(rule = '{KEPT}', 'good', 'bad')) as agreed,
            count_if(verdict = if(rule = '{KEPT}', 'good', 'bad')) / count(*) as precision
        from decisions
        inner join verdicts using (document_id)
        group by rule
        order by rule
        """,
    )


def agreement(conn: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Of the documents two or more reviewers judged (each one's latest verdict), how many got
    the same verdict from all of them; empty when there are none."""
    if not _exists(conn, tables.REVIEW_VERDICTS):
        return {}
    row = conn.execute(
        f"""
        with latest as (
            select document_id, reviewer, arg_max(verdict, labeled_at) as verdict
            from {tables.REVIEW_VERDICTS} group by document_id, reviewer
        ),
        per_document as (
            select document_id, count(*) as reviewers, count(distinct verdict) as verdicts
            from latest group by document_id having count(*) >= 2
        )
        select count(*), count_if(verdicts = 1) from per_document
        """
    ).fetchone()
    documents, agreeing = (int(v or 0) for v in row) if row else (0, 0)
    if not documents:
        return {}
    return {"documents": documents, "agreeing": agreeing, "share": agreeing / documents}


def collect(
    conn: duckdb.DuckDBPyConnection,
    *,
    version: str,
    objectives: list[dict[str, Any]] | None = None,
) -> ReportData:
    """Every figure of the report from ``conn`` (views raw.*, marts.*, seeds.*);
    ``objectives`` are the rows of the first section (quality.objectives_table)."""
    return ReportData(
        version=version,
        summary=summary(conn),
        languages=_rows(
            conn,
            # every column: releases made before threshold_source existed lack it
            f"select * from {tables.LANGUAGES} order by raw_document_count desc, language",
        ),
        rule_rejections=rule_rejections(conn),
        rule_language_rejections=rule_language_rejections(conn),
        signals=signal_histograms(conn),
        scores=score_histograms(conn),
        trainings=trainings(conn),
        duplicate_clusters=_rows(
            conn,
            f"select cluster_size, count(*) as clusters from {tables.DUPLICATE_CLUSTERS} "
            "group by cluster_size order by cluster_size",
        ),
        mixes=mixes(conn),
        tests=test_results(conn),
        precision=precision(conn),
        objectives=objectives or [],
        agreement=agreement(conn),
    )
