"""Measure every declared objective on a DuckDB session over the lakehouse (now or released)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from lakemix import tables
from lakemix.objectives import consistency, validation
from lakemix.objectives.config import ObjectiveConfigError, Objectives

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class ObjectiveResult:
    """One objective as measured: what it asks, what was found, and whether it holds.

    ``measured`` is ``None`` when nothing could be measured (e.g. one source per language).
    """

    objective: str  # completeness, consistency or accuracy
    name: str  # e.g. fct_clean_documents.script, url_share, demo_unimax
    target: str  # e.g. "<= 0.005"
    measured: float | None
    passed: bool
    severity: str
    detail: str

    def as_dict(self) -> dict[str, Any]:
        """The manifest's form."""
        return asdict(self)


NOT_MEASURED = "not measured"


def outcome(result: Mapping[str, Any]) -> str:
    """How an objective's result reads (``ObjectiveResult.as_dict()``, as manifests keep it):
    ``pass``, ``not measured`` (nothing to measure, e.g. no language with two sources: it
    neither passes nor blocks) or ``FAIL (<severity>)``."""
    if result["measured"] is None and result["passed"]:
        return NOT_MEASURED
    return "pass" if result["passed"] else f"FAIL ({result['severity']})"


def summary(results: Sequence[Mapping[str, Any]]) -> str:
    """``3 pass, 1 not measured, 1 FAIL (warn)``: the outcomes counted, in that order."""
    counts: dict[str, int] = {}
    for result in results:
        counts[outcome(result)] = counts.get(outcome(result), 0) + 1
    order = sorted(counts, key=lambda o: (o != "pass", o != NOT_MEASURED, o))
    return ", ".join(f"{counts[o]} {o}" for o in order) or "none declared"


def _completeness(conn: duckdb.DuckDBPyConnection, objectives: Objectives) -> list[ObjectiveResult]:
    spec = objectives.completeness
    if spec is None:
        return []
    results = []
    for model, columns in spec.columns.items():
        present = {
            str(r[0])
            for r in conn.execute(
                "select column_name from information_schema.columns "
                "where table_schema = ? and table_name = ?",
                [tables.MARTS, model],
            ).fetchall()
        }
        if not present:
            raise ObjectiveConfigError(
                f"lakemix_quality_objectives.completeness.columns: no mart model {model!r} "
                "has been built (a model of models/marts)"
            )
        for column in columns:
            if column not in present:
                raise ObjectiveConfigError(
                    f"lakemix_quality_objectives.completeness.columns.{model}: {model} has no "
                    f"column {column!r} (it has {', '.join(sorted(present))})"
                )
            row = conn.execute(
                f'select count(*), count_if("{column}" is null) from {tables.MARTS}."{model}"'
            ).fetchone()
            total, missing = (int(v or 0) for v in row) if row else (0, 0)
            share = missing / total if total else 0.0
            results.append(
                ObjectiveResult(
                    objective="completeness",
                    name=f"{model}.{column}",
                    target=f"<= {spec.max_missing_fraction:g}",
                    measured=share,
                    passed=share <= spec.max_missing_fraction,
                    severity=spec.severity,
                    detail=f"{missing:,} of {total:,} rows null",
                )
            )
    return results


def _consistency(conn: duckdb.DuckDBPyConnection, objectives: Objectives) -> list[ObjectiveResult]:
    spec = objectives.consistency
    if spec is None:
        return []
    results = []
    for field in spec.fields:
        found = consistency.deviations(conn, field, min_documents=spec.min_documents)
        failing = [d for d in found if not d.passed]
        if not found:
            detail = (
                f"not measured: no language has two sources with >= {spec.min_documents} documents"
            )
        elif failing:
            detail = "; ".join(d.describe() for d in failing)
        else:
            worst = found[0]
            detail = f"{len(found)} (language, source) pairs; largest: {worst.describe()}"
        results.append(
            ObjectiveResult(
                objective="consistency",
                name=field.name,
                target=f"<= {field.max_deviation:g} ({field.kind})",
                measured=found[0].deviation if found else None,
                passed=not failing,
                severity=spec.severity,
                detail=detail,
            )
        )
    return results


def accuracy(
    conn: duckdb.DuckDBPyConnection, objectives: Objectives, *, mix: str
) -> tuple[ObjectiveResult, validation.Validation] | None:
    """The accuracy objective on the kept documents of ``marts.mix_<mix>``, if declared."""
    spec = objectives.accuracy
    if spec is None:
        return None
    found = validation.measure(
        conn,
        tables.mix_table(mix),
        min_good_share=spec.min_good_share,
        confidence=spec.confidence,
    )
    detail = (
        f"{found.good:,} good of {found.reviewed:,} reviewed ({found.documents:,} documents in "
        f"the mix); Wilson lower bound at {spec.confidence:g} confidence"
    )
    if found.stale:
        detail += f"; {found.stale:,} documents have only verdicts on content that changed since"
    if found.needed:
        detail += f"; {found.needed:,} more good verdicts needed"
    result = ObjectiveResult(
        objective="accuracy",
        name=mix,
        target=f">= {spec.min_good_share:g}",
        measured=found.lower_bound if found.reviewed else None,
        passed=found.passed,
        severity=spec.severity,
        detail=detail,
    )
    return result, found


def evaluate(
    conn: duckdb.DuckDBPyConnection, objectives: Objectives, *, mix: str | None = None
) -> list[ObjectiveResult]:
    """Completeness and consistency, and accuracy when ``mix`` is given, as declared."""
    results = _completeness(conn, objectives) + _consistency(conn, objectives)
    if mix is not None:
        measured = accuracy(conn, objectives, mix=mix)
        if measured is not None:
            results.append(measured[0])
    return results
