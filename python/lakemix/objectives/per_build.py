"""Each objective as measured by a build, for ``meta.build_stats`` and the report's trend.

Completeness is measured in SQL by the build's own hook (macro ``build_layer_stats``, metric
``missing_fraction``); consistency and accuracy need Python (a Kolmogorov-Smirnov distance, a
Wilson bound), so the hook hands the declared objectives to the dbt plugin, which measures them
here on a session over the lakehouse as the build left it. Accuracy is recorded for each built
mix that has verdicts on its documents.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from lakemix import tables
from lakemix.objectives import validation
from lakemix.objectives.config import Objectives
from lakemix.objectives.evaluate import ObjectiveResult, accuracy, evaluate

if TYPE_CHECKING:
    import duckdb

# meta.build_stats metric of each objective kind; the dimension is the objective's name
# (mart.column, field, mix).
BUILD_METRICS = {
    "completeness": "missing_fraction",
    "consistency": "consistency_deviation",
    "accuracy": "accuracy_lower_bound",
}


def built_mixes(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the mixes built in the session (``marts.mix_<name>``, not their languages)."""
    rows = conn.execute(
        "select table_name from information_schema.tables where table_schema = ? "
        "order by table_name",
        [tables.MARTS],
    ).fetchall()
    return [mix for r in rows if (mix := tables.mix_of(str(r[0]))) is not None]


def _row(result: ObjectiveResult, documents: int | None) -> dict[str, Any]:
    return {
        "metric": BUILD_METRICS[result.objective],
        "dimension": result.name,
        "language": None,
        "document_count": documents,
        "value": result.measured,
        "note": "pass" if result.passed else "fail",
    }


def build_rows(conn: duckdb.DuckDBPyConnection, objectives: Objectives) -> list[dict[str, Any]]:
    """Rows of ``meta.build_stats`` (without invocation and time) for the consistency fields
    (value: the largest deviation, null when not measured) and the accuracy of every built mix
    with verdicts (value: the Wilson lower bound; document_count: documents reviewed).

    Needs the marts (and ``meta.review_verdicts``, if any verdict was recorded) in ``conn``.
    """
    rows = [
        _row(r, None) for r in evaluate(conn, dataclasses.replace(objectives, completeness=None))
    ]
    if objectives.accuracy is None or not validation.has_verdicts(conn):
        return rows
    for mix in built_mixes(conn):
        measured = accuracy(conn, objectives, mix=mix)
        if measured is not None and measured[1].reviewed:
            rows.append(_row(measured[0], measured[1].reviewed))
    return rows
