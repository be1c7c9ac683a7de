"""meta.build_stats: each dbt build's figures, checked against the tables and run results."""

from __future__ import annotations

from pathlib import Path

import orjson

from lakemix import duck
from lakemix.settings import Settings


def test_every_build_appends_its_statistics(built: tuple[Settings, Path]) -> None:
    settings, tmp = built
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    q = conn.execute
    builds = [r[0] for r in q("select invocation_id from main.lakemix_builds").fetchall()]
    recorded = q(
        "select invocation_id from meta.build_stats group by 1 order by min(recorded_at)"
    ).fetchall()
    assert len(builds) == 2 and sorted(builds) == sorted(r[0] for r in recorded)
    last = recorded[-1][0]

    def stat(metric: str, dimension: str, language: str | None = None) -> tuple[int | None, float]:
        row = q(
            "select document_count, value from meta.build_stats where invocation_id = ? "
            "and metric = ? and dimension = ? and language is not distinct from ?",
            [last, metric, dimension, language],
        ).fetchone()
        assert row is not None, (metric, dimension, language)
        return row[0], float(row[1])

    raw = q("select count(*) from raw.documents").fetchone()
    assert raw is not None and stat("rows", "raw.documents") == (raw[0], raw[0])
    clean = q("select count(*) from marts.fct_clean_documents").fetchone()
    assert clean is not None and stat("rows", "marts.fct_clean_documents")[0] == clean[0]

    failed = q(
        "select rule, count(*) from (select unnest(failed_rule_names) as rule "
        "from marts.fct_document_rejections) group by 1"
    ).fetchall()
    assert failed
    for rule, count in failed:
        assert stat("rejection_rate", rule, "*") == (count, count / raw[0])
    per_language = q(
        "select r.language, count(*), any_value(n) from marts.fct_document_rejections r "
        "join (select language, count(*) as n from intermediate.int_documents_language_scored "
        "group by 1) using (language) where list_contains(failed_rule_names, 'gopher_min_words') "
        "group by 1"
    ).fetchall()
    for language, count, total in per_language:
        assert stat("rejection_rate", "gopher_min_words", language) == (count, count / total)
    assert stat("rejection_rate", "gopher_max_words", "*")[0] == 0  # seeded, never failed

    tokens = q(
        "select language, count(*), sum(token_count) from marts.fct_clean_documents group by 1"
    ).fetchall()
    for language, documents, total in tokens:
        assert stat("tokens", "cl100k", language) == (documents, total)

    results = orjson.loads((tmp / "target" / "run_results.json").read_bytes())
    statuses = [r["status"] for r in results["results"] if r["unique_id"].startswith("test.")]
    assert results["metadata"]["invocation_id"] == last
    for status in ("pass", "warn", "fail", "error"):
        assert stat("tests", status)[0] == statuses.count(status)
    named = q(
        "select dimension, note from meta.build_stats "
        "where invocation_id = ? and metric = 'test_status'",
        [last],
    ).fetchall()
    assert sorted(named) == sorted(
        (r["unique_id"].split(".")[2], r["status"])
        for r in results["results"]
        if r["unique_id"].startswith("test.")
    )
    assert stat("duration_seconds", "build")[1] > 0

    # Drift across builds is one query.
    drift = q(
        "select invocation_id, value from meta.build_stats where metric = 'rejection_rate' "
        "and dimension = 'gopher_min_words' and language = '*' order by recorded_at"
    ).fetchall()
    conn.close()
    assert [r[0] for r in drift] == [r[0] for r in recorded]
