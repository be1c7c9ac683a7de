"""The report's first section: each declared objective, measured now (or as released), with its
values in earlier releases and in every build that measured it (meta.build_stats)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakemix import tables
from lakemix.objectives.config import parse_objectives
from lakemix.objectives.evaluate import accuracy, evaluate
from lakemix.objectives.per_build import BUILD_METRICS, built_mixes
from lakemix.settings import Settings, project_root
from lakemix.versions import builds
from lakemix.versions.release import get_release, list_releases

if TYPE_CHECKING:
    import duckdb


def _declared(tag: str | None, settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """(vars, mixes): a release's recorded vars and mix, or the project's vars merged with the
    --vars of the build that wrote the current clean documents (``builds.data_vars``) and every
    mix built."""
    if tag is not None:
        manifest = get_release(tag, settings)
        return dict(manifest.vars), [manifest.mix]
    root = project_root()
    if root is None:
        return {}, []
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

    from lakemix.catalog import catalog

    try:
        return builds.data_vars(catalog(settings), settings, root), []
    except (builds.BuildStateError, NoSuchTableError, NoSuchNamespaceError):
        return builds.project_vars(root, {}), []  # nothing built yet


def _trend(tag: str | None, settings: Settings) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Per (objective, name): measured value in each release (up to ``tag``), oldest first."""
    trend: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for manifest in list_releases(settings):
        for result in manifest.objectives.get("results", []):
            key = (result["objective"], result["name"])
            trend.setdefault(key, []).append(
                {"tag": manifest.tag, "measured": result["measured"], "passed": result["passed"]}
            )
        if manifest.tag == tag:
            break
    return trend


def _build_trend(
    conn: duckdb.DuckDBPyConnection,
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Per (objective, name): its value in each build that measured it (meta.build_stats),
    oldest first; ``measured`` is None where a build could not measure it."""
    present = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        list(tables.split(tables.BUILD_STATS)),
    ).fetchone()
    if not present or not present[0]:
        return {}
    objective_of = {metric: objective for objective, metric in BUILD_METRICS.items()}
    rows = conn.execute(
        f"select metric, dimension, recorded_at, value from {tables.BUILD_STATS} "
        "where list_contains(?, metric) order by recorded_at, metric, dimension",
        [list(objective_of)],
    ).fetchall()
    trend: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for metric, dimension, recorded_at, value in rows:
        trend.setdefault((objective_of[str(metric)], str(dimension)), []).append(
            {"recorded_at": str(recorded_at), "measured": None if value is None else float(value)}
        )
    return trend


def objective_rows(
    conn: duckdb.DuckDBPyConnection, *, tag: str | None, settings: Settings
) -> list[dict[str, Any]]:
    """Every declared objective: target, measured, passed, severity, detail and its trend.

    At a tag the release's own record is shown as it was (with the override reason, if any);
    now, the objectives are measured on ``conn``, accuracy for every built mix.
    """
    trend = _trend(tag, settings)
    builds_trend = _build_trend(conn)
    if tag is not None:
        recorded = get_release(tag, settings).objectives
        results = list(recorded.get("results", []))
        reason = recorded.get("accepted_unvalidated")
    else:
        variables, _ = _declared(None, settings)
        objectives = parse_objectives(variables)
        measured = evaluate(conn, objectives)
        for mix in built_mixes(conn):
            found = accuracy(conn, objectives, mix=mix)
            if found is not None:
                measured.append(found[0])
        results = [r.as_dict() for r in measured]
        reason = None
    rows = []
    for result in results:
        history = trend.get((result["objective"], result["name"]), [])
        detail = result["detail"]
        if result["objective"] == "accuracy" and reason:
            detail += f"; released with --accept-unvalidated: {reason}"
        per_build = builds_trend.get((result["objective"], result["name"]), [])
        rows.append({**result, "detail": detail, "trend": history, "build_trend": per_build})
    return rows
