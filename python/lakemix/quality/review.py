"""Manual validation: a stratified sample of decisions to review, and the reviewers' verdicts.

A reviewer says whether a document is ``good`` training text or ``bad``; a filter's precision is
the share of the documents it rejected that reviewers call bad (the report shows it).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from lakemix import tables
from lakemix.errors import LakemixError
from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.objectives.validation import document_verdicts_sql, verdict_columns
from lakemix.settings import Settings

if TYPE_CHECKING:
    import duckdb
    from pyiceberg.catalog import Catalog

VERDICTS = ("good", "bad")
SAMPLE_COLUMNS = (
    "document_id",
    "decision",
    "stratum_rule",
    "language",
    "source_id",
    "failed_rule_names",
    "excerpt",
    "content_md5",
    "verdict",
    "note",
    "quality_score",  # the trained model's score (empty where the build had none)
)
STRATEGIES = ("stratified", "random", "uncertainty", "disagreement")
DISAGREEMENT_CANDIDATES = 50_000  # documents whose signals disagreement reads, in hash order
VERDICT_SCHEMA = pa.schema(
    [
        ("document_id", pa.string()),
        ("verdict", pa.string()),  # good or bad
        ("reviewer", pa.string()),
        ("note", pa.string()),
        ("labeled_at", pa.timestamp("us", tz="UTC")),
        # MD5 of the text the reviewer saw: a verdict counts for a later release only while the
        # document's text is the same (null: recorded without it, counts by document id).
        ("content_md5", pa.string()),
    ]
)


class ReviewError(LakemixError, ValueError):
    """A bad sample size, verdict or review file."""


@dataclass(frozen=True)
class Verdict:
    """One reviewer's verdict on one document."""

    document_id: str
    verdict: str
    reviewer: str
    note: str = ""
    content_md5: str | None = None


KEPT_SQL = f"""
    select document_id, 'kept' as decision, '' as stratum_rule, language, source_id,
        cast([] as varchar[]) as failed_rule_names, text, quality_score
    from {tables.CLEAN_DOCUMENTS}
"""
REJECTED_SQL = f"""
    select
        r.document_id, 'rejected' as decision,
        unnest(r.failed_rule_names) as stratum_rule,
        r.language, r.source_id, r.failed_rule_names, d.text, s.quality_score
    from {tables.DOCUMENT_REJECTIONS} as r
    inner join {tables.LANGUAGE_SCORED} as d using (document_id)
    left join {tables.QUALITY_SCORED} as s using (document_id)
"""


def _candidates(conn: duckdb.DuckDBPyConnection, mix: str | None) -> str:
    """SQL of the documents to draw from: kept and rejected ones, or the kept documents of
    ``marts.mix_<mix>`` that have no verdict on their current text yet."""
    if mix is None:
        return f"{KEPT_SQL} union all by name {REJECTED_SQL}"
    relation = tables.mix_table(mix)
    exists = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        list(tables.split(relation)),
    ).fetchone()
    if not exists or not exists[0]:
        raise ReviewError(f"mix {mix!r} was never built: run `lakemix mix build {mix}`")
    columns = verdict_columns(conn)
    reviewed = (
        f"select document_id from ({document_verdicts_sql(relation, columns)}) "
        "where current_count > 0"
        if columns
        else "select cast(null as varchar) as document_id where false"
    )
    return f"""{KEPT_SQL}
        where document_id in (select document_id from {relation})
            and document_id not in ({reviewed})
    """


def sample(
    conn: duckdb.DuckDBPyConnection,
    *,
    n: int,
    seed: int = 0,
    excerpt_chars: int = 600,
    mix: str | None = None,
    strategy: str = "stratified",
) -> list[dict[str, str]]:
    """Draw up to ``n`` distinct documents to review, chosen by ``strategy``.

    ``stratified``: strata are (kept, language) and, for every rule a document failed,
    (rejected, rule, language); strata take turns, each giving its next document not drawn yet
    in a hash order of (seed, document_id), so small strata are represented. ``random``: that
    hash order over all documents. ``uncertainty``: the quality model's scores nearest 0.5 (its
    rule's default threshold) first, where a verdict teaches the model most. ``disagreement``:
    where the model (score >= 0.5) and the hand-set rule families (Gopher, C4, FineWeb, with the
    project's thresholds, computed from the stored signals) decide differently, the least
    certain first, then by uncertainty; it reads the signals of at most
    ``DISAGREEMENT_CANDIDATES`` documents in hash order. Every draw is reproducible.
    With ``mix``: only the kept documents of ``marts.mix_<mix>`` without a verdict on their
    current text (those its release gate still needs).

    Raises:
        ReviewError: A size under 1 or an unknown strategy.
    """
    if n < 1:
        raise ReviewError(f"the sample size must be at least 1, got {n}")
    if strategy not in STRATEGIES:
        raise ReviewError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if strategy != "stratified":
        return _ranked(conn, n=n, seed=seed, excerpt_chars=excerpt_chars, mix=mix, by=strategy)
    rows = conn.execute(
        f"""
        with candidates as ({_candidates(conn, mix)})
        select
            document_id, decision, stratum_rule, language, source_id,
            array_to_string(failed_rule_names, ' '), left(text, ?), md5(text), quality_score,
            row_number() over (
                partition by decision, stratum_rule, language
                order by md5(cast(? as varchar) || ':' || document_id)
            ) as turn
        from candidates
        order by turn, decision, stratum_rule, language
        """,
        [excerpt_chars, seed],
    ).fetchall()
    # Each stratum's documents in its hash order; strata take turns, each giving its next
    # document not drawn yet (a document that fails several rules is in several strata).
    queues: dict[tuple[str, str, str], list[tuple[object, ...]]] = {}
    for row in rows:  # ordered by turn, then stratum
        queues.setdefault((str(row[1]), str(row[2]), str(row[3])), []).append(row)
    chosen: dict[str, dict[str, str]] = {}
    positions = dict.fromkeys(queues, 0)
    while len(chosen) < n and positions:
        for stratum in list(positions):
            queue, k = queues[stratum], positions[stratum]
            while k < len(queue) and str(queue[k][0]) in chosen:
                k += 1
            if k == len(queue):
                del positions[stratum]
                continue
            row = queue[k]
            positions[stratum] = k + 1
            chosen[str(row[0])] = _row(row)
            if len(chosen) == n:
                break
    return list(chosen.values())


def _row(row: tuple[object, ...]) -> dict[str, str]:
    """A sample row from (id, decision, rule, language, source, rules, excerpt, md5, score)."""
    score = "" if row[8] is None else f"{float(row[8]):.4f}"  # type: ignore[arg-type]
    return dict(zip(SAMPLE_COLUMNS, [*map(str, row[:8]), "", "", score], strict=True))


def _ranked(
    conn: duckdb.DuckDBPyConnection,
    *,
    n: int,
    seed: int,
    excerpt_chars: int,
    mix: str | None,
    by: str,
) -> list[dict[str, str]]:
    """``n`` documents in the order of strategy ``by`` (see ``sample``)."""
    # disagreement reads up to DISAGREEMENT_CANDIDATES in hash order and ranks them in Python
    if by == "random":
        order, limit = "hashed", int(n)
    elif by == "uncertainty":
        order, limit = "abs(coalesce(quality_score, 1.5) - 0.5), hashed", int(n)
    else:
        order, limit = "hashed", DISAGREEMENT_CANDIDATES
    rows = conn.execute(
        f"""
        with candidates as ({_candidates(conn, mix)}),
        documents as (
            select
                document_id, any_value(decision) as decision,
                coalesce(min(stratum_rule), '') as stratum_rule,
                any_value(language) as language, any_value(source_id) as source_id,
                array_to_string(any_value(failed_rule_names), ' ') as failed_rule_names,
                left(any_value(text), ?) as excerpt, md5(any_value(text)) as content_md5,
                any_value(quality_score) as quality_score,
                md5(cast(? as varchar) || ':' || document_id) as hashed
            from candidates
            group by document_id
        )
        select * exclude (hashed) from documents
        order by {order}
        limit {limit}
        """,
        [excerpt_chars, seed],
    ).fetchall()
    if by != "disagreement":
        return [_row(row) for row in rows]
    rules = _rules_keep(conn, [str(r[0]) for r in rows], [str(r[3]) for r in rows])
    margin = [abs((1.5 if r[8] is None else float(r[8])) - 0.5) for r in rows]
    disagree = [
        k for k, r in enumerate(rows) if r[8] is not None and (float(r[8]) >= 0.5) != rules[k]
    ]
    chosen = set(disagree)
    rest = [k for k in range(len(rows)) if k not in chosen]
    ranked = sorted(disagree, key=lambda k: margin[k]) + sorted(rest, key=lambda k: margin[k])
    return [_row(rows[k]) for k in ranked[:n]]


def _rules_keep(
    conn: duckdb.DuckDBPyConnection, document_ids: list[str], languages: list[str]
) -> list[bool]:
    """Whether the hand-set rule families keep each document, from its stored signals."""
    import numpy as np

    from lakemix.quality.simulate import rules_keep_values

    if not document_ids:
        return []
    table = conn.execute(
        f"select * from {tables.QUALITY_SCORED} where document_id in "
        "(select unnest(cast(? as varchar[])))",
        [document_ids],
    ).fetch_arrow_table()
    at = {d: k for k, d in enumerate(table.column("document_id").to_pylist())}
    order = np.array([at[d] for d in document_ids])
    values = {
        name: table.column(name).cast("float64").to_numpy()[order]
        for name in table.column_names
        if name not in ("document_id", "language")
    }
    return [bool(k) for k in rules_keep_values(values, languages)]


def full_texts(conn: duckdb.DuckDBPyConnection, document_ids: list[str]) -> dict[str, str]:
    """The whole text of each document (kept: as redacted; rejected: normalized), by id; its
    MD5 is the sample's ``content_md5``."""
    if not document_ids:
        return {}
    rows = conn.execute(
        f"""
        select document_id, text from {tables.CLEAN_DOCUMENTS}
        where document_id in (select unnest(?))
        union all
        select document_id, text from {tables.LANGUAGE_SCORED}
        where document_id in (select unnest(?))
            and document_id not in (select document_id from {tables.CLEAN_DOCUMENTS})
        """,
        [document_ids, document_ids],
    ).fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def write_sample(rows: list[dict[str, str]], path: Path) -> None:
    """Write the sample as CSV with empty ``verdict`` and ``note`` columns to fill in."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=SAMPLE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def read_verdicts(path: Path, *, reviewer: str) -> list[Verdict]:
    """Verdicts of a filled-in sample CSV; rows with an empty verdict are skipped.

    Raises:
        ReviewError: Missing columns, or a verdict other than good/bad (with its line).
    """
    with path.open(newline="", encoding="utf-8") as source:
        reader = csv.DictReader(source)
        missing = {"document_id", "verdict"} - set(reader.fieldnames or ())
        if missing:
            raise ReviewError(f"{path} lacks the column(s) {', '.join(sorted(missing))}")
        verdicts = []
        for line, row in enumerate(reader, start=2):
            verdict = (row.get("verdict") or "").strip().lower()
            if not verdict:
                continue
            if verdict not in VERDICTS:
                raise ReviewError(
                    f"{path}:{line}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}"
                )
            verdicts.append(
                Verdict(
                    row["document_id"],
                    verdict,
                    reviewer,
                    (row.get("note") or "").strip(),
                    (row.get("content_md5") or "").strip() or None,
                )
            )
    return verdicts


def record(catalog: Catalog, verdicts: list[Verdict]) -> int:
    """Append verdicts to the Iceberg table meta.review_verdicts; returns how many."""
    if not verdicts:
        return 0
    now = datetime.now(UTC)
    table = pa.Table.from_pylist(
        [{**v.__dict__, "labeled_at": now} for v in verdicts], schema=VERDICT_SCHEMA
    )
    existing = ensure_table(catalog, tables.REVIEW_VERDICTS, VERDICT_SCHEMA)
    if "content_md5" not in existing.schema().column_names:  # recorded before content_md5
        with existing.update_schema() as update:
            update.union_by_name(VERDICT_SCHEMA)
    commit_with_retry(catalog, tables.REVIEW_VERDICTS, lambda t: t.append(table))
    return len(verdicts)


def record_new(catalog: Catalog, verdicts: list[Verdict]) -> int:
    """Record only verdicts that differ from the reviewer's latest on the document (verdict,
    note or content), so pulling the same annotations twice records nothing; returns how many."""
    from pyiceberg.exceptions import NoSuchTableError

    latest: dict[tuple[str, str], tuple[datetime, tuple[str, str, str | None]]] = {}
    try:
        rows = catalog.load_table(tables.REVIEW_VERDICTS).scan().to_arrow().to_pylist()
    except NoSuchTableError:
        rows = []
    for row in rows:
        key = (row["document_id"], row["reviewer"])
        stamp = row["labeled_at"]
        if key not in latest or stamp >= latest[key][0]:
            value = (row["verdict"], row["note"] or "", row.get("content_md5"))
            latest[key] = (stamp, value)
    fresh = [
        v
        for v in verdicts
        if latest.get((v.document_id, v.reviewer), (None, None))[1]
        != (v.verdict, v.note, v.content_md5)
    ]
    return record(catalog, fresh)


def default_sample_path(settings: Settings, seed: int) -> Path:
    """``<home>/reviews/sample-<seed>.csv``."""
    return settings.home / "reviews" / f"sample-{seed}.csv"
