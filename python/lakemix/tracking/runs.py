"""Tracked runs read back from MLflow: find them by release, fetch their run records, and
say whether the release each one read can still be read here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakemix.errors import LakemixError
from lakemix.settings import Settings
from lakemix.tracking.params import TAG_CHECKSUM, TAG_LAKEHOUSE, TAG_MIX, TAG_RELEASE
from lakemix.tracking.tracker import ARTIFACTS, reachable

PREFIX = "mlflow:"
MAX_RUNS = 1000


class TrackingError(LakemixError, RuntimeError):
    """No tracking server, an unknown run, or a run lakemix did not track."""


@dataclass(frozen=True)
class TrackedRun:
    """One MLflow run that trained on a release (its lakemix tags, params and last metrics)."""

    run_id: str
    name: str
    experiment_id: str
    status: str
    start_time: int  # ms since the epoch
    tags: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def release(self) -> str:
        return self.tags.get(TAG_RELEASE, "")

    @property
    def mix(self) -> str:
        return self.tags.get(TAG_MIX, "")

    @property
    def checksum(self) -> str:
        return self.tags.get(TAG_CHECKSUM, "")

    @property
    def lakehouse(self) -> str:
        return self.tags.get(TAG_LAKEHOUSE, "")


def tracking_uri(uri: str | None = None) -> str:
    """The tracking server to read: ``uri``, else ``MLFLOW_TRACKING_URI``; checked to answer.

    Raises:
        TrackingError: No URI, or the server does not answer.
    """
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI")
    if not uri:
        raise TrackingError(
            "no MLflow tracking server: set MLFLOW_TRACKING_URI (e.g. http://127.0.0.1:5000)"
        )
    why = reachable(uri)
    if why is not None:
        raise TrackingError(f"MLflow tracking server {why}: start it, or fix MLFLOW_TRACKING_URI")
    return uri


def _client(uri: str | None) -> Any:
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=tracking_uri(uri))


def _tracked(run: Any) -> TrackedRun:
    return TrackedRun(
        run_id=run.info.run_id,
        name=run.info.run_name or "",
        experiment_id=run.info.experiment_id,
        status=run.info.status,
        start_time=int(run.info.start_time or 0),
        tags=dict(run.data.tags),
        params=dict(run.data.params),
        metrics={k: float(v) for k, v in run.data.metrics.items()},
    )


def find_runs(
    release: str | None = None, *, experiment: str | None = None, uri: str | None = None
) -> list[TrackedRun]:
    """The tracked runs that trained on release ``release`` (on any when None), newest first.

    Args:
        release: A release tag.
        experiment: Search this experiment only (every experiment when None).
        uri: The tracking server (``MLFLOW_TRACKING_URI`` when None).

    Raises:
        TrackingError: No tracking server, or no such experiment.
    """
    client = _client(uri)
    if experiment is not None:
        found_experiment = client.get_experiment_by_name(experiment)
        if found_experiment is None:
            raise TrackingError(
                f"no MLflow experiment named {experiment!r} at {client.tracking_uri}"
            )
        experiments = [found_experiment.experiment_id]
    else:
        experiments = [e.experiment_id for e in client.search_experiments()]
    if not experiments:
        return []
    escaped = (release or "").replace("'", "\\'")
    where = f"tags.`{TAG_RELEASE}` = '{escaped}'" if release else f"tags.`{TAG_RELEASE}` LIKE '%'"
    found = client.search_runs(
        experiments, where, max_results=MAX_RUNS, order_by=["attributes.start_time DESC"]
    )
    return [_tracked(run) for run in found]


def run_id_of(ref: str) -> str:
    """``mlflow:ID`` or ``ID`` -> ``ID``."""
    run_id = ref.removeprefix(PREFIX)
    if not run_id:
        raise TrackingError(f"{ref!r} names no run: write mlflow:RUN_ID (`lakemix runs` lists)")
    return run_id


def get_run(ref: str, *, uri: str | None = None) -> TrackedRun:
    """The tracked run ``ref`` (``mlflow:ID`` or ``ID``).

    Raises:
        TrackingError: No such run, or a run that lakemix did not track.
    """
    from mlflow.exceptions import MlflowException

    run_id = run_id_of(ref)
    client = _client(uri)
    try:
        run = _tracked(client.get_run(run_id))
    except MlflowException as exc:
        raise TrackingError(
            f"no MLflow run {run_id} at {client.tracking_uri} ({exc.error_code}): `lakemix runs` "
            "lists the tracked runs"
        ) from None
    if not run.release:
        raise TrackingError(
            f"MLflow run {run_id} did not train on a lakemix release (it has no {TAG_RELEASE} "
            "tag): `lakemix runs` lists those that did"
        )
    return run


def fetch_record(ref: str, folder: str | Path, *, uri: str | None = None) -> Path:
    """Download the run record (``run.json``) run ``ref`` logged last into ``folder``.

    Raises:
        TrackingError: Not a tracked run, or one that logged no run record yet.
    """
    from mlflow.exceptions import MlflowException

    run = get_run(ref, uri=uri)
    client = _client(uri)
    try:
        with _quiet_downloads():
            path = client.download_artifacts(run.run_id, f"{ARTIFACTS}/run.json", str(folder))
    except (MlflowException, OSError) as exc:
        raise TrackingError(
            f"MLflow run {run.run_id} logged no run record ({ARTIFACTS}/run.json): it did not "
            f"reach a checkpoint ({type(exc).__name__})"
        ) from None
    return Path(path)


@dataclass(frozen=True)
class ReleaseProblem:
    """Why a run's release cannot be read here: ``kind`` is ``gone`` (garbage-collected),
    ``missing`` (no such tag here) or ``changed`` (the tag has another checksum here)."""

    kind: str
    message: str

    def __str__(self) -> str:
        return self.message


@contextlib.contextmanager
def _quiet_downloads() -> Iterator[None]:
    """No progress bar from MLflow's downloads (a bar on stderr for one small file)."""
    name = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    before = os.environ.get(name)
    os.environ[name] = "false"
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def release_problem(
    tag: str, checksum: str, settings: Settings, *, where: str | None = None
) -> ReleaseProblem | None:
    """Why release ``tag`` (of ``checksum``) cannot be read in this lakehouse, or None.

    Args:
        tag: The release tag a run read.
        checksum: Its checksum then.
        settings: This lakehouse.
        where: The lakehouse the run read it from (named in the message).
    """
    from lakemix.versions import ReleaseError, get_release
    from lakemix.versions.gone import missing_data, rebuild_hint

    try:
        manifest = get_release(tag, settings)
    except ReleaseError as exc:
        there = f" (the run read it from {where})" if where else ""
        return ReleaseProblem(
            "missing",
            f"release {tag} is not in this lakehouse ({settings.home}){there}: {exc}; point "
            "LAKEMIX_HOME at the run's lakehouse",
        )
    if manifest.checksum != checksum:
        return ReleaseProblem(
            "changed",
            f"release {tag} here has checksum {manifest.checksum}, the run read {checksum}: "
            "another lakehouse's release of the same tag",
        )
    what = missing_data(manifest, manifest.snapshots, settings, files=False)
    if what is not None:
        return ReleaseProblem(
            "gone", f"release {tag} was garbage-collected: {what}. {rebuild_hint(manifest)}"
        )
    return None
