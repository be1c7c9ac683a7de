"""Manual validation of a mix: the Wilson lower bound on the share of its documents found good.

A verdict counts for a document of the mix when it was given on the same content: verdicts
record the MD5 of the text the reviewer saw (``content_md5``), and one on text that changed since
is stale. Verdicts recorded without it count by document id. Each reviewer's latest verdict on a
document counts; a document is good when more of its reviewers say good than bad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

from lakemix.tables import CLEAN_DOCUMENTS, REVIEW_VERDICTS, split

if TYPE_CHECKING:
    import duckdb


def z_score(confidence: float) -> float:
    """The one-sided normal quantile of ``confidence`` (0.95 -> 1.645)."""
    return NormalDist().inv_cdf(confidence)


def wilson_lower_bound(good: int, total: int, confidence: float) -> float:
    """Wilson score interval's lower bound on a proportion, one-sided at ``confidence``.

    ``(p + z²/2n - z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``p = good/total``; 0 when
    nothing was reviewed.
    """
    if total <= 0:
        return 0.0
    z = z_score(confidence)
    p = good / total
    centre = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return (centre - spread) / (1 + z * z / total)


def verdicts_needed(good: int, total: int, target: float, confidence: float) -> int:
    """How many more verdicts, all good, lift the lower bound to ``target`` (0 if it is there).

    With no bad verdict the bound is ``n / (n + z²)``, so ``n >= target·z² / (1 - target)``:
    133 at 98% and 95% confidence.
    """
    if not 0 < target < 1:
        raise ValueError(f"target must be in (0, 1), got {target!r}")
    if wilson_lower_bound(good, total, confidence) >= target:
        return 0
    high = 1
    while wilson_lower_bound(good + high, total + high, confidence) < target:
        high *= 2
    low = high // 2  # bound(low) < target <= bound(high); the bound rises with k
    while high - low > 1:
        middle = (low + high) // 2
        if wilson_lower_bound(good + middle, total + middle, confidence) >= target:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class Validation:
    """What reviewers said about the documents of a mix."""

    documents: int  # distinct documents in the mix
    reviewed: int  # of them, with a counting verdict
    good: int
    stale: int  # documents whose only verdicts are on content that changed since
    lower_bound: float
    needed: int  # more good verdicts to reach the target
    passed: bool


def has_verdicts(conn: duckdb.DuckDBPyConnection) -> bool:
    """Whether the session has the ``meta.review_verdicts`` view (nothing recorded yet: no)."""
    row = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        list(split(REVIEW_VERDICTS)),
    ).fetchone()
    return bool(row and row[0])


def verdict_columns(conn: duckdb.DuckDBPyConnection) -> set[str]:
    """Columns of ``meta.review_verdicts`` (older tables lack ``content_md5``)."""
    rows = conn.execute(
        "select column_name from information_schema.columns "
        "where table_schema = ? and table_name = ?",
        list(split(REVIEW_VERDICTS)),
    ).fetchall()
    return {str(r[0]) for r in rows}


def document_verdicts_sql(mix_relation: str, columns: set[str]) -> str:
    """One row per document of the mix that has verdicts: reviewers, good and bad among them,
    and whether a verdict counts (its content is the document's current one)."""
    md5 = "v.content_md5" if "content_md5" in columns else "cast(null as varchar)"
    return f"""
        with mix_documents as (
            select distinct document_id from {mix_relation}
        ),
        latest_per_reviewer as (
            select document_id, reviewer, verdict, {md5} as content_md5
            from {REVIEW_VERDICTS} as v
            where document_id in (select document_id from mix_documents)
            qualify row_number() over (
                partition by document_id, reviewer order by labeled_at desc
            ) = 1
        ),
        judged as (
            select
                l.document_id,
                l.verdict,
                l.content_md5 is null or l.content_md5 = md5(c.text) as is_current
            from latest_per_reviewer as l
            inner join {CLEAN_DOCUMENTS} as c using (document_id)
        )
        select
            document_id,
            count_if(is_current and verdict = 'good') as good_count,
            count_if(is_current and verdict = 'bad') as bad_count,
            count_if(is_current) as current_count
        from judged
        group by document_id
    """


def measure(
    conn: duckdb.DuckDBPyConnection,
    mix_relation: str,
    *,
    min_good_share: float,
    confidence: float,
) -> Validation:
    """The validation of the documents of ``mix_relation`` (a table or view with document_id).

    Needs ``marts.fct_clean_documents`` in the session, and ``meta.review_verdicts`` if any
    verdict was recorded.
    """
    row = conn.execute(f"select count(distinct document_id) from {mix_relation}").fetchone()
    documents = int(row[0]) if row else 0
    good = reviewed = stale = 0
    if has_verdicts(conn):
        sql = document_verdicts_sql(mix_relation, verdict_columns(conn))
        counts = conn.execute(
            f"""
            select
                count_if(current_count > 0),
                count_if(current_count > 0 and good_count > bad_count),
                count_if(current_count = 0)
            from ({sql})
            """
        ).fetchone()
        if counts:
            reviewed, good, stale = (int(v or 0) for v in counts)
    bound = wilson_lower_bound(good, reviewed, confidence)
    needed = verdicts_needed(good, reviewed, min_good_share, confidence)
    return Validation(
        documents=documents,
        reviewed=reviewed,
        good=good,
        stale=stale,
        lower_bound=bound,
        needed=needed,
        passed=needed == 0,
    )
