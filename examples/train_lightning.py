"""Train a tiny language model on a released mix with PyTorch Lightning, on the CPU, with resume.

    .venv/bin/python examples/train_lightning.py --mix demo_unimax --out runs/lightning
    .venv/bin/python examples/train_lightning.py --mix demo_unimax --out runs/lightning --resume
    lakemix lineage --run runs/lightning

A checkpoint every ``--checkpoint-every`` steps goes to ``--out/checkpoints``, and the run record
(``run.json``) to ``--out``. ``--resume`` continues from the newest checkpoint there: the batches
after it are exactly those an uninterrupted run trains on (``lakemix.loader.lightning``). Under
torchrun, Lightning's DDP runs on the launcher's processes and each rank reads its own share.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch
from torch import nn

from lakemix.loader import MixLoader
from lakemix.loader.lightning import MixLoaderCallback
from lakemix.loader.ranks import end_process_group


class BigramLM(pl.LightningModule):
    """Next token from the current one, over the token ids the release uses (a CPU-sized model)."""

    def __init__(self, vocabulary: torch.Tensor, dim: int = 32) -> None:
        super().__init__()
        compact = torch.full((int(vocabulary.max()) + 1,), -100, dtype=torch.long)
        compact[vocabulary] = torch.arange(len(vocabulary))
        self.register_buffer("compact", compact, persistent=False)
        self.embed = nn.Embedding(len(vocabulary), dim)
        self.out = nn.Linear(dim, len(vocabulary))
        self.last_loss = float("nan")

    def training_step(self, batch: dict[str, Any], batch_idx: int) -> torch.Tensor:
        labels = batch["labels"]
        targets = torch.where(labels >= 0, self.compact[labels.clamp(min=0)], -100)
        logits = self.out(self.embed(self.compact[batch["input_ids"]]))
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        self.last_loss = float(loss.detach())
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.AdamW(self.parameters(), lr=3e-3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mix", default="demo_unimax")
    parser.add_argument("--tag", default=None, help="release tag (default: the newest)")
    parser.add_argument("--out", type=Path, default=Path("runs/lightning"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--checkpoint-every", type=int, default=100)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    pl.seed_everything(args.seed, verbose=False)
    loader = MixLoader(
        mix=args.mix,
        tag=args.tag,
        seq_len=args.seq_len,
        batch_size=args.batch_size,
        num_workers=args.num_workers,
        seed=args.seed,
    )
    model = BigramLM(torch.from_numpy(loader.store.vocabulary().astype("int64")))
    resume = MixLoaderCallback(loader, run_dir=args.out)
    every = pl.callbacks.ModelCheckpoint(
        args.out / "checkpoints", every_n_train_steps=args.checkpoint_every, save_top_k=-1
    )
    ranks = int(os.environ.get("WORLD_SIZE", "1"))
    trainer = pl.Trainer(
        max_steps=args.steps,
        accelerator="cpu",
        devices=ranks,
        strategy="ddp" if ranks > 1 else "auto",
        callbacks=[resume, every],
        default_root_dir=args.out,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    saved = sorted((args.out / "checkpoints").glob("*.ckpt"), key=os.path.getmtime)
    ckpt = saved[-1] if args.resume and saved else None
    trainer.fit(model, train_dataloaders=resume.dataloader, ckpt_path=ckpt)
    if trainer.is_global_zero:
        print(
            f"done: step {trainer.global_step} loss {model.last_loss:.6f}; run record in {args.out}"
        )
    if os.environ.get("LAKEMIX_PRINT_FINAL_LOSS"):
        print(f"final loss rank {loader.rank} {model.last_loss!r}", flush=True)
    end_process_group()  # exit with no gloo threads left running


if __name__ == "__main__":
    main()
