"""CLI commands of tracked runs: ``lakemix runs`` and ``lakemix compare``."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import click

from lakemix.report import table

URI_OPTION = click.option(
    "--tracking-uri",
    envvar="MLFLOW_TRACKING_URI",
    help="MLflow tracking server (default: $MLFLOW_TRACKING_URI).",
)


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


@click.command("runs")
@click.option("--release", "tag", metavar="TAG", help="Only the runs that trained on release TAG.")
@click.option("--metric", metavar="NAME", help="Show this metric only, and sort by it.")
@click.option(
    "--experiment",
    envvar="MLFLOW_EXPERIMENT_NAME",
    help="Only this MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else all).",
)
@URI_OPTION
def runs_command(
    tag: str | None, metric: str | None, experiment: str | None, tracking_uri: str | None
) -> None:
    """Training runs tracked in MLflow, with the release each read and its metrics."""
    from lakemix.settings import Settings
    from lakemix.tracking.runs import ReleaseProblem, find_runs, release_problem

    found = find_runs(tag, experiment=experiment, uri=tracking_uri)
    if not found:
        which = f"on release {tag}" if tag else "on a lakemix release"
        click.echo(f"no tracked run trained {which} (train with MLFLOW_TRACKING_URI set)")
        return
    if metric is not None:
        if not any(metric in run.metrics for run in found):
            logged = sorted({name for run in found for name in run.metrics})
            raise click.BadParameter(
                f"no run logged {metric!r} (logged: {', '.join(logged) or 'none'})",
                param_hint="--metric",
            )
        found.sort(key=lambda run: (metric not in run.metrics, run.metrics.get(metric, 0.0)))
    settings = Settings.from_env()
    problems: dict[tuple[str, str], ReleaseProblem | None] = {}
    rows = []
    for run in found:
        key = (run.release, run.checksum)
        if key not in problems:
            problems[key] = release_problem(*key, settings, where=run.lakehouse)
        problem = problems[key]
        state = "ok" if problem is None else problem.kind
        if metric is not None:
            shown = _number(run.metrics.get(metric))
        else:
            shown = ", ".join(f"{k}={_number(v)}" for k, v in sorted(run.metrics.items()))
        started = _when(run.start_time)
        rows.append((run.run_id, run.name, run.status.lower(), started, run.release, state, shown))
    header = ("run", "name", "status", "started (UTC)", "release", "data", metric or "metrics")
    table(rows, header, sys.stdout)
    for (release, checksum), problem in problems.items():
        if problem is not None:
            click.echo(f"release {release} ({checksum}): {problem}")


@click.command("show")
@click.argument("tag")
@URI_OPTION
@click.pass_context
def show_command(ctx: click.Context, tag: str, tracking_uri: str | None) -> None:
    """Print the manifest of release TAG: snapshots, config, versions, tokens per language; and,
    with a tracking server (MLFLOW_TRACKING_URI), the runs that trained on it."""
    from lakemix.tracking.runs import TrackingError, find_runs
    from lakemix.versions.commands import show_command as show_release

    ctx.invoke(show_release, tag=tag)
    if not tracking_uri:
        return
    click.echo("")
    try:
        found = find_runs(tag, uri=tracking_uri)
    except TrackingError as exc:  # the release is shown: say why the runs are not
        click.echo(f"tracked runs: none listed: {exc}")
        return
    if not found:
        click.echo(f"tracked runs: none trained on {tag} at {tracking_uri}")
        return
    click.echo(f"tracked runs on {tag} ({tracking_uri}):")
    rows = [(r.run_id, r.name, r.status.lower(), _when(r.start_time), r.checksum) for r in found]
    table(rows, ("run", "name", "status", "started (UTC)", "checksum"), sys.stdout)


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@URI_OPTION
def compare_command(run_a: str, run_b: str, tracking_uri: str | None) -> None:
    """Two tracked runs side by side, and the data difference of their releases.

    RUN_A, RUN_B: MLflow run ids (mlflow:ID or ID; `lakemix runs` lists them). The data
    difference is what `lakemix diff A's-release B's-release` says: documents and tokens added
    or removed per language and source, and why (new data, a filter, deduplication, sampling).
    """
    from lakemix.tracking.compare import compare
    from lakemix.versions.commands import print_diff

    result = compare(run_a, run_b, uri=tracking_uri)
    a, b = result.a, result.b
    for label, run in (("A", a), ("B", b)):
        click.echo(
            f"{label}: run {run.run_id} ({run.name or 'unnamed'}, {run.status.lower()}), "
            f"release {run.release} of {run.mix}, checksum {run.checksum}"
        )
    click.echo("")
    rows = [
        (name, _number(x), _number(y), "-" if x is None or y is None else f"{y - x:+.6g}")
        for name, x, y in result.metrics
    ]
    if rows:
        table(rows, ("metric", "A", "B", "B - A"), sys.stdout)
    else:
        click.echo("no metrics logged by either run")
    if result.params:
        click.echo("")
        params = [(name, x or "-", y or "-") for name, x, y in result.params]
        table(params, ("setting", "A", "B"), sys.stdout)
    click.echo("")
    if result.problem is not None:
        click.echo(f"data: cannot explain the difference: {result.problem}")
    elif result.same_data:
        click.echo(f"data: the same release ({a.release}, checksum {a.checksum}) in both runs")
    else:
        click.echo(f"data: release {a.release} (A) -> {b.release} (B), as `lakemix diff` says:")
        print_diff(result.data, a.release, b.release)
