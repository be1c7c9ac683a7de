"""Mix policies: group weights decided online from the model's per-group training loss.

A policy's ``update(step, group_losses)`` takes the mean loss of each group over the last
batch(es), as every rank agrees on it (all-reduce the sums and counts first: ``group_losses``
below), and returns the weights to use next; ``MixLoader.set_weights(weights, at_step)`` applies
them. Two policies:

- ``EXP3``: Online Data Mixing (Albalak et al. 2023, "Efficient Online Data Mixing for Language
  Model Pre-Training"): a multi-armed bandit over the groups, rewarded by the loss of the group
  drawn, with EXP3's importance weighting and an exploration rate that decays with the step.
- ``ExcessLoss``: DoReMi-style (Xie et al. 2023): weights move by exponentiated gradient toward
  the groups whose loss exceeds a reference run's per-group loss at the same step the most,
  mixed with the uniform weights by a smoothing factor.

A policy's state (``state_dict``/``load_state_dict``) goes into the checkpoint beside the
loader's, so a resumed run decides the same weights from the same losses.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

import numpy as np


class MixPolicy(Protocol):
    """Decides group weights from per-group losses."""

    def update(self, step: int, group_losses: Mapping[str, float]) -> dict[str, float]:
        """The weights to use after ``step``, given each group's mean loss in it (a group
        absent from the batch is absent from ``group_losses``)."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """What a resumed run needs to decide the same weights."""
        ...

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Continue from ``state_dict()``."""
        ...


def _normalized(values: np.ndarray, names: Sequence[str]) -> dict[str, float]:
    values = values / values.sum()
    return dict(zip(names, values.tolist(), strict=True))


class EXP3:
    """ODM's EXP3 with decaying exploration (Albalak et al. 2023, algorithm 1).

    Exploration at step ``t`` is ``eps_t = min(1/K, sqrt(ln K / (K t)))``; the weights are
    ``(1 - K eps_t) softmax(eps_{t-1} R) + eps_t``, where ``R`` is each group's
    importance-weighted reward (its loss divided by the probability it had) as a moving
    average: ``R <- smoothing R + (1 - smoothing) loss / p`` for each group in the batch. The
    moving average is what ODM adds to EXP3: a cumulative sum never forgets, so the groups
    drawn least pile up rewards of ``loss / p`` until one of them takes the weight, then the
    next (in bench/dynamic_mix, with the sum, the weight swung between a few languages, up to
    0.51 on one, while cy, eu, ga and is sat at the exploration floor of 0.03-0.04).

    With ``explore="initial"`` the exploration share goes to the initial weights instead of
    uniform ones (``(1 - K eps_t) softmax + K eps_t initial``): no group falls below its share
    of the exploration floor in the mix it started from (in bench/dynamic_mix, ODM held
    Armenian, whose tokens are the cheapest to predict, at the uniform floor and its loss rose
    from 5.1 to 7.5).

    ``min_explore`` keeps the exploration share from decaying below it: with ``explore="initial"``
    and ``min_explore=0.5``, half of every batch follows the mix's own weights and the bandit
    steers the other half, so a group the bandit stops drawing still gets half its share.

    Args:
        groups: The group names (``MixLoader.group_names``).
        initial: Weights to start from (uniform when None).
        smoothing: The moving average's factor (ODM: 0.9).
        explore: Where the exploration share goes: ``uniform`` (ODM) or ``initial``.
        min_explore: The least exploration share, in [0, 1] (ODM: 0, the share decays to 0;
            1: the weights never leave the exploration target).
    """

    def __init__(
        self,
        groups: Sequence[str],
        initial: Mapping[str, float] | None = None,
        *,
        smoothing: float = 0.9,
        explore: Literal["uniform", "initial"] = "uniform",
        min_explore: float = 0.0,
    ) -> None:
        if not 0.0 <= smoothing < 1.0:
            raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")
        if explore not in ("uniform", "initial"):
            raise ValueError(f"explore must be 'uniform' or 'initial', got {explore!r}")
        if not 0.0 <= min_explore <= 1.0:
            raise ValueError(f"min_explore must be in [0, 1], got {min_explore}")
        self.groups = tuple(groups)
        self.smoothing = smoothing
        self.min_explore = min_explore
        k = len(self.groups)
        self.rewards = np.zeros(k)
        start = np.array([(initial or {}).get(g, 1.0 / k) for g in self.groups])
        self.weights = start / start.sum()
        self.floor = self.weights.copy() if explore == "initial" else np.full(k, 1.0 / k)
        self.eps_previous = 1.0 / k

    def _eps(self, step: int) -> float:
        k = len(self.groups)
        return min(1.0 / k, math.sqrt(math.log(k) / (k * max(step, 1))))

    def update(self, step: int, group_losses: Mapping[str, float]) -> dict[str, float]:
        k = len(self.groups)
        for g, name in enumerate(self.groups):
            if name in group_losses:
                reward = float(group_losses[name]) / max(self.weights[g], 1e-12)
                self.rewards[g] = self.smoothing * self.rewards[g] + (1 - self.smoothing) * reward
        eps = self._eps(step + 1)
        scores = self.eps_previous * self.rewards
        soft = np.exp(scores - scores.max())
        explored = max(k * eps, self.min_explore)
        self.weights = (1 - explored) * soft / soft.sum() + explored * self.floor
        self.eps_previous = eps
        return _normalized(self.weights, self.groups)

    def state_dict(self) -> dict[str, Any]:
        return {
            "rewards": self.rewards.tolist(),
            "weights": self.weights.tolist(),
            "eps_previous": self.eps_previous,
            "floor": self.floor.tolist(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.rewards = np.array(state["rewards"], dtype=np.float64)
        self.weights = np.array(state["weights"], dtype=np.float64)
        self.eps_previous = float(state["eps_previous"])
        if "floor" in state:  # the weights it started from, not those it resumes with
            self.floor = np.array(state["floor"], dtype=np.float64)


class ExcessLoss:
    """DoReMi-style weights from excess loss over a reference run (Xie et al. 2023, eq. 1-2).

    Each update: ``excess = max(loss - reference, 0)`` per group, ``alpha <- alpha *
    exp(step_size * excess)`` (normalized), and the weights used are ``(1 - smoothing) alpha
    + smoothing / K``. DoReMi compares each example's loss with a reference *model*'s loss of the
    same example, in batches that hold every domain. Online, without a reference model, the
    reference is a reference run's logged per-group loss (``examples/train_tiny.py`` writes
    ``group_loss_trajectory`` to its run record): each group is compared with the reference's
    loss *at the same step* (its latest logged at or before it), so that a group the policy
    favours falls below the reference and stops gaining, as in DoReMi. A group absent from
    an update's losses (a window of long packed documents holds a few groups) keeps its
    latest loss, so it is not pushed down for being absent. Against one final loss per group
    (a mapping, as older run records give), every group's early loss is far above it: the
    weights then compound onto whichever group is furthest from its end point (in
    bench/dynamic_mix, one language held 0.999 by step 30).

    Args:
        groups: The group names.
        reference: The reference run's loss of each group: a trajectory, rows ``(step,
            {group: loss})`` in step order, or one loss per group for every step. A group it
            never logged gets no excess (with a warning); a group this mix lacks is an error.
        step_size: The exponentiated-gradient step (DoReMi: 1).
        smoothing: The share of uniform weights mixed in (DoReMi: 1e-3).
        initial: Weights to start from (uniform, as DoReMi, when None).
    """

    def __init__(
        self,
        groups: Sequence[str],
        reference: Mapping[str, float] | Sequence[tuple[int, Mapping[str, float]]],
        *,
        step_size: float = 1.0,
        smoothing: float = 1e-3,
        initial: Mapping[str, float] | None = None,
    ) -> None:
        self.groups = tuple(groups)
        rows = [(0, reference)] if isinstance(reference, Mapping) else list(reference)
        seen = {g for _, losses in rows for g in losses}
        unknown = sorted(seen - set(self.groups))
        if unknown or not seen:
            raise ValueError(
                f"the reference run logged losses of group(s) {', '.join(unknown)} this mix "
                "does not have: use a reference run of the same groups"
                if unknown
                else "the reference run logged no loss"
            )
        # a group the reference never read (a short run of many small groups) has no excess
        self.unreferenced = tuple(g for g in self.groups if g not in seen)
        if self.unreferenced:
            warnings.warn(
                f"the reference run logged no loss for group(s) {', '.join(self.unreferenced)}: "
                "their weights move only as the others' do (train the reference longer)",
                stacklevel=2,
            )
        if any(b[0] < a[0] for a, b in itertools.pairwise(rows)):
            raise ValueError("the reference trajectory's steps must not decrease")
        # each group's reference loss from each logged step on (carried forward; before its
        # first logged loss, that one)
        k = len(self.groups)
        self.reference_steps = np.array([int(step) for step, _ in rows], dtype=np.int64)
        table = np.full((len(rows), k), np.nan)
        for i, (_, losses) in enumerate(rows):
            for g, name in enumerate(self.groups):
                if name in losses:
                    table[i, g] = float(losses[name])
        for g in range(k):
            column = table[:, g]
            known = np.flatnonzero(~np.isnan(column))
            if not len(known):
                continue  # unreferenced: NaN, no excess
            at = np.searchsorted(known, np.arange(len(rows)), side="right") - 1
            column[:] = column[known[np.maximum(at, 0)]]
        self.reference = table
        self.step_size, self.smoothing = step_size, smoothing
        start = np.array([(initial or {}).get(g, 1.0 / k) for g in self.groups], dtype=np.float64)
        self.alpha = start / start.sum()
        self.latest = np.full(k, np.nan)  # each group's latest loss

    def reference_at(self, step: int) -> dict[str, float]:
        """The reference loss of each group at ``step``."""
        row = max(0, int(np.searchsorted(self.reference_steps, step, side="right")) - 1)
        return dict(zip(self.groups, self.reference[row].tolist(), strict=True))

    def update(self, step: int, group_losses: Mapping[str, float]) -> dict[str, float]:
        for g, name in enumerate(self.groups):
            if name in group_losses:
                self.latest[g] = float(group_losses[name])
        reference = np.array(list(self.reference_at(step).values()))
        unknown = np.isnan(self.latest) | np.isnan(reference)
        excess = np.where(unknown, 0.0, np.maximum(self.latest - reference, 0.0))
        logits = np.log(self.alpha) + self.step_size * excess
        alpha = np.exp(logits - logits.max())
        self.alpha = alpha / alpha.sum()
        weights = (1 - self.smoothing) * self.alpha + self.smoothing / len(self.groups)
        return _normalized(weights, self.groups)

    def state_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha.tolist(),
            "latest": [None if math.isnan(v) else v for v in self.latest.tolist()],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.alpha = np.array(state["alpha"], dtype=np.float64)
        latest = state.get("latest") or [None] * len(self.groups)
        self.latest = np.array([math.nan if v is None else v for v in latest], dtype=np.float64)


def group_losses(
    token_losses: Any, group_ids: Any, names: Sequence[str], *, all_reduce: bool = True
) -> dict[str, float]:
    """The mean loss of each group in a batch, from per-token losses (``cross_entropy(...,
    reduction="none")``) and the batch's ``group_ids``; summed over every rank first when a
    process group is initialized, so every rank decides the same weights. Padding (-1) and
    ignored labels (loss 0 with a -1 group) are left out; a group with no token is absent.
    """
    import torch

    ids = group_ids.reshape(-1).long()
    losses = token_losses.reshape(-1).detach().double()
    keep = ids >= 0
    sums = torch.zeros(len(names), dtype=torch.float64).index_add_(0, ids[keep], losses[keep])
    counts = torch.zeros(len(names), dtype=torch.float64).index_add_(
        0, ids[keep], torch.ones_like(losses[keep])
    )
    return mean_losses(sums, counts, names, all_reduce=all_reduce)


def mean_losses(
    sums: Any, counts: Any, names: Sequence[str], *, all_reduce: bool = True
) -> dict[str, float]:
    """Each group's mean loss from the sums and token counts of its losses (float64 tensors),
    summed over every rank first when a process group is initialized."""
    import torch

    if all_reduce:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            both = torch.stack([sums, counts])
            dist.all_reduce(both)
            sums, counts = both[0], both[1]
    return {
        name: float(sums[g] / counts[g]) for g, name in enumerate(names) if float(counts[g]) > 0
    }
