"""BatchPlanner: the node that decides which tokens go into each packed sequence of a rank.

Sequences are packed Megatron-style: the rank's samples, in schedule order, form one token
stream (each document ends with its end-of-text token); sequence ``k`` is tokens
``k*seq_len .. (k+1)*seq_len`` of it (``seq_len + 1`` tokens: inputs are the first ``seq_len``,
labels the last ``seq_len``), so no token is lost at a sequence boundary: every token of the
epoch is an input exactly once (the last of a rank's stream without a label). A document
longer than a sequence continues in the next one.

Planning needs only token counts, so it is cheap and sequential; the plans are turned into
tensors by ``materialize.py``, in parallel. The state is the epoch, the schedule and the rank's
cursor: resuming seeks straight to it, whatever the position.

The windows are planned with numpy, several batches at a time (``ahead``): in stream
coordinates (tokens from the cursor on), window ``j`` is ``[j*seq_len, j*seq_len + seq_len +
1)``, cut at the end of the rank's stream, and its pieces are the samples that overlap it. The
pieces and states are the same as planning one token range after another (the loops in
``python/tests/unit/loader/reference.py``, which a test compares with this).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from torchdata.nodes import BaseNode

from lakemix.loader.order import EpochOrder, Shuffle
from lakemix.loader.schedule import Cursor, Schedule

# Tokens' worth of batches planned in one step: numpy's per-call costs spread over many batches.
PLAN_TOKENS = 1 << 20
PLAN_BATCHES = 256  # and at most this many: a resume plans one step before its first batch


class BatchPlan(NamedTuple):
    """The pieces of one batch: rows ``(window, store row, start, stop, position)``, the
    planner's state once the batch is delivered, and whether it is its epoch's last (a named
    tuple: immutable, and cheaper to make than a frozen dataclass, once a batch)."""

    pieces: NDArray[np.int64]
    windows: int
    state: dict[str, Any]
    last: bool = False


class BatchPlanner(BaseNode[BatchPlan]):  # type: ignore[misc]  # torchdata is untyped
    """Plans the batches of rank ``rank`` of ``world_size``, epoch after epoch, without end.

    A batch never spans two epochs (the last of an epoch may be short); its state says which
    epoch it belongs to. The stream does not stop between epochs, so worker threads and
    processes live on from one epoch to the next.

    Args:
        keys, repeats, lengths: Per stored document: key, copies in the mix, tokens.
        seq_len: Input tokens per sequence.
        batch_size: Sequences per batch (the last batch of an epoch may have fewer).
        rank, world_size: This rank, and how many share the epoch.
        seed: Seed of the shuffle.
        start: The state ``reset()`` without one starts from (a resume); else epoch 0.
        ahead: Batches planned at once (about ``PLAN_TOKENS`` tokens' worth when None).
    """

    def __init__(
        self,
        *,
        keys: NDArray[np.uint64],
        repeats: NDArray[np.int64],
        lengths: NDArray[np.int64],
        seq_len: int,
        batch_size: int,
        rank: int,
        world_size: int,
        seed: int,
        start: dict[str, Any] | None = None,
        ahead: int | None = None,
    ) -> None:
        super().__init__()
        self._keys, self._repeats, self._lengths = keys, repeats, lengths
        self._seq_len = seq_len
        self._batch_size, self._rank, self._world_size, self._seed = (
            batch_size,
            rank,
            world_size,
            seed,
        )
        self._ahead = ahead or min(PLAN_BATCHES, max(1, PLAN_TOKENS // (batch_size * seq_len)))
        self._start = start
        self._total = int(repeats.sum())
        if not 0 <= rank < min(world_size, self._total):
            raise ValueError(
                f"rank {rank} of {world_size} has nothing to read in an epoch of {self._total} "
                "samples: use at most as many ranks as samples"
            )
        # Tokens of an average sample: a first guess of how many samples a plan needs.
        self._mean = max(1.0, float(lengths @ repeats) / self._total)
        self._epoch = 0
        self._order: EpochOrder | None = None
        self._shuffle: Shuffle | None = None  # made on first use (no work in __init__)
        self._order_epoch = -1
        self._schedule = Schedule(self._total, world_size)
        self._pending = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self._cursor = Cursor()
        self._state_schedule = self._schedule.to_dict()  # shared by the states of the epoch
        # Planned, not yet delivered, in order: each batch's plan and the cursor after it.
        self._planned: deque[tuple[BatchPlan, Cursor]] = deque()

    def reset(self, initial_state: dict[str, Any] | None = None) -> None:
        super().reset(initial_state)
        self._planned.clear()
        state = initial_state if initial_state is not None else self._start
        if state is None:
            self._epoch, self._cursor = 0, Cursor()
            self._set_schedule(Schedule(self._total, self._world_size))
            return
        self._epoch = int(state["epoch"])
        self._set_schedule(Schedule.from_dict(state["schedule"]))
        self._cursor = Cursor(*(int(v) for v in state["cursor"]))
        if self._schedule.total != self._total:
            raise ValueError(
                f"the state is of an epoch of {self._schedule.total} samples, this split "
                f"has {self._total}: it belongs to another release or split"
            )

    def _set_schedule(self, schedule: Schedule) -> None:
        self._schedule = schedule
        self._state_schedule = schedule.to_dict()
        pending = np.array(schedule.pending, dtype=np.int64).reshape(-1, 2)
        self._pending = (pending[:, 0].copy(), pending[:, 1].copy())

    def get_state(self) -> dict[str, Any]:
        """The position after the last batch delivered. Its ``schedule`` is one dict shared by
        the states of a schedule (not copied for every batch): copy a state before editing."""
        return {
            "epoch": self._epoch,
            "schedule": self._state_schedule,
            "cursor": [self._cursor.item, self._cursor.offset],
        }

    def next(self) -> BatchPlan:
        if not self._planned:
            if self._cursor.item >= self._schedule.count(self._rank):  # the epoch is done
                self._epoch, self._cursor = self._epoch + 1, Cursor()
                self._set_schedule(Schedule(self._total, self._world_size))
            if self._order_epoch != self._epoch:
                if self._shuffle is None:
                    self._shuffle = Shuffle(self._keys, self._repeats)
                self._order = self._shuffle.order(seed=self._seed, epoch=self._epoch)
                self._order_epoch = self._epoch
            self._plan()
        plan, self._cursor = self._planned.popleft()
        return plan

    def _items(self, first: int, stop: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(positions, start tokens)`` of this rank's items ``first .. stop - 1``."""
        index = self._rank + self._world_size * np.arange(first, stop, dtype=np.int64)
        positions, starts = self._pending
        if len(positions) == 0 or index[0] >= len(positions):
            return self._schedule.tail + index - len(positions), np.zeros(len(index), np.int64)
        cut = int(np.searchsorted(index, len(positions)))
        head = index[:cut]
        tail = self._schedule.tail + index[cut:] - len(positions)
        return (
            np.concatenate([positions[head], tail]),
            np.concatenate([starts[head], np.zeros(len(tail), np.int64)]),
        )

    def _plan(self) -> None:
        """Plan up to ``ahead`` batches from the cursor, none past the end of the epoch."""
        assert self._order is not None
        count = self._schedule.count(self._rank)
        first, offset, step = self._cursor.item, self._cursor.offset, self._seq_len
        windows = self._ahead * self._batch_size
        wanted = offset + windows * step + 1  # tokens from the start of item `first`
        guess = int(wanted / self._mean * 1.25) + 8
        while True:  # read samples until they cover every window, or the stream ends
            stop = min(count, first + guess)
            positions, starts = self._items(first, stop)
            rows = self._order.rows[positions]
            sizes = self._lengths[rows] - starts
            ends = np.cumsum(sizes)
            if stop == count or ends[-1] >= wanted:
                break
            guess *= 2
        if ends[-1] < wanted:  # the stream ends: windows start while there is a token left
            windows = min(windows, -(-(int(ends[-1]) - offset) // step))
        begins = offset + step * np.arange(windows, dtype=np.int64)
        stops = np.minimum(begins + step + 1, ends[-1])
        firsts = np.searchsorted(ends, begins, side="right")
        counts = np.searchsorted(ends, stops - 1, side="right") - firsts + 1
        window = np.repeat(np.arange(windows, dtype=np.int64), counts)
        bounds = np.cumsum(counts) - counts
        item = np.arange(len(window), dtype=np.int64) + np.repeat(firsts - bounds, counts)
        item_begins = (ends - sizes)[item]
        pieces = np.empty((len(window), 5), dtype=np.int64)
        pieces[:, 0] = window
        pieces[:, 1] = rows[item]
        pieces[:, 2] = starts[item] + np.maximum(begins[window], item_begins) - item_begins
        pieces[:, 3] = starts[item] + np.minimum(stops[window], ends[item]) - item_begins
        pieces[:, 4] = positions[item]
        # Batch k holds windows k*batch_size on; its cursor is its last window's last token
        # (the next window's first), or the end of the stream after a short window.
        size = self._batch_size
        lasts = np.minimum(np.arange(size, windows + size, size), windows) - 1
        full = stops[lasts] - begins[lasts] == step + 1
        tokens = begins[lasts] + step
        at = np.minimum(np.searchsorted(ends, tokens, side="right"), len(ends) - 1)
        offsets = tokens - (ends - sizes)[at]
        cuts = np.searchsorted(window, np.arange(0, windows + size, size)).tolist()
        pieces[:, 0] = window % size  # windows numbered in their batch
        items, within = (first + at).tolist(), offsets.tolist()
        epoch, schedule = self._epoch, self._state_schedule
        for k, (last, whole) in enumerate(zip(lasts.tolist(), full.tolist(), strict=True)):
            cursor = Cursor(items[k], within[k]) if whole else Cursor(count, 0)
            # get_state() once the batch is delivered, made here
            state = {"epoch": epoch, "schedule": schedule, "cursor": [cursor.item, cursor.offset]}
            # Only the epoch's last window is short (a full one leaves its last token to come).
            plan = BatchPlan(pieces[cuts[k] : cuts[k + 1]], last - k * size + 1, state, not whole)
            self._planned.append((plan, cursor))


class Grouper(BaseNode[list[BatchPlan]]):  # type: ignore[misc]  # torchdata is untyped
    """Consecutive plans to build together: up to ``size`` of them, and none after the last
    of an epoch, so that a group is one run of the rank's token stream (torchdata's
    ``Batcher`` would cut groups across epochs, and each cut costs a build of its own).

    Args:
        source: The plans (an endless stream, as ``BatchPlanner`` gives).
        size: Plans per group, at most.
        cut: Whether a group ends after a plan (a dynamic mix: where its weights are expected
            to change, so that a change drops no batch built ahead of it).
    """

    def __init__(
        self,
        source: BaseNode[BatchPlan],
        size: int,
        cut: Callable[[BatchPlan], bool] | None = None,
    ) -> None:
        super().__init__()
        if size < 1:
            raise ValueError(f"a group needs at least one plan, got size {size}")
        self.source, self.size, self.cut = source, size, cut

    def reset(self, initial_state: dict[str, Any] | None = None) -> None:
        super().reset(initial_state)
        self.source.reset(None if initial_state is None else initial_state["source"])

    def next(self) -> list[BatchPlan]:
        group = [next(self.source)]
        while not group[-1].last and len(group) < self.size:
            if self.cut is not None and self.cut(group[-1]):
                break
            group.append(next(self.source))
        return group

    def get_state(self) -> dict[str, Any]:
        return {"source": self.source.state_dict()}
