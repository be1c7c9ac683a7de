"""Consistency across sources on crafted documents: rates, means and distributions, passing and
failing, with the deviating source and field named."""

from __future__ import annotations

import duckdb
import pytest

from lakemix.objectives import evaluate, parse_objectives
from lakemix.objectives.config import VAR
from lakemix.objectives.consistency import deviations

FIELDS = {
    "url_share": {},
    "tokens_per_character": {},
    "language_score": {"max_deviation": 0.1},
    "duplicate_rate": {},
}


def documents(
    source: str, language: str, n: int, *, with_url: int, tokens: int, scores: list[float]
) -> list[tuple[object, ...]]:
    """``n`` clean documents, the first ``with_url`` with a URL, 100 characters each."""
    return [
        (
            f"{source}-{language}-{i}",
            source,
            language,
            f"https://x/{i}" if i < with_url else None,
            tokens,
            100,
            scores[i % len(scores)],
        )
        for i in range(n)
    ]


def fill(conn: duckdb.DuckDBPyConnection, rows: list[tuple[object, ...]]) -> None:
    conn.executemany(
        "insert into marts.fct_clean_documents (document_id, source_id, language, url, "
        "token_count, character_count, language_score) values (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def consistency(conn: duckdb.DuckDBPyConnection, min_documents: int = 100) -> dict[str, object]:
    objectives = parse_objectives(
        {VAR: {"consistency": {"min_documents": min_documents, "fields": FIELDS}}}
    )
    return {r.name: r for r in evaluate(conn, objectives)}


def test_sources_that_agree_pass(conn: duckdb.DuckDBPyConnection) -> None:
    scores = [0.90, 0.95, 1.0]
    # en: 40% with a URL in both (400 of 1,000 and 200 of 500); 25 tokens per 100 characters.
    fill(conn, documents("a", "en", 1000, with_url=400, tokens=25, scores=scores))
    fill(conn, documents("b", "en", 500, with_url=200, tokens=25, scores=scores))
    # A second language with other values is compared only within itself.
    fill(conn, documents("a", "fi", 300, with_url=0, tokens=40, scores=[0.7]))
    fill(conn, documents("c", "fi", 300, with_url=0, tokens=40, scores=[0.7]))
    results = consistency(conn)
    assert {name: r.passed for name, r in results.items()} == dict.fromkeys(FIELDS, True)
    assert results["url_share"].measured == pytest.approx(0.0)
    assert results["tokens_per_character"].measured == pytest.approx(0.0)
    assert results["language_score"].measured == pytest.approx(0.0, abs=1e-3)
    assert "4 (language, source) pairs" in results["url_share"].detail


def test_a_deviating_source_fails_with_source_and_field_named(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # Source b: 60% with a URL against 40% for a; pooled (400 + 300) / 1,500 = 46.67%.
    fill(conn, documents("a", "en", 1000, with_url=400, tokens=25, scores=[0.9, 1.0]))
    fill(conn, documents("b", "en", 500, with_url=300, tokens=25, scores=[0.9, 1.0]))
    results = consistency(conn)
    url = results["url_share"]
    assert not url.passed and url.measured == pytest.approx(0.6 - 700 / 1500)
    # Both deviate beyond a point (a by 6.67, b by 13.33 points); b, the larger, first.
    assert url.detail.startswith("source b, language en: url_share 0.6 against 0.4667")
    assert "source a, language en" in url.detail
    assert results["tokens_per_character"].passed


def test_a_mean_deviates_relatively(conn: duckdb.DuckDBPyConnection) -> None:
    # 0.25 and 0.26 tokens per character: pooled 0.2533 (500 + 500 documents); b is 2.6% above.
    fill(conn, documents("a", "en", 500, with_url=0, tokens=25, scores=[1.0]))
    fill(conn, documents("b", "en", 500, with_url=0, tokens=26, scores=[1.0]))
    (worst, *_) = deviations(
        conn,
        parse_objectives(
            {VAR: {"consistency": {"fields": {"tokens_per_character": {}}}}}
        ).consistency.fields[0],  # type: ignore[union-attr]
        min_documents=1,
    )
    assert worst.deviation == pytest.approx(0.005 / 0.255)
    assert not consistency(conn)["tokens_per_character"].passed


def test_a_distribution_is_compared_by_its_ks_distance(conn: duckdb.DuckDBPyConnection) -> None:
    # a: scores spread evenly over 0.80..0.99; b: the same spread shifted to 0.60..0.79.
    spread = [0.8 + i / 100 for i in range(20)]
    fill(conn, documents("a", "en", 1000, with_url=0, tokens=25, scores=spread))
    fill(conn, documents("b", "en", 1000, with_url=0, tokens=25, scores=[s - 0.2 for s in spread]))
    result = consistency(conn)["language_score"]
    # Pooled, half the mass is b's: at 0.79 b's CDF is 1 and the pooled one 0.5.
    assert result.measured == pytest.approx(0.5) and not result.passed
    assert "source a, language en: language_score" in result.detail


def test_duplicate_rate_counts_removed_duplicates(conn: duckdb.DuckDBPyConnection) -> None:
    fill(conn, documents("a", "en", 100, with_url=0, tokens=25, scores=[1.0]))
    fill(conn, documents("b", "en", 100, with_url=0, tokens=25, scores=[1.0]))
    conn.executemany(
        "insert into marts.fct_document_rejections values (?, ?, ?, ?)",
        [(f"d{i}", "b", "en", "b-en-0") for i in range(25)] + [("r", "a", "en", None)],
    )
    result = consistency(conn, min_documents=50)["duplicate_rate"]
    # b: 25 of 125 removed (20%); pooled 25 of 225 (11.1%); a: 0%, the farther from the pool.
    # A rule rejection is no duplicate.
    assert result.measured == pytest.approx(25 / 225) and not result.passed
    assert result.detail.startswith("source a, language en: duplicate_rate 0 against 0.1111")


def test_too_few_documents_or_one_source_is_not_measured(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    fill(conn, documents("a", "en", 1000, with_url=400, tokens=25, scores=[1.0]))
    fill(conn, documents("b", "en", 50, with_url=50, tokens=25, scores=[1.0]))
    fill(conn, documents("c", "fi", 500, with_url=500, tokens=25, scores=[1.0]))
    url = consistency(conn)["url_share"]
    # b has fewer than 100 documents; fi has one source; a alone is judged, against a pool
    # that b's URLs lift: 450 / 1,050.
    assert url.measured == pytest.approx(abs(0.4 - 450 / 1050))
    assert consistency(conn, min_documents=2000)["url_share"].measured is None
    assert consistency(conn, min_documents=2000)["url_share"].passed
    # ... and reads as its own state, in the report, `lakemix show` and the release summary.
    from lakemix.objectives.evaluate import outcome, summary

    unmeasured = consistency(conn, min_documents=2000)["url_share"].as_dict()  # type: ignore[attr-defined]
    measured = {**consistency(conn)["url_share"].as_dict(), "passed": True}  # type: ignore[attr-defined]
    failed = {**measured, "passed": False, "severity": "warn"}
    assert [outcome(r) for r in (unmeasured, measured, failed)] == [
        "not measured",
        "pass",
        "FAIL (warn)",
    ]
    assert summary([failed, unmeasured, measured, measured]) == (
        "2 pass, 1 not measured, 1 FAIL (warn)"
    )
