"""What each build records per objective: consistency always (null when nothing can be judged),
accuracy only for built mixes with verdicts."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest

from lakemix.objectives import parse_objectives, wilson_lower_bound
from lakemix.objectives.config import VAR
from lakemix.objectives.per_build import build_rows, built_mixes
from tests.unit.objectives.test_consistency import documents

DECLARED = {
    "completeness": {"columns": {"fct_clean_documents": ["language"]}},  # the hook's SQL
    "consistency": {"min_documents": 10, "fields": {"url_share": {}, "pii_share": {}}},
    "accuracy": {"min_good_share": 0.8, "confidence": 0.9},
}


@pytest.fixture
def session() -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect()
    conn.execute("create schema marts")
    conn.execute(
        "create table marts.fct_clean_documents (document_id varchar, source_id varchar, "
        "language varchar, url varchar, token_count bigint, character_count bigint, "
        "language_score double, pii_email_count bigint, pii_ip_address_count bigint, "
        "pii_phone_number_count bigint, pii_credit_card_count bigint, text varchar)"
    )
    yield conn
    conn.close()


def test_consistency_then_accuracy_once_verdicts_exist(
    session: duckdb.DuckDBPyConnection,
) -> None:
    rows = documents("a", "en", 20, with_url=20, tokens=25, scores=[0.9])
    rows += documents("b", "en", 20, with_url=0, tokens=25, scores=[0.9])
    session.executemany(
        "insert into marts.fct_clean_documents values (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 'x')", rows
    )
    objectives = parse_objectives({VAR: DECLARED})
    url = {"metric": "consistency_deviation", "dimension": "url_share", "language": None}
    pii = {"metric": "consistency_deviation", "dimension": "pii_share", "language": None}
    assert build_rows(session, objectives) == [
        {**url, "document_count": None, "value": 0.5, "note": "fail"},
        {**pii, "document_count": None, "value": 0.0, "note": "pass"},
    ]

    # A built mix (its _languages table is not a mix) and verdicts on 9 of its documents.
    session.execute(
        "create table marts.mix_m as select document_id from marts.fct_clean_documents "
        "order by document_id limit 12"
    )
    session.execute("create table marts.mix_m_languages (language varchar)")
    assert built_mixes(session) == ["m"]
    session.execute("create schema meta")
    session.execute(
        "create table meta.review_verdicts (document_id varchar, reviewer varchar, "
        "verdict varchar, labeled_at timestamp)"
    )
    session.execute(
        "insert into meta.review_verdicts select document_id, 'ana', 'good', now() "
        "from marts.mix_m order by document_id limit 9"
    )
    measured = build_rows(session, objectives)
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
    session: duckdb.DuckDBPyConnection,
) -> None:
    small = documents("a", "en", 3, with_url=3, tokens=25, scores=[0.9])
    small += documents("b", "en", 3, with_url=0, tokens=25, scores=[0.9])
    session.executemany(
        "insert into marts.fct_clean_documents values (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 'x')", small
    )
    only = {"consistency": DECLARED["consistency"]}
    assert [r["value"] for r in build_rows(session, parse_objectives({VAR: only}))] == [None, None]
