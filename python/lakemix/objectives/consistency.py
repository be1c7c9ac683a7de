"""Consistency across sources: each source's value of a field against all sources of its language.

Sources are compared within a language (a source of Finnish text is not expected to look like
one of English text). For a language with at least two sources, each source with at least
``min_documents`` documents of that language is judged; its deviation is

- rate (a share of documents, e.g. with a URL): ``|p_source - p_all|`` in absolute terms,
  so 0.01 is one percentage point;
- mean (a per-document ratio, e.g. tokens per character): ``|m_source - m_all| / |m_all|``,
  relative, so 0.01 is 1% of the mean;
- distribution (e.g. the language score): the Kolmogorov-Smirnov distance
  ``max_x |F_source(x) - F_all(x)|`` between the empirical distribution functions, so 0.01
  means no cut point puts more than 1% of the documents on a different side.

``_all`` is the pooled value over every source of the language, the judged source included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.objectives.config import ConsistencyField
from lakemix.tables import CLEAN_DOCUMENTS, DOCUMENT_REJECTIONS

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class SourceDeviation:
    """One (language, source) of a field: its value, the language's pooled value, the gap."""

    field: str
    language: str
    source_id: str
    documents: int
    value: float
    pooled: float
    deviation: float
    passed: bool

    def describe(self) -> str:
        """``source oscar, language de: url_share 0.412 against 0.305 (deviation 0.107)``."""
        return (
            f"source {self.source_id}, language {self.language}: {self.field} "
            f"{self.value:.4g} against {self.pooled:.4g} over all its sources "
            f"(deviation {self.deviation:.4g})"
        )


def population_sql(spec: ConsistencyField) -> str:
    """(language, source_id, value) per document the field is measured on."""
    if spec.name == "duplicate_rate" and spec.kind == "rate":
        # Of the documents that passed the rules: the share removed as duplicates.
        return f"""
            select language, source_id, 0.0 as value from {CLEAN_DOCUMENTS}
            union all
            select language, source_id, 1.0 as value from {DOCUMENT_REJECTIONS}
            where duplicate_of_document_id is not null
        """
    return f"""
        select language, source_id, cast(({spec.expression}) as double) as value
        from {CLEAN_DOCUMENTS}
    """


def _ks_distance(sample: np.ndarray[Any, Any], pooled: np.ndarray[Any, Any]) -> float:
    """Largest gap between two empirical CDFs (both sorted), checked at every pooled value."""
    points = pooled  # the sample's values are among the pooled ones
    f_sample = np.searchsorted(sample, points, side="right") / len(sample)
    f_pooled = np.searchsorted(pooled, points, side="right") / len(pooled)
    return float(np.max(np.abs(f_sample - f_pooled)))


def _groups(
    conn: duckdb.DuckDBPyConnection, spec: ConsistencyField
) -> dict[str, dict[str, np.ndarray[Any, Any]]]:
    """Each (language, source)'s values, sorted: what a distribution's KS distance needs."""
    rows = conn.execute(
        f"""
        select language, source_id, list(value order by value)
        from ({population_sql(spec)})
        where value is not null and isfinite(value) and language is not null
        group by all
        order by all
        """
    ).fetchall()
    grouped: dict[str, dict[str, np.ndarray[Any, Any]]] = {}
    for language, source, values in rows:
        grouped.setdefault(str(language), {})[str(source)] = np.asarray(values, dtype=float)
    return grouped


def _moments(
    conn: duckdb.DuckDBPyConnection, spec: ConsistencyField
) -> dict[str, dict[str, tuple[int, float]]]:
    """Each (language, source)'s documents and sum of values: all a rate or a mean needs (its
    values are not brought to Python: listing them cost 2 s of the build's hook on 1M documents
    for the duplicate rate alone)."""
    rows = conn.execute(
        f"""
        select language, source_id, count(*), sum(value)
        from ({population_sql(spec)})
        where value is not null and isfinite(value) and language is not null
        group by all
        order by all
        """
    ).fetchall()
    grouped: dict[str, dict[str, tuple[int, float]]] = {}
    for language, source, count, total in rows:
        grouped.setdefault(str(language), {})[str(source)] = (int(count), float(total))
    return grouped


def deviations(
    conn: duckdb.DuckDBPyConnection, spec: ConsistencyField, *, min_documents: int
) -> list[SourceDeviation]:
    """Every judged (language, source) of the field, largest deviation first.

    Needs ``marts.fct_clean_documents`` (and for ``duplicate_rate``
    ``marts.fct_document_rejections``) in the session.
    """
    found: list[SourceDeviation] = []

    def judged(language: str, source: str, documents: int, value: float, whole: float,
               deviation: float) -> None:  # fmt: skip
        found.append(
            SourceDeviation(
                field=spec.name,
                language=language,
                source_id=source,
                documents=documents,
                value=value,
                pooled=whole,
                deviation=deviation,
                passed=deviation <= spec.max_deviation,
            )
        )

    if spec.kind == "distribution":
        for language, sources in _groups(conn, spec).items():
            if len(sources) < 2:
                continue  # nothing to compare with
            pooled = np.sort(np.concatenate(list(sources.values())))
            for source, values in sources.items():
                if len(values) >= min_documents:
                    judged(language, source, len(values), float(np.median(values)),
                           float(np.median(pooled)), _ks_distance(values, pooled))  # fmt: skip
        return sorted(found, key=lambda d: (-d.deviation, d.language, d.source_id))
    for language, moments in _moments(conn, spec).items():
        if len(moments) < 2:
            continue
        whole = sum(t for _, t in moments.values()) / sum(n for n, _ in moments.values())
        for source, (count, total) in moments.items():
            if count < min_documents:
                continue
            value = total / count
            gap = abs(value - whole)
            judged(language, source, count, value, whole,
                   gap if spec.kind == "rate" or whole == 0 else gap / abs(whole))  # fmt: skip
    return sorted(found, key=lambda d: (-d.deviation, d.language, d.source_id))
