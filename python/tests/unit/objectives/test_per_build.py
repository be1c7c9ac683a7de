"""What each build records per objective: consistency always (null when nothing can be judged),
accuracy only for built mixes with verdicts."""

from __future__ import annotations

import duckdb

from lakemix.objectives import parse_objectives, wilson_lower_bound
from lakemix.objectives.config import VAR
from lakemix.objectives.per_build import build_rows, built_mixes
from tests.unit.objectives.test_consistency import documents, fill

DECLARED = {
    "completeness": {"columns": {"fct_clean_documents": ["language"]}},  # the hook's SQL
    "consistency": {"min_documents": 10, "fields": {"url_share": {}, "pii_share": {}}},
    "accuracy": {"min_good_share": 0.8, "confidence": 0.9},
}


def linked_and_bare(conn: duckdb.DuckDBPyConnection, n: int) -> None:
    """``n`` English documents of source a, all with a URL, and ``n`` of b without."""
    for source, with_url in (("a", n), ("b", 0)):
        fill(conn, documents(source, "en", n, with_url=with_url, tokens=25, scores=[0.9]))


def test_consistency_then_accuracy_once_verdicts_exist(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    linked_and_bare(conn, 20)
    objectives = parse_objectives({VAR: DECLARED})
    url = {"metric": "consistency_deviation", "dimension": "url_share", "language": None}
    pii = {"metric": "consistency_deviation", "dimension": "pii_share", "language": None}
    assert build_rows(conn, objectives) == [
        {**url, "document_count": None, "value": 0.5, "note": "fail"},
        {**pii, "document_count": None, "value": 0.0, "note": "pass"},
    ]

    # A built mix (its _languages table is not a mix) and verdicts on 9 of its documents.
    conn.execute(
        "create table marts.mix_m as select document_id from marts.fct_clean_documents "
        "order by document_id limit 12"
    )
    conn.execute("create table marts.mix_m_languages (language varchar)")
    assert built_mixes(conn) == ["m"]
    conn.execute("create schema meta")
    conn.execute(
        "create table meta.review_verdicts (document_id varchar, reviewer varchar, "
        "verdict varchar, labeled_at timestamp)"
    )
    conn.execute(
        "insert into meta.review_verdicts select document_id, 'ana', 'good', now() "
        "from marts.mix_m order by document_id limit 9"
    )
    measured = build_rows(conn, objectives)
    assert measured[-1] == {
        "metric": "accuracy_lower_bound",
        "dimension": "m",
        "language": None,
        "document_count": 9,
        "value": wilson_lower_bound(9, 9, 0.9),
        "note": "pass",
    }
    assert len(measured) == 3


def test_a_source_too_small_is_recorded_as_not_measured(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    linked_and_bare(conn, 3)
    only = {"consistency": DECLARED["consistency"]}
    assert [r["value"] for r in build_rows(conn, parse_objectives({VAR: only}))] == [None, None]
