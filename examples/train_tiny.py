"""Train a tiny language model on a released mix, on the CPU, with checkpoints and resume.

    .venv/bin/python examples/train_tiny.py --mix demo_unimax --out runs/tiny
    .venv/bin/python examples/train_tiny.py --mix demo_unimax --out runs/tiny --resume
    lakemix lineage --run runs/tiny

Every ``--checkpoint-every`` steps it writes ``checkpoint.pt`` (model, optimizer, step, the loader
state of every rank) and ``run.json`` (release tag, checksum, snapshot ids, loader state, samples
seen) into ``--out``. ``--resume`` continues from there: the batches after the checkpoint are
exactly those an uninterrupted run would have seen. With ``MLFLOW_TRACKING_URI`` set, the run is
tracked in MLflow: the release as its dataset input, the mix, filter and loader settings as
params, the loss, and the run record at each checkpoint (``lakemix runs``, ``lakemix compare``,
``lakemix lineage --run mlflow:RUN_ID``). Under torchrun
(``torchrun --nproc-per-node 2 examples/train_tiny.py``) it initializes the process group
(gloo) and trains data-parallel: each rank reads its own share, every rank's loader state is
saved, and rank 0 writes.

``--policy exp3`` (Online Data Mixing) or ``--policy excess --reference runs/static`` (DoReMi-style,
against a reference run's per-group loss at the same step) reads the mix grouped by language and
sets the weights every ``--update-every`` steps from the per-group loss of the batches since,
all-reduced over the ranks so that every rank sets the same weights at the same step. A mix file
with ``groups:`` and a ``schedule:`` follows its schedule without a policy. The run record keeps
the weights over the run, each group's loss in the last window of steps that held its tokens,
and every window's losses with its step (``group_loss_trajectory``: what ``--reference`` reads).
``--explore initial`` gives EXP3's exploration share to the mix's own weights rather than
uniform ones; ``--min-explore 0.5`` keeps that share at half the mix or more.
``--group-loss byte`` reports each group's loss per byte of text instead of per token. The
learning rate warms up over the first 5% of ``--steps`` and decays (cosine) to a tenth of its
peak.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path
from typing import Any, Literal

import torch
import torch.distributed as dist
from torch import nn

from lakemix.loader import MixLoader
from lakemix.loader.policies import EXP3, ExcessLoss, MixPolicy, mean_losses
from lakemix.loader.ranks import end_process_group
from lakemix.loader.runs import read_run_record
from lakemix.loader.tracked import start_tracking
from lakemix.loader.trainers import gather_states, record_run


class TinyLM(nn.Module):
    """Token embedding, causal self-attention blocks with document masks, tied output.

    Its vocabulary is the token ids the release uses (``vocabulary``, sorted), not the whole
    tokenizer's: a tenth of the output layer on the demo mix, which is what makes a CPU run quick.
    One attention head per 16 dimensions of width (at least one).
    """

    def __init__(self, vocabulary: torch.Tensor, dim: int, layers: int, seq_len: int) -> None:
        super().__init__()
        compact = torch.full((int(vocabulary.max()) + 1,), -100, dtype=torch.long)
        compact[vocabulary] = torch.arange(len(vocabulary))
        self.register_buffer("compact", compact, persistent=False)
        self.embed = nn.Embedding(len(vocabulary), dim)
        nn.init.normal_(self.embed.weight, std=0.02)
        self.position = nn.Embedding(seq_len, dim)
        heads = max(1, dim // 16)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.heads = heads

    def logits(self, batch: dict[str, Any]) -> torch.Tensor:
        ids, segments = self.compact[batch["input_ids"]], batch["segment_ids"]
        n = ids.shape[1]
        x = self.embed(ids) + self.position(batch["position_ids"].clamp(max=n - 1))
        # A token sees earlier tokens of its own document only (the packing's boundary mask).
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        allowed = causal & (segments[:, :, None] == segments[:, None, :])
        mask = (~allowed).repeat_interleave(self.heads, dim=0)
        x = self.norm(self.blocks(x, mask=mask))
        return x @ self.embed.weight.T

    def forward(self, batch: dict[str, Any]) -> torch.Tensor:
        """Each token's next-token loss (0 where nothing is predicted), ``[batch, seq_len]``
        (forward, so that DDP sees the call): its mean over predicted tokens is the loss, and
        split by ``group_ids`` it is each group's."""
        labels = batch["labels"]
        targets = torch.where(labels >= 0, self.compact[labels.clamp(min=0)], -100)
        logits = self.logits(batch)
        losses = nn.functional.cross_entropy(
            logits.flatten(0, 1), targets.flatten(), reduction="none"
        )
        return losses.view(labels.shape)


def make_policy(
    name: str,
    loader: MixLoader,
    reference: Path | None,
    unit: str,
    explore: Literal["uniform", "initial"] = "uniform",
    min_explore: float = 0.0,
) -> MixPolicy | None:
    if name == "none":
        return None
    if name == "exp3":
        return EXP3(loader.group_names, loader.weights(), explore=explore, min_explore=min_explore)
    if reference is None:
        raise SystemExit("--policy excess needs --reference RUN_DIR (a grouped run's record)")
    record = read_run_record(reference)
    theirs = record.get("group_loss", "nats per token")
    if theirs != f"nats per {unit}":
        raise SystemExit(
            f"{reference} logged its losses in {theirs}, this run's are nats per {unit}: "
            f"train both with the same --group-loss"
        )
    # the reference's loss at each step (older records: each group's last loss only)
    losses = record.get("group_loss_trajectory") or record.get("group_losses")
    if not losses:
        raise SystemExit(f"{reference} logged no per-group loss: train it with --groups")
    # from uniform weights, as DoReMi: from the reference's own weights (and seed) the run would
    # be the reference run, its excess 0 at every step, its weights never moving
    return ExcessLoss(loader.group_names, losses)


def learning_rate(step: int, steps: int, peak: float) -> float:
    """Linear warm-up over the first 5% of the steps, then a cosine decay to a tenth of the
    peak at ``steps``: a pure function of the step, so a resumed run follows it exactly (and
    the model's last state is not the last few batches' alone, as under a constant rate)."""
    warmup = max(1, steps // 20)
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, steps - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mix", default="demo_unimax")
    parser.add_argument("--tag", default=None, help="release tag (default: the newest)")
    parser.add_argument("--out", type=Path, default=Path("runs/tiny"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--stop-after", type=int, default=None, help="exit after this step")
    parser.add_argument("--checkpoint-every", type=int, default=100)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--dim", type=int, default=32, help="the model's width (heads: dim // 16)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--policy", choices=["none", "exp3", "excess"], default="none")
    parser.add_argument("--update-every", type=int, default=10, help="steps between updates")
    parser.add_argument("--reference", type=Path, default=None, help="run dir (--policy excess)")
    parser.add_argument("--groups", default=None, help="group by this column (default: the mix's)")
    parser.add_argument(
        "--group-loss",
        choices=["token", "byte"],
        default="token",
        help="the per-group loss a policy sees: per token (ODM's), or per byte of text",
    )
    parser.add_argument(
        "--explore",
        choices=["uniform", "initial"],
        default="uniform",
        help="--policy exp3: its exploration share goes to uniform weights (ODM's) or the mix's",
    )
    parser.add_argument(
        "--min-explore",
        type=float,
        default=0.0,
        help="--policy exp3: the least exploration share (ODM's decays to 0)",
    )
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    grouped = args.policy != "none" or args.groups is not None
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:  # under torchrun: one process per rank
        dist.init_process_group("gloo")
    loader = MixLoader(
        mix=args.mix,
        tag=args.tag,
        seq_len=args.seq_len,
        batch_size=args.batch_size,
        num_workers=args.num_workers,
        seed=args.seed,
        # the model takes per-token boundaries; grouped, each token's group splits the loss
        extra_fields=("segment_ids", "position_ids", *(("group_ids",) if grouped else ())),
        groups=args.groups or ("language" if grouped else None),
    )
    policy = make_policy(
        args.policy, loader, args.reference, args.group_loss, args.explore, args.min_explore
    )
    vocabulary = torch.from_numpy(loader.store.vocabulary().astype("int64"))
    tiny = TinyLM(vocabulary, dim=args.dim, layers=2, seq_len=args.seq_len)
    # Every rank starts from rank 0's weights; DDP averages the gradients.
    model = nn.parallel.DistributedDataParallel(tiny) if dist.is_initialized() else tiny
    peak_lr = 3e-3
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr)
    step, tokens = 0, 0
    checkpoint = args.out / "checkpoint.pt"
    saved: dict[str, Any] = {}
    resumed = args.resume and checkpoint.exists()
    if resumed:
        saved = torch.load(checkpoint, weights_only=False)
        tiny.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        step, tokens = saved["step"], saved["tokens"]
        loader.load_state_dict(saved["loader"])
        if policy is not None:
            policy.load_state_dict(saved["policy"])
        print(f"resumed at step {step} from {checkpoint}")
    main_rank = loader.rank == 0
    if main_rank:
        args.out.mkdir(parents=True, exist_ok=True)
    model_params = {"model.dim": args.dim, "model.layers": 2, "model.heads": tiny.heads,
                    "optimizer.lr": peak_lr,
                    "optimizer.schedule": "warm-up 5%, cosine to 10%"}  # fmt: skip
    tracker = start_tracking(
        loader, args.out, run_name=args.out.name, params=model_params, resumed=resumed
    )  # None unless MLFLOW_TRACKING_URI is set, and on ranks other than 0
    last = args.stop_after if args.stop_after is not None else args.steps
    started, loss = time.perf_counter(), math.nan
    # per-group sums and counts of token losses since the last update (a dynamic mix)
    sums = torch.zeros(len(loader.group_names), dtype=torch.float64)
    counts = torch.zeros_like(sums)  # tokens (or bytes) of those losses
    # per byte: each predicted token counts its bytes of text, so a script the tokenizer cuts
    # into one-byte tokens (cl100k's Armenian) is compared with the others on the same footing
    token_bytes = (
        torch.from_numpy(loader.token_bytes().astype("float64"))
        if grouped and args.group_loss == "byte"
        else None
    )
    # each group's loss in the last window that held its tokens: a window of long packed
    # documents holds a few groups only, and a reference run must give every group's
    last_group_losses: dict[str, float] = dict(saved.get("group_losses", {}))
    # every window's losses with its step: what a DoReMi-style run compares with, step by step
    trajectory: list[list[Any]] = list(saved.get("group_loss_trajectory", []))
    if "group_loss_sums" in saved:
        sums, counts = saved["group_loss_sums"]
    while step < last:
        for batch in loader:
            token_losses = model(batch)
            predicted = batch["labels"] >= 0
            loss_t = token_losses.sum() / predicted.sum().clamp(min=1)
            if grouped:
                ids = torch.where(predicted, batch["group_ids"], -1).flatten().long()
                keep = ids >= 0
                flat = token_losses.detach().flatten().double()
                sums.index_add_(0, ids[keep], flat[keep])
                if token_bytes is None:
                    counts.index_add_(0, ids[keep], torch.ones_like(flat[keep]))
                else:
                    labels = batch["labels"].flatten().long()[keep]
                    counts.index_add_(0, ids[keep], token_bytes[labels])
            optimizer.zero_grad()
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, args.steps, peak_lr)
            loss_t.backward()
            optimizer.step()
            step, loss = step + 1, float(loss_t.detach())
            tokens += int(batch["cu_seqlens"][-1])  # real input tokens (padding follows)
            if grouped and step % args.update_every == 0:
                # every rank: the same all-reduced losses, so the same weights at the same step
                means = mean_losses(sums, counts, loader.group_names)
                last_group_losses |= means
                trajectory.append([step, means])
                if policy is not None:
                    loader.set_weights(policy.update(step, means), at_step=loader.step)
                sums.zero_()
                counts.zero_()
            if step % 25 == 0 and main_rank:
                rate = tokens / (time.perf_counter() - started)
                print(f"step {step} loss {loss:.4f} tokens {tokens} ({rate:,.0f}/s)", flush=True)
            if tracker is not None and (step % 5 == 0 or step == last):
                tracker.log_metrics({"loss": loss}, step=step)
            if step % args.checkpoint_every == 0 or step == last:
                states = gather_states(loader.state_dict())  # every rank's
                if main_rank:
                    save = {"model": tiny.state_dict(), "optimizer": optimizer.state_dict()}
                    if policy is not None:
                        save["policy"] = policy.state_dict()
                    save["group_loss_sums"] = (sums.clone(), counts.clone())
                    save["group_losses"] = dict(last_group_losses)
                    save["group_loss_trajectory"] = list(trajectory)
                    torch.save(
                        {**save, "step": step, "tokens": tokens, "loader": states}, checkpoint
                    )
                extra = {"steps": step, "tokens_seen": tokens, "checkpoint": checkpoint.name}
                if grouped:
                    extra["group_losses"] = last_group_losses
                    extra["group_loss_trajectory"] = trajectory
                    extra["policy"] = args.policy
                    extra["group_loss"] = f"nats per {args.group_loss}"
                record_run(loader, args.out, states, extra, tracker=tracker)  # on rank 0
            if step == last:
                break
    if tracker is not None and step >= args.steps:
        tracker.finish()
    if main_rank:
        print(f"done: step {step} loss {loss:.6f}; run record {args.out / 'run.json'}")
        if tracker is not None and tracker.active:
            print(f"mlflow run {tracker.run_id} at {tracker.uri}")
    if os.environ.get("LAKEMIX_PRINT_FINAL_LOSS"):
        print(f"final loss {loss!r}" + (f" rank {loader.rank}" if dist.is_initialized() else ""))
    end_process_group()  # every rank done with the group before it goes


if __name__ == "__main__":
    main()
