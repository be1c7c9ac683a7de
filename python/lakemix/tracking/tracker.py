"""A training run in MLflow, linked to its release: what a run logs, and going on without it.

``RunTracker`` logs, on rank 0, the release as the run's dataset input, the mix, filter and
loader settings as params, and at each checkpoint the run record (``run.json``, the loader
state of every rank) as an artifact, beside the trainer's metrics. Tracking never stops
training: when the server cannot be reached (or a call fails), one ``TrackingWarning`` says so,
the tracker turns itself off, and the run record keeps the error (``tracking.error``).
"""

from __future__ import annotations

import time
import urllib.request
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from lakemix.settings import Settings
from lakemix.tracking.params import TAG_RUN_DIR, release_params, release_tags

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

ARTIFACTS = "lakemix"  # the run's artifact folder: run.json, release.json, checkpoints/
PROBE_SECONDS = 3.0
DEFAULT_EXPERIMENT = "lakemix"


class TrackingWarning(UserWarning):
    """MLflow tracking failed; training goes on and the run record stays in ``run.json``."""


def reachable(uri: str) -> str | None:
    """None when the tracking server at ``uri`` answers its health check, else why not.

    MLflow's client retries an unreachable server for minutes with backoff; a quick probe
    first keeps a dead server from stalling training. Non-HTTP stores are not probed.
    """
    if not uri.startswith(("http://", "https://")):
        return None
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=PROBE_SECONDS) as reply:
            if reply.status == 200:
                return None
            return f"{uri}/health answered {reply.status}"
    except OSError as exc:
        return f"{uri} cannot be reached ({getattr(exc, 'reason', exc)})"


class RunTracker:
    """The MLflow run of a training run that reads a release.

    Args:
        uri: The tracking URI (``MLFLOW_TRACKING_URI``).
        manifest: The release manifest the run reads.
        split: The split it reads.
        params: More params (the loader's settings, ...), beside the release's.
        settings: The lakehouse (its columns and location go into the dataset input).
        run_id: Log into this existing run (a trainer's own MLflow logger) instead of starting
            one; the trainer then logs its own metrics and ends it.
        resume: The run record of an earlier part of this run (its ``tracking.run_id`` on this
            server is continued: params and input are not logged again).
        experiment: Experiment name of a new run.
        run_name: Name of a new run.
        run_dir: The folder of ``run.json`` (a tag of the run).
    """

    def __init__(
        self,
        *,
        uri: str,
        manifest: Manifest,
        split: str,
        params: Mapping[str, Any] | None = None,
        settings: Settings,
        run_id: str | None = None,
        resume: Mapping[str, Any] | None = None,
        experiment: str | None = None,
        run_name: str | None = None,
        run_dir: str | Path | None = None,
    ) -> None:
        self.uri = uri
        self.manifest = manifest
        self.split = split
        self.params = {k: str(v) for k, v in (params or {}).items()}
        self.settings = settings
        self.owned = run_id is None  # we end the run only if we started it
        self.run_id = run_id
        previous = (resume or {}).get("tracking") or {}
        self.continued = False
        if run_id is None and previous.get("uri") == uri and previous.get("run_id"):
            self.run_id, self.continued = str(previous["run_id"]), True
        self.experiment = experiment or DEFAULT_EXPERIMENT
        self.run_name = run_name
        self.run_dir = None if run_dir is None else str(Path(run_dir).resolve())
        self.error: str | None = None
        self._client: Any = None

    @property
    def active(self) -> bool:
        """The run is being tracked (started, and nothing failed)."""
        return self._client is not None

    def link(self) -> dict[str, Any]:
        """What the run record keeps of the tracking: the URI and run id, or the error."""
        if self.error is not None:
            return {"uri": self.uri, "error": self.error}
        return {"uri": self.uri, "run_id": self.run_id}

    def _fail(self, why: str) -> None:
        self.error, self._client = why, None
        warnings.warn(
            f"MLflow tracking at {self.uri} is off for this run: {why}. Training goes on; the "
            "run record (run.json) keeps the release and the loader state",
            TrackingWarning,
            stacklevel=3,
        )

    def _up(self) -> bool:
        if self._client is None:
            return False
        why = reachable(self.uri)
        if why is not None:
            self._fail(why)
        return why is None

    def start(self) -> bool:
        """Start (or continue) the MLflow run and log the release; False when tracking is off."""
        why = reachable(self.uri)
        if why is not None:
            self._fail(why)
            return False
        try:
            self._start()
        except Exception as exc:  # tracking must never stop training
            self._fail(f"{type(exc).__name__}: {exc}")
            return False
        return True

    def _start(self) -> None:
        from mlflow import MlflowClient
        from mlflow.entities import Param, RunTag

        from lakemix.tracking.dataset import ReleaseDataset, mix_columns

        client = MlflowClient(tracking_uri=self.uri)
        tags = release_tags(self.manifest, self.split, str(self.settings.home))
        if self.run_dir is not None:
            tags[TAG_RUN_DIR] = self.run_dir
        if self.run_id is None:
            found = client.get_experiment_by_name(self.experiment)
            experiment_id = (
                found.experiment_id if found else client.create_experiment(self.experiment)
            )
            run = client.create_run(experiment_id, tags=tags, run_name=self.run_name)
            self.run_id = run.info.run_id
        elif self.continued:
            client.update_run(self.run_id, status="RUNNING")
        if not self.continued:
            if not self.owned:
                client.log_batch(self.run_id, tags=[RunTag(k, v) for k, v in tags.items()])
            params = {**release_params(self.manifest), **self.params}
            client.log_batch(self.run_id, params=[Param(k, v) for k, v in params.items()])
            dataset = ReleaseDataset(
                self.manifest, self.split, mix_columns(self.manifest, self.settings), self.settings
            )
            client.log_inputs(self.run_id, datasets=[dataset.to_input()])
            client.log_dict(self.run_id, self.manifest.to_json(), f"{ARTIFACTS}/release.json")
        self._client = client

    def log_metrics(self, metrics: Mapping[str, float], *, step: int) -> None:
        """Log numeric metrics at ``step`` (non-numbers are left out)."""
        numbers = {k: float(v) for k, v in metrics.items() if isinstance(v, int | float)}
        if not numbers or not self._up():
            return
        from mlflow.entities import Metric

        try:
            now = int(time.time() * 1000)
            batch = [Metric(k, v, now, step) for k, v in numbers.items()]
            self._client.log_batch(self.run_id, metrics=batch)
        except Exception as exc:
            self._fail(f"{type(exc).__name__}: {exc}")

    def checkpoint(self, record: str | Path, *, step: int) -> None:
        """Log the run record written at a checkpoint: as ``lakemix/run.json`` (the latest,
        what ``lakemix lineage --run mlflow:ID`` reads) and under ``lakemix/checkpoints/``."""
        if not self._up():
            return
        try:
            self._client.log_artifact(self.run_id, str(record), ARTIFACTS)
            self._client.log_artifact(
                self.run_id, str(record), f"{ARTIFACTS}/checkpoints/step-{step:08d}"
            )
        except Exception as exc:
            self._fail(f"{type(exc).__name__}: {exc}")
            return
        content = orjson.loads(Path(record).read_bytes())
        self.log_metrics(
            {k: content[k] for k in ("samples_seen", "tokens_seen") if k in content}, step=step
        )

    def finish(self, status: str = "FINISHED") -> None:
        """End the run (only a run this tracker started)."""
        if not self.owned or not self._up():
            return
        try:
            self._client.set_terminated(self.run_id, status=status)
        except Exception as exc:
            self._fail(f"{type(exc).__name__}: {exc}")
