"""Hugging Face ``Trainer``: a callback that makes a ``MixLoader`` resume exactly.

    loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=64, batch_size=4)
    resume = MixLoaderTrainerCallback(loader)

    class MixTrainer(Trainer):
        def get_train_dataloader(self):
            return resume.dataloader

    args = TrainingArguments(output_dir, max_steps=30, save_steps=10, ignore_data_skip=True)
    MixTrainer(model, args, callbacks=[resume]).train(resume_from_checkpoint=...)

The Trainer resumes a data loader by skipping the batches of the epoch it already trained on,
which only works for a ``torch.utils.data.DataLoader``; ``ignore_data_skip=True`` turns that
off, and the callback restores the loader instead: at each save, every rank's loader state after
the last batch trained on goes into the checkpoint folder (``lakemix_loader.json``), and the run
record (``run.json``) into ``run_dir``; at the start of a resumed run, the state of the
checkpoint it resumes from is loaded (another world size resumes elastically).

With ``MLFLOW_TRACKING_URI`` set (or ``tracking_uri`` given), the run is tracked in MLflow
(``lakemix.tracking``): into the active MLflow run when there is one (the Trainer's own
``report_to="mlflow"`` starts it), else into a run of its own, which also gets the Trainer's
logged metrics.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from lakemix.loader.mix_loader import MixLoader
from lakemix.loader.tracked import start_tracking
from lakemix.loader.trainers import TrainedBatches, gather_states, record_run

if TYPE_CHECKING:
    from lakemix.tracking import RunTracker

LOADER_STATE = "lakemix_loader.json"


class MixLoaderTrainerCallback(TrainerCallback):
    """Exact resume and a run record for a ``MixLoader`` under a Hugging Face ``Trainer``.

    Args:
        loader: The training loader.
        run_dir: Where to write ``run.json`` at each save; the Trainer's ``output_dir`` when
            None.
        tracking_uri: MLflow tracking URI; ``MLFLOW_TRACKING_URI`` when None (no URI: no
            tracking).
    """

    def __init__(
        self,
        loader: MixLoader,
        *,
        run_dir: str | Path | None = None,
        tracking_uri: str | None = None,
    ) -> None:
        self.loader = loader
        self.run_dir = None if run_dir is None else Path(run_dir)
        self.dataloader = TrainedBatches(loader)
        self.tracking_uri = tracking_uri
        self.tracker: RunTracker | None = None

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        if not args.ignore_data_skip:
            raise ValueError(
                "set TrainingArguments(ignore_data_skip=True): the Trainer would resume a "
                "MixLoader by skipping batches, which it cannot; the callback restores it"
            )
        self.tracker = start_tracking(
            self.loader,
            self.run_dir or Path(str(args.output_dir)),
            uri=self.tracking_uri,
            run_id=active_mlflow_run(),
            params={"trainer": "transformers", "trainer.max_steps": args.max_steps},
            resumed=state.global_step > 0,
        )
        if state.global_step == 0:
            return
        path = checkpoint_dir(args, state) / LOADER_STATE
        if not path.is_file():
            raise FileNotFoundError(
                f"resuming at step {state.global_step}, but {path} holds no loader state: "
                "resume from a checkpoint saved with MixLoaderTrainerCallback, in output_dir"
            )
        self.dataloader.load(orjson.loads(path.read_bytes())["loader"])

    def on_step_end(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        # The Trainer fetches the batches of one optimizer step, trains on them, then ends it.
        while self.dataloader.waiting:
            self.dataloader.trained()

    def on_save(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        states = gather_states(self.dataloader.trained_state())  # every rank calls on_save
        if self.loader.rank != 0:
            return
        folder = checkpoint_dir(args, state)
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{LOADER_STATE}.partial"
        partial.write_bytes(orjson.dumps({"loader": states}))
        os.replace(partial, folder / LOADER_STATE)
        extra = {"trainer": "transformers", "steps": state.global_step, "checkpoint": folder.name}
        directory = self.run_dir or Path(str(args.output_dir))
        record_run(self.loader, directory, states, extra, tracker=self.tracker)

    def on_log(
        self,
        args: TrainingArguments,
        state: TrainerState,
        control: TrainerControl,
        logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if self.tracker is not None and self.tracker.owned and logs:
            self.tracker.log_metrics(logs, step=state.global_step)

    def on_train_end(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        self.dataloader.close()  # no loader workers left running into the interpreter's exit
        if self.tracker is not None:
            self.tracker.finish()


def active_mlflow_run() -> str | None:
    """The id of the active MLflow run (the Trainer's ``report_to="mlflow"``), if any."""
    import sys

    if "mlflow" not in sys.modules:  # nobody started one: no need to import mlflow
        return None
    run = sys.modules["mlflow"].active_run()
    return None if run is None else str(run.info.run_id)


def checkpoint_dir(args: TrainingArguments, state: TrainerState) -> Path:
    """The folder the Trainer saves the checkpoint of ``state.global_step`` in."""
    return Path(str(args.output_dir)) / f"{PREFIX_CHECKPOINT_DIR}-{state.global_step}"
