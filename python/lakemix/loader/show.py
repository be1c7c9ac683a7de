"""``lakemix show``: a release (``lakemix.tracking``'s command), and with ``--run`` what a
training run read: its release and, for a dynamic mix, its weights over the run."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from lakemix.loader.runs import read_run_record
from lakemix.loader.trajectory import trajectory_plot, trajectory_table
from lakemix.tracking.commands import URI_OPTION
from lakemix.tracking.commands import show_command as show_release


def show_run(run: str, *, width: int = 60, tracking_uri: str | None = None) -> list[str]:
    """Lines of ``lakemix show --run RUN``: the run's release, samples and steps, and for a
    dynamic mix the epochs read of each group, the weights where they changed and a plot of
    each group's weight over the run's tokens.

    Args:
        run: A run folder (its ``run.json``), or ``mlflow:RUN_ID`` (the run record it logged).
        width: Columns of the plot.
        tracking_uri: The MLflow server of an ``mlflow:`` run (default: MLFLOW_TRACKING_URI).

    Raises:
        RunRecordError: The folder holds no run record.
        TrackingError: The MLflow run cannot be read or logged no run record.
    """
    from lakemix.tracking.runs import PREFIX, fetch_record

    with tempfile.TemporaryDirectory(prefix="lakemix-run-") as tmp:
        tracked = run.startswith(PREFIX)
        folder = fetch_record(run, tmp, uri=tracking_uri).parent if tracked else Path(run)
        record = read_run_record(folder)
    ranks = len(record["loader"])
    lines = [
        f"run {run}: release {record['tag']} ({record['mix']}, checksum {record['checksum']}), "
        f"split {record['split']}, seed {record['seed']}, {ranks} rank{'s' if ranks > 1 else ''}",
        f"samples seen: {record['samples_seen']}"
        + (f", steps: {record['steps']}" if "steps" in record else "")
        + (f", policy: {record['policy']}" if "policy" in record else ""),
    ]
    if "groups_by" not in record:
        lines.append(
            "a static mix: its weights did not change over the run "
            f"(lakemix show {record['tag']} gives the release's tokens per language)"
        )
        return lines
    epochs = ", ".join(f"{g} {e:.2f}" for g, e in sorted(record["group_epochs"].items()))
    lines += [
        f"groups by {record['groups_by']}, epochs read: {epochs}",
        "",
        "weights where they changed:",
        *trajectory_table(record),
        "",
        *trajectory_plot(record, width),
    ]
    return lines


@click.command("show")
@click.argument("tag", required=False)
@click.option(
    "--run",
    metavar="DIR|mlflow:RUN_ID",
    help="A training run (its folder with run.json, or a run tracked in MLflow): its release, "
    "and for a dynamic mix each group's weight over the run, as a table and a plot.",
)
@click.option("--width", default=60, show_default=True, help="Columns of the weights plot.")
@URI_OPTION
@click.pass_context
def show_command(
    ctx: click.Context, tag: str | None, run: str | None, width: int, tracking_uri: str | None
) -> None:
    """Print the manifest of release TAG: snapshots, config, versions, tokens per language; and,
    with a tracking server (MLFLOW_TRACKING_URI), the runs that trained on it. --run: what a
    training run read, and a dynamic mix's weights over the run (a table and a plot)."""
    if tag is None and run is None:
        raise click.UsageError("give a release TAG, --run DIR|mlflow:RUN_ID, or both")
    if width < 1:
        raise click.BadParameter(f"must be at least 1, got {width}", param_hint="--width")
    if run is not None:
        click.echo("\n".join(show_run(run, width=width, tracking_uri=tracking_uri)))
    if tag is not None:
        if run is not None:
            click.echo("")
        ctx.invoke(show_release, tag=tag, tracking_uri=tracking_uri)
