"""Hugging Face ``Trainer``: ``MixTrainer`` reads a ``MixLoader`` and resumes it exactly.

    loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=64, batch_size=4)
    args = TrainingArguments(output_dir, max_steps=30, save_steps=10)
    MixTrainer(model=model, args=args, loader=loader).train(resume_from_checkpoint=...)

The Trainer resumes a data loader by skipping the batches of the epoch it already trained on,
which only works for a ``torch.utils.data.DataLoader``. ``MixTrainer`` is the Trainer with the
three things that make a ``MixLoader`` right under it: the batches come from the loader
(``get_train_dataloader``), ``ignore_data_skip`` is on, and ``MixLoaderTrainerCallback``
restores the loader instead: at each save, every rank's loader state after the last batch
trained on goes into the checkpoint folder (``lakemix_loader.json``), and the run record
(``run.json``) into ``run_dir``; at the start of a resumed run, the state of the checkpoint it
resumes from is loaded (another world size resumes elastically). A Trainer subclass of one's
own takes the callback alone, as ``MixTrainer`` does. A ``MixLoader`` given to a plain
``Trainer`` (as its ``train_dataset``, or from ``get_train_dataloader``) is refused at the
first batch with one line naming ``MixTrainer`` (``lakemix.loader.drivers``).

With ``MLFLOW_TRACKING_URI`` set (or ``tracking_uri`` given), the run is tracked in MLflow
(``lakemix.tracking``): into the active MLflow run when there is one (the Trainer's own
``report_to="mlflow"`` starts it), else into a run of its own, which also gets the Trainer's
logged metrics.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from transformers import (
    Trainer,
    TrainerCallback,
    TrainerControl,
    TrainerState,
    TrainingArguments,
)
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from lakemix.loader.mix_loader import MixLoader
from lakemix.loader.tracked import start_tracking
from lakemix.loader.trainers import TrainedBatches, gather_states, record_run

if TYPE_CHECKING:
    from lakemix.tracking import RunTracker

LOADER_STATE = "lakemix_loader.json"


class MixLoaderTrainerCallback(TrainerCallback):
    """Exact resume and a run record for a ``MixLoader`` under a Hugging Face ``Trainer``.

    ``MixTrainer`` uses it; a ``Trainer`` subclass of one's own gives it ``callbacks``, returns
    its ``dataloader`` from ``get_train_dataloader`` and sets ``ignore_data_skip=True``.

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


class MixTrainer(Trainer):
    """The Hugging Face ``Trainer`` training on a ``MixLoader``, resumed exactly.

    Takes what ``Trainer`` takes, but no ``train_dataset``: the batches are the loader's. The
    ``args`` given are copied with ``ignore_data_skip=True``; ``callbacks`` get the loader's
    ``MixLoaderTrainerCallback`` (``self.mix_callback``).

    Args:
        model, args: As ``Trainer``'s (``args.max_steps`` must be set: an epoch's length is
            known only once it is read).
        loader: The training loader.
        run_dir: Where to write ``run.json`` at each save; ``args.output_dir`` when None.
        tracking_uri: MLflow tracking URI; ``MLFLOW_TRACKING_URI`` when None.
        **kwargs: The rest of ``Trainer``'s arguments.

    Raises:
        ValueError: A ``train_dataset`` is given too, or ``max_steps`` is not set.
    """

    def __init__(
        self,
        model: Any = None,
        args: TrainingArguments | None = None,
        *,
        loader: MixLoader,
        run_dir: str | Path | None = None,
        tracking_uri: str | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs.get("train_dataset") is not None:
            raise ValueError(
                "MixTrainer trains on the batches of its loader: give it no train_dataset"
            )
        self.mix_callback = MixLoaderTrainerCallback(
            loader, run_dir=run_dir, tracking_uri=tracking_uri
        )
        kwargs["callbacks"] = [*(kwargs.get("callbacks") or []), self.mix_callback]
        # A copy: the caller's arguments stay as they were.
        super().__init__(model, None if args is None else copy.copy(args), **kwargs)
        if self.args.max_steps <= 0:
            raise ValueError(
                "set TrainingArguments(max_steps=N): a MixLoader's epoch has no length before "
                "it is read"
            )
        self.args.ignore_data_skip = True

    def get_train_dataloader(self) -> Any:
        """The loader's batches, as the callback hands them out."""
        return self.mix_callback.dataloader


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
