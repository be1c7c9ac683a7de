"""A ``MixLoader`` run in MLflow: the tracker of a loader's run, when tracking is on.

Tracking is on when a tracking URI is given or ``MLFLOW_TRACKING_URI`` is set, on rank 0 only
(the one that writes the run record). ``lakemix.tracking.RunTracker`` says what is logged.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from lakemix.loader.mix_loader import MixLoader
from lakemix.loader.runs import RUN_RECORD, RunRecordError, read_run_record
from lakemix.tracking import RunTracker


def loader_params(loader: MixLoader) -> dict[str, Any]:
    """The loader's settings, as ``loader.*`` params."""
    return {
        "loader.split": loader.split,
        "loader.seq_len": loader.seq_len,
        "loader.batch_size": loader.batch_size,
        "loader.seed": loader.seed,
        "loader.world_size": loader.world_size,
        "loader.num_workers": loader.num_workers,
        "loader.samples_per_epoch": loader.samples_per_epoch,
    }


def start_tracking(
    loader: MixLoader,
    run_dir: str | Path,
    *,
    uri: str | None = None,
    run_id: str | None = None,
    run_name: str | None = None,
    params: dict[str, Any] | None = None,
    resumed: bool = False,
) -> RunTracker | None:
    """Start the MLflow run of a training run on ``loader``; None when tracking is off.

    Args:
        loader: The training loader.
        run_dir: Where the run record is written.
        uri: The tracking URI; ``MLFLOW_TRACKING_URI`` when None. No URI: no tracking.
        run_id: Log into this run (a trainer's own MLflow logger) instead of a new one.
        run_name: Name of a new run (MLflow picks one when None).
        params: More params (the model's, the optimizer's, ...).
        resumed: The run resumes from a checkpoint: the MLflow run named by the run record in
            ``run_dir`` (written before the interruption) is continued.
    """
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI")
    if not uri or loader.rank != 0:
        return None
    previous = None
    if resumed and (Path(run_dir) / RUN_RECORD).is_file():
        with contextlib.suppress(RunRecordError):  # unreadable: start a new MLflow run
            previous = read_run_record(run_dir)
    tracker = RunTracker(
        uri=uri,
        manifest=loader.manifest,
        split=loader.split,
        params={**loader_params(loader), **(params or {})},
        settings=loader.settings,
        run_id=run_id,
        resume=previous,
        experiment=os.environ.get("MLFLOW_EXPERIMENT_NAME"),
        run_name=run_name,
        run_dir=run_dir,
    )
    tracker.start()
    return tracker
