"""Train a tiny language model on a released mix with the Hugging Face Trainer, on the CPU.

    .venv/bin/python examples/train_hf.py --mix demo_unimax --out runs/hf
    .venv/bin/python examples/train_hf.py --mix demo_unimax --out runs/hf --resume
    lakemix lineage --run runs/hf

The Trainer saves ``--out/checkpoint-N`` every ``--checkpoint-every`` steps; ``MixTrainer`` adds
the loader state of every rank to each and writes the run record (``run.json``) into ``--out``.
``--resume`` continues from the newest checkpoint: the batches after it are exactly those an
uninterrupted run trains on (``lakemix.loader.hf``). Under torchrun, each rank reads its share.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import TrainerCallback, TrainingArguments
from transformers.trainer_utils import get_last_checkpoint

from lakemix.loader import MixLoader
from lakemix.loader.hf import MixTrainer
from lakemix.loader.ranks import end_process_group


class BigramLM(nn.Module):
    """Next token from the current one, over the token ids the release uses (a CPU-sized model)."""

    def __init__(self, vocabulary: torch.Tensor, dim: int = 32) -> None:
        super().__init__()
        compact = torch.full((int(vocabulary.max()) + 1,), -100, dtype=torch.long)
        compact[vocabulary] = torch.arange(len(vocabulary))
        self.register_buffer("compact", compact, persistent=False)
        self.embed = nn.Embedding(len(vocabulary), dim)
        self.out = nn.Linear(dim, len(vocabulary))
        self.last_loss = float("nan")  # this rank's (the Trainer logs the mean of all ranks')

    def forward(
        self, input_ids: torch.Tensor, labels: torch.Tensor, **batch: Any
    ) -> dict[str, Any]:
        targets = torch.where(labels >= 0, self.compact[labels.clamp(min=0)], -100)
        logits = self.out(self.embed(self.compact[input_ids]))
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        self.last_loss = float(loss.detach())
        return {"loss": loss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mix", default="demo_unimax")
    parser.add_argument("--tag", default=None, help="release tag (default: the newest)")
    parser.add_argument("--out", type=Path, default=Path("runs/hf"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--stop-after", type=int, default=None, help="exit after this step")
    parser.add_argument("--checkpoint-every", type=int, default=100)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()

    training = TrainingArguments(
        output_dir=str(args.out),
        max_steps=args.steps,
        save_steps=args.checkpoint_every,
        learning_rate=3e-3,
        seed=args.seed,
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        logging_steps=args.checkpoint_every,
    )
    loader = MixLoader(  # after TrainingArguments: under torchrun it starts the process group
        mix=args.mix,
        tag=args.tag,
        seq_len=args.seq_len,
        batch_size=args.batch_size,
        num_workers=args.num_workers,
        seed=args.seed,
    )
    class StopAfter(TrainerCallback):  # type: ignore[misc]  # as if the run were cut there
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            control.should_training_stop |= state.global_step == args_stop

    args_stop = args.stop_after
    torch.manual_seed(args.seed)  # the same initial weights in every run
    model = BigramLM(torch.from_numpy(loader.store.vocabulary().astype("int64")))
    trainer = MixTrainer(model=model, args=training, loader=loader, callbacks=[StopAfter()])
    last = get_last_checkpoint(str(args.out)) if args.resume and args.out.is_dir() else None
    result = trainer.train(resume_from_checkpoint=last)
    if trainer.is_world_process_zero():
        print(f"done: step {result.global_step} training loss {result.training_loss:.6f}")
    if os.environ.get("LAKEMIX_PRINT_FINAL_LOSS"):
        print(f"final loss rank {loader.rank} {model.last_loss!r}", flush=True)
    # Under torchrun, TrainingArguments started a gloo process group: it goes once every rank
    # is done with it (end_process_group says why), then the Trainer ends.
    end_process_group()
    trainer.end()


if __name__ == "__main__":
    main()
