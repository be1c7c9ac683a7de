"""PyTorch Lightning: a callback that makes a ``MixLoader`` resume exactly under ``Trainer.fit``.

    loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=64, batch_size=4)
    resume = MixLoaderCallback(loader, run_dir="runs/lightning")
    trainer = L.Trainer(max_steps=30, callbacks=[resume])
    trainer.fit(model, train_dataloaders=resume.dataloader, ckpt_path=...)

Lightning fetches one batch ahead, and keeps the state of rank 0's data loader only: given the
loader itself, a resume skips a batch, and rank 1 of 2 cannot resume at all. The callback hands
Lightning the batches (``dataloader``, without a ``state_dict`` of its own), marks each when
its training step starts, and saves in the checkpoint every rank's state after the batch last
trained on; at each checkpoint rank 0 writes the run record (``run.json``) into ``run_dir``,
for ``lakemix lineage --run``. A checkpoint of another world size resumes elastically. The
loader given to ``Trainer.fit`` itself is refused at the first batch (``loader.drivers``).

With ``MLFLOW_TRACKING_URI`` set (or ``tracking_uri`` given), the run is tracked in MLflow
(``lakemix.tracking``): into the run of the trainer's ``MLFlowLogger`` when it has one, else
into a run of its own, which also gets the trainer's metrics at each checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import lightning.pytorch as pl

from lakemix.loader.mix_loader import MixLoader
from lakemix.loader.tracked import start_tracking
from lakemix.loader.trainers import TrainedBatches, gather_states, record_run

if TYPE_CHECKING:
    from lakemix.tracking import RunTracker


class MixLoaderCallback(pl.Callback):
    """Exact resume and a run record for a ``MixLoader`` under a Lightning ``Trainer``.

    Args:
        loader: The training loader.
        run_dir: Where to write ``run.json`` at each checkpoint; the trainer's
            ``default_root_dir`` when None.
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
        super().__init__()
        self.loader = loader
        self.run_dir = None if run_dir is None else Path(run_dir)
        self.dataloader = TrainedBatches(loader)
        self.tracking_uri = tracking_uri
        self.tracker: RunTracker | None = None

    @property
    def state_key(self) -> str:
        # One callback per loader: the key names what it reads.
        return f"MixLoaderCallback[{self.loader.mix}:{self.loader.split}]"

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        run_id, uri = None, self.tracking_uri
        for logger in trainer.loggers:  # log into the trainer's own MLflow run, if any
            if type(logger).__name__ == "MLFlowLogger":
                run_id = logger.run_id  # type: ignore[attr-defined]
                uri = getattr(logger, "_tracking_uri", uri)
        self.tracker = start_tracking(
            self.loader,
            self.run_dir or trainer.default_root_dir,
            uri=uri,
            run_id=run_id,
            params={"trainer": "lightning", "trainer.max_steps": trainer.max_steps},
            resumed=trainer.ckpt_path is not None,
        )

    def on_train_batch_start(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any, batch_idx: int
    ) -> None:
        self.dataloader.trained()

    def state_dict(self) -> dict[str, Any]:
        # Lightning asks every rank while it builds a checkpoint: a collective is safe here.
        return {"loader": gather_states(self.dataloader.trained_state())}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.dataloader.load(state_dict["loader"])

    def on_save_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        states = checkpoint["callbacks"][self.state_key]["loader"]
        extra = {
            "trainer": "lightning",
            "steps": trainer.global_step,
            "epoch": trainer.current_epoch,
        }
        if self.tracker is not None and self.tracker.owned:
            metrics = trainer.callback_metrics
            scalars = {k: float(v) for k, v in metrics.items() if v.numel() == 1}
            self.tracker.log_metrics(scalars, step=trainer.global_step)
        directory = self.run_dir or trainer.default_root_dir
        record_run(self.loader, directory, states, extra, tracker=self.tracker)

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.dataloader.close()  # no loader workers left running into the interpreter's exit
        if self.tracker is not None:
            self.tracker.finish()
