"""DynamicPlanner: the batches of a rank when the mix's group weights change during the run.

A rank's token stream is a sequence of draws: draw ``j`` takes the next item of one group's
stream (``groups.py``), the group chosen by a uniform number that is a hash of (seed, rank,
``j``) against the weights in force at the step where the draw's first token is first read
(``weights.py``). Weights are shares of tokens, as a mix's weights are everywhere, so a group is
drawn with probability proportional to its weight divided by its items' mean tokens: a group
whose documents are five times as long is drawn a fifth as often for the same weight. So the
batches are a pure function of the seed, the rank and the weight history: the same history
gives the same batches, whatever was planned, prefetched or resumed before.
The stream is packed into sequences as ``planner.py`` packs an epoch (Megatron-style, ``seq_len +
1`` tokens a window, every token an input once), without epochs: it never ends, every batch is
full, and a group that runs out starts its next epoch (counted) or, when capped, stops.

Planning is vectorized over runs of steps with the same weights (up to ``ahead`` batches): the
draws of a run are chosen in one numpy step, and their store rows, in every group, are one gather
(``lookahead.py``). The state after a batch is the step, the draws
made, each group's items drawn and the offset into the document being read.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from torchdata.nodes import BaseNode

from lakemix.errors import LakemixError
from lakemix.loader.groups import GroupStream
from lakemix.loader.lookahead import Lookahead
from lakemix.loader.order import _GOLDEN, _MASK, _mix64
from lakemix.loader.planner import PLAN_BATCHES, PLAN_TOKENS, BatchPlan
from lakemix.loader.schedule import Schedule
from lakemix.loader.weights import WeightHistory


class GroupsExhausted(LakemixError):
    """Every group with weight reached its cap (``when_exhausted: cap``)."""


def uniforms(seed: int, salt: int, first: int, count: int) -> NDArray[np.float64]:
    """Uniform numbers in [0, 1) of draws ``first .. first + count - 1`` (53 bits each).

    The seed and salt are hashed before the draw number is added: with ``seed * golden`` added
    as it is, seed ``s + 1``'s draw ``j`` was seed ``s``'s draw ``j + 1``, so every seed drew
    the same sequence of groups, shifted by one.
    """
    start = (seed * _GOLDEN + salt * 0xD1B54A32D192ED03 + 0x2545F4914F6CDD1D) & _MASK
    base = int(_mix64(np.array([start], dtype=np.uint64))[0])
    index = np.arange(first, first + count, dtype=np.uint64) * np.uint64(_GOLDEN)
    bits = _mix64(_mix64(index + np.uint64(base)))
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def choose(u: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.int64]:
    """The group of each draw: ``u`` against the cumulated weights (weight 0: never)."""
    cumulated = np.cumsum(weights)
    cumulated /= cumulated[-1]
    chosen = np.searchsorted(cumulated, u, side="right")
    return np.minimum(chosen, len(weights) - 1).astype(np.int64)


class Clock:
    """A run's tokens (every rank's) at each step: ``origin`` is ``(step, tokens)`` where this
    world size took over (``(0, 0)`` from the start; an elastic resume starts a new one).

    Args:
        origin: The step and the run's tokens then.
        tokens: A rank's tokens a step (``seq_len * batch_size``).
        world_size: The ranks reading.
    """

    def __init__(self, origin: tuple[int, int], tokens: int, world_size: int) -> None:
        self.origin, self.per_step = origin, tokens * world_size

    def tokens_at(self, step: int) -> int:
        """The run's tokens when step ``step`` starts."""
        return self.origin[1] + (step - self.origin[0]) * self.per_step

    def steps_until(self, tokens: int) -> int:
        """The first step that starts at or after ``tokens`` run tokens."""
        return self.origin[0] + -(-(tokens - self.origin[1]) // self.per_step)


class Clocks:
    """A run's clock over every world size it ran at: each one's ``Clock``, in order (an
    elastic resume adds one)."""

    def __init__(self, clocks: list[Clock]) -> None:
        self.clocks = clocks

    def tokens_at(self, step: int) -> int:
        """The run's tokens when step ``step`` starts."""
        clock = [c for c in self.clocks if c.origin[0] <= step][-1]
        return clock.tokens_at(step)

    def steps_until(self, tokens: int) -> int:
        """The first step that starts at or after ``tokens`` run tokens."""
        clock = [c for c in self.clocks if c.origin[1] <= tokens][-1]
        return clock.steps_until(tokens)


class DynamicPlanner(BaseNode[BatchPlan]):  # type: ignore[misc]  # torchdata is untyped
    """Plans the batches of rank ``rank`` of ``world_size`` of a dynamic mix, without end.

    Args:
        streams: One ``GroupStream`` per group, in the history's group order.
        lengths: Tokens of each stored document.
        history: The weights over the run.
        seq_len, batch_size: Input tokens per sequence, sequences per batch.
        rank, world_size: This rank, and how many read the run.
        seed: The run's seed.
        max_epochs: Epochs of a group before a warning (``cap``: before it stops).
        cap: Stop a group after ``max_epochs`` epochs instead of repeating it.
        origin: ``(step, tokens)``: the run's tokens at a step of this world size (an elastic
            resume starts a new origin); ``(0, 0)`` from the start.
        start: The state ``reset()`` without one starts from (a resume).
        ahead: Batches planned at once, at most (about ``PLAN_TOKENS`` tokens' worth if None).
        warned: The groups warned of already (shared by the planners of one loader: a warning
            a group a run).
        cadence: ``(every, at)``: the weights are expected to change at steps ``at + k *
            every`` (as they did last); plans stop there, so a change drops none. Only where
            plans are cut: the batches are the same.
        lookahead: The windows of ``streams``' rows (kept by the loader across planners: the
            rows of an item number do not depend on the weights); a new one if None.
    """

    def __init__(
        self,
        *,
        streams: list[GroupStream],
        lengths: NDArray[np.int64],
        history: WeightHistory,
        seq_len: int,
        batch_size: int,
        rank: int,
        world_size: int,
        seed: int,
        max_epochs: float = 1.0,
        cap: bool = False,
        origin: tuple[int, int] = (0, 0),
        start: dict[str, Any] | None = None,
        ahead: int | None = None,
        warned: set[int] | None = None,
        cadence: tuple[int, int] | None = None,
        lookahead: Lookahead | None = None,
    ) -> None:
        super().__init__()
        self._streams, self._lengths, self._history = streams, lengths, history
        self._seq_len, self._batch_size = seq_len, batch_size
        self._rank, self._world, self._seed = rank, world_size, seed
        self._max_epochs, self._cap = max_epochs, cap
        self._tokens = seq_len * batch_size  # a rank's tokens a step
        self._ahead = ahead or min(PLAN_BATCHES, max(1, PLAN_TOKENS // self._tokens))
        self._origin, self._start = origin, start
        self._warned = set() if warned is None else warned
        self._cadence = cadence
        self._look = Lookahead(streams) if lookahead is None else lookahead
        # A group's items' mean tokens: weights (token shares) become draw probabilities.
        self._item_tokens = np.array([stream.mean_tokens(lengths) for stream in streams])
        self._restart(None)

    def _restart(self, state: dict[str, Any] | None) -> None:
        groups = len(self._streams)
        self._planned: list[BatchPlan] = []
        if state is None:
            self._step, self._draws = self._origin[0], 0
            self._items = np.zeros(groups, dtype=np.int64)
            self._open = (-1, 0)  # (group, offset into its last item): none yet
            return
        self._step, self._draws = int(state["step"]), int(state["draws"])
        self._origin = (int(state["origin"][0]), int(state["origin"][1]))
        self._items = np.array(state["items"], dtype=np.int64)
        self._open = (int(state["open"][0]), int(state["open"][1]))
        if len(self._items) != groups:
            raise ValueError(f"the state has {len(self._items)} groups, this mix {groups}")

    def reset(self, initial_state: dict[str, Any] | None = None) -> None:
        super().reset(initial_state)
        self._restart(initial_state if initial_state is not None else self._start)

    def get_state(self) -> dict[str, Any]:
        """The position after the last batch planned and delivered."""
        return self._state(self._step, self._draws, self._items.tolist(), self._open)

    def _state(
        self, step: int, draws: int, items: list[int], open_: tuple[int, int]
    ) -> dict[str, Any]:
        return {
            "step": step,
            "origin": list(self._origin),
            "draws": draws,
            "items": items,
            "open": list(open_),
        }

    def tokens_at(self, step: int) -> int:
        """The run's tokens (every rank's) when step ``step`` starts."""
        return Clock(self._origin, self._tokens, self._world).tokens_at(step)

    def next(self) -> BatchPlan:
        if not self._planned:
            self._plan()
        return self._planned.pop()

    def _plan(self) -> None:
        """Plan the batches from the current step while the weights stay the same."""
        step = self._step
        change = self._history.next_change(self.tokens_at(step))
        last = step + self._ahead
        if change is not None:
            clock = Clock(self._origin, self._tokens, self._world)
            last = min(last, max(step + 1, clock.steps_until(change)))
        if self._cadence is not None:  # the next step where the weights are expected to change
            every, at = self._cadence
            last = min(last, at + every * max(0, -(-(step + 1 - at) // every)))
        weights = self._history.at(self.tokens_at(step))
        steps = last - step
        need = steps * self._tokens  # stream tokens from here; the token at `need` is read too
        # The item being read (if any): it starts the plan.
        rows, starts, groups = self._open_item()
        try:
            self._draw(weights, need, rows, starts, groups)
        except GroupsExhausted:  # plan the steps the groups still cover, if any
            covered = sum(
                int((self._lengths[r] - s).sum()) for r, s in zip(rows, starts, strict=True)
            )
            steps = (covered - 1) // self._tokens
            if steps < 1:
                raise
        self._packed(steps, rows, starts, groups)

    def _open_item(
        self,
    ) -> tuple[list[NDArray[np.int64]], list[NDArray[np.int64]], list[NDArray[np.int64]]]:
        group, offset = self._open
        if group < 0:
            empty = np.zeros(0, dtype=np.int64)
            return [empty], [empty], [empty]
        groups = np.array([group], dtype=np.int64)
        item = self._items[groups] - 1
        low = np.zeros(len(self._streams), dtype=np.int64)
        high = np.full(len(self._streams), -1, dtype=np.int64)
        low[group] = high[group] = item[0]
        row, start = self._look.lookup(groups, item, low, high)
        return [row], [start + offset], [groups]

    def _allowed(
        self, weights: NDArray[np.float64], items: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """The weights with the groups at their cap at 0 (``cap``; otherwise the weights)."""
        if not self._cap:
            return weights
        epochs = self._look.epochs(np.arange(len(self._streams), dtype=np.int64), items)
        over = epochs >= self._max_epochs
        allowed = np.where(over, 0.0, weights)
        if allowed.sum() <= 0:
            raise GroupsExhausted(
                f"every group with weight has reached max_epochs {self._max_epochs:g} "
                f"(weights {dict(zip(self._history.groups, weights.tolist(), strict=True))}); "
                "give weight to another group, raise groups.max_epochs or repeat them"
            )
        return allowed

    def _draw(
        self,
        weights: NDArray[np.float64],
        need: int,
        rows: list[NDArray[np.int64]],
        starts: list[NDArray[np.int64]],
        groups: list[NDArray[np.int64]],
    ) -> None:
        """Draw items until they cover stream token ``need``; appends their rows, start tokens
        and groups to the lists."""
        draws, items = self._draws, self._items.copy()
        covered = int(
            sum(int((self._lengths[r] - s).sum()) for r, s in zip(rows, starts, strict=True))
        )
        allowed = self._allowed(weights, items) / self._item_tokens
        per_draw = float((allowed * self._item_tokens).sum() / allowed.sum())  # tokens a draw
        guess = int(need / per_draw * 1.25) + 8
        while covered <= need:
            chosen = choose(uniforms(self._seed, self._salt(), draws, guess), allowed)
            counts = np.bincount(chosen, minlength=len(self._streams))
            # each draw's item number in its group: the group's count so far, in draw order
            # (a stable sort of 16-bit numbers is a radix sort: linear)
            small = chosen.astype(np.int16) if len(self._streams) < 1 << 15 else chosen
            order = np.argsort(small, kind="stable")
            rank_in_group = np.arange(guess) - np.repeat(np.cumsum(counts) - counts, counts)
            numbers = np.empty(guess, dtype=np.int64)
            numbers[order] = items[chosen[order]] + rank_in_group
            keep = guess
            if self._cap:  # a capped group stops at its cap: draw again from there
                over = np.flatnonzero(self._look.epochs(chosen, numbers) >= self._max_epochs)
                keep = int(over[0]) if len(over) else guess
            if keep < guess:
                chosen, numbers = chosen[:keep], numbers[:keep]
                counts = np.bincount(chosen, minlength=len(self._streams))
            # a group's numbers run from its items so far up: one gather for every group
            last = items + counts - 1
            new_rows, new_starts = self._look.lookup(chosen, numbers, items, last)
            self._warn(counts, last)
            sizes = self._lengths[new_rows] - new_starts
            ends = covered + np.cumsum(sizes)
            # draws past the one that covers `need` are not taken
            used = min(keep, int(np.searchsorted(ends, need, side="right")) + 1)
            rows.append(new_rows[:used])
            starts.append(new_starts[:used])
            groups.append(chosen[:used])
            items += np.bincount(chosen[:used], minlength=len(self._streams))
            draws += used
            covered = int(ends[used - 1]) if used else covered
            guess *= 2
            if covered <= need:  # another round: caps may have been reached
                allowed = self._allowed(weights, items) / self._item_tokens

    def _warn(self, counts: NDArray[np.int64], last: NDArray[np.int64]) -> None:
        """Warn, once a group, when a repeated group is read beyond ``max_epochs`` (``last``:
        each group's last item drawn, of the groups with ``counts``)."""
        if self._cap:
            return
        epochs = self._look.epochs(np.arange(len(counts), dtype=np.int64), last)
        for group in np.flatnonzero((counts > 0) & (epochs >= self._max_epochs)).tolist():
            if group in self._warned:
                continue
            self._warned.add(group)
            warnings.warn(
                f"group {self._history.groups[group]!r} is read beyond the mix's max_epochs "
                f"{self._max_epochs:g} (rank {self._rank} plans its epoch "
                f"{int(epochs[group]) + 1})",
                stacklevel=3,
            )

    def _salt(self) -> int:
        """Draw numbers restart at an elastic resume: its origin and this rank tell them apart."""
        return (self._origin[1] * 0x9E3779B1 + self._rank * 0x85EBCA77 + self._world) & _MASK

    def _packed(
        self,
        steps: int,
        row_parts: list[NDArray[np.int64]],
        start_parts: list[NDArray[np.int64]],
        group_parts: list[NDArray[np.int64]],
    ) -> None:
        """Cut the drawn items into ``steps`` batches of windows (as ``planner.py`` does)."""
        rows, starts = np.concatenate(row_parts), np.concatenate(start_parts)
        groups = np.concatenate(group_parts)
        opened = len(row_parts[0])  # 1 when the plan starts inside an item
        sizes = self._lengths[rows] - starts
        ends = np.cumsum(sizes)
        begins_of_items = ends - sizes
        step, size = self._seq_len, self._batch_size
        windows = steps * size
        begins = step * np.arange(windows, dtype=np.int64)
        stops = begins + step + 1
        firsts = np.searchsorted(ends, begins, side="right")
        counts = np.searchsorted(ends, stops - 1, side="right") - firsts + 1
        window = np.repeat(np.arange(windows, dtype=np.int64), counts)
        bounds = np.cumsum(counts) - counts
        item = np.arange(len(window), dtype=np.int64) + np.repeat(firsts - bounds, counts)
        pieces = np.empty((len(window), 5), dtype=np.int64)
        pieces[:, 0] = window % size
        pieces[:, 1] = rows[item]
        pieces[:, 2] = (
            starts[item] + np.maximum(begins[window], begins_of_items[item]) - begins_of_items[item]
        )
        pieces[:, 3] = starts[item] + np.minimum(stops[window], ends[item]) - begins_of_items[item]
        pieces[:, 4] = groups[item]
        cuts = np.searchsorted(window, np.arange(0, windows + size, size)).tolist()
        # The state after batch k: at stream token (k + 1) * tokens, inside item `at`.
        positions = self._tokens * np.arange(1, steps + 1, dtype=np.int64)
        at = np.searchsorted(ends, positions, side="right")
        offsets = positions - begins_of_items[at]
        offsets[at == 0] += self._open[1] if opened else 0
        # each group's items drawn up to and including item `at` (the open item is counted):
        # the draws counted per batch they end before (a bincount), then summed over batches
        groups_count = len(self._streams)
        batch_of = np.searchsorted(at, np.arange(opened, len(rows), dtype=np.int64), side="left")
        within = batch_of < steps
        counted = np.bincount(
            batch_of[within] * groups_count + groups[opened:][within],
            minlength=steps * groups_count,
        ).reshape(steps, groups_count)
        drawn = np.cumsum(counted, axis=0) + self._items
        first_draw, first_step, origin = self._draws, self._step, self._origin
        draws = (first_draw + at - opened + 1).tolist()
        items, open_groups, within_items = drawn.tolist(), groups[at].tolist(), offsets.tolist()
        planned = []
        for k in range(steps - 1, -1, -1):  # popped from the end
            state = {
                "step": first_step + k + 1,
                "origin": list(origin),
                "draws": draws[k],
                "items": items[k],
                "open": [open_groups[k], within_items[k]],
            }
            planned.append(BatchPlan(pieces[cuts[k] : cuts[k + 1]], size, state, False))
        self._planned = planned
        self._step += steps
        self._draws = draws[-1]
        self._items = drawn[-1].copy()
        self._open = (open_groups[-1], within_items[-1])


def stream_first(data: list[Any] | None) -> tuple[int, Schedule] | None:
    """``GroupStream``'s ``first`` from its JSON form (``first_dict``)."""
    if data is None:
        return None
    return int(data[0]), Schedule.from_dict(data[1])
