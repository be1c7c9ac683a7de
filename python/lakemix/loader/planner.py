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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from torchdata.nodes import BaseNode

from lakemix.loader.order import EpochOrder, epoch_order
from lakemix.loader.schedule import Cursor, Schedule


@dataclass(frozen=True)
class BatchPlan:
    """The pieces of one batch: rows ``(window, store row, start, stop, position)``, and the
    planner's state once the batch is delivered."""

    pieces: NDArray[np.int64]
    windows: int
    state: dict[str, Any] = field(default_factory=dict)


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
    ) -> None:
        super().__init__()
        self._keys, self._repeats, self._lengths = keys, repeats, lengths
        self._window = seq_len + 1
        self._batch_size, self._rank, self._world_size, self._seed = (
            batch_size,
            rank,
            world_size,
            seed,
        )
        self._start = start
        self._total = int(repeats.sum())
        if not 0 <= rank < min(world_size, self._total):
            raise ValueError(
                f"rank {rank} of {world_size} has nothing to read in an epoch of {self._total} "
                "samples: use at most as many ranks as samples"
            )
        self._epoch = 0
        self._order: EpochOrder | None = None
        self._order_epoch = -1
        self._schedule = Schedule(self._total, world_size)
        self._cursor = Cursor()

    def reset(self, initial_state: dict[str, Any] | None = None) -> None:
        super().reset(initial_state)
        state = initial_state if initial_state is not None else self._start
        if state is None:
            self._epoch, self._cursor = 0, Cursor()
            self._schedule = Schedule(self._total, self._world_size)
            return
        self._epoch = int(state["epoch"])
        self._schedule = Schedule.from_dict(state["schedule"])
        self._cursor = Cursor(*(int(v) for v in state["cursor"]))
        if self._schedule.total != self._total:
            raise ValueError(
                f"the state is of an epoch of {self._schedule.total} samples, this split "
                f"has {self._total}: it belongs to another release or split"
            )

    def get_state(self) -> dict[str, Any]:
        return {
            "epoch": self._epoch,
            "schedule": self._schedule.to_dict(),
            "cursor": [self._cursor.item, self._cursor.offset],
        }

    def next(self) -> BatchPlan:
        if self._cursor.item >= self._schedule.count(self._rank):  # the epoch is done
            self._epoch, self._cursor = self._epoch + 1, Cursor()
            self._schedule = Schedule(self._total, self._world_size)
        if self._order_epoch != self._epoch:
            self._order = epoch_order(self._keys, self._repeats, seed=self._seed, epoch=self._epoch)
            self._order_epoch = self._epoch
        assert self._order is not None
        count = self._schedule.count(self._rank)
        pieces: list[tuple[int, int, int, int, int]] = []
        windows = 0
        while windows < self._batch_size and self._cursor.item < count:
            item, offset = self._cursor.item, self._cursor.offset
            taken, last = 0, (item, offset)
            window: list[tuple[int, int, int, int, int]] = []
            while taken < self._window and item < count:
                position, start = self._schedule.item(self._rank + self._world_size * item)
                row = int(self._order.rows[position])
                begin = start + offset
                stop = min(int(self._lengths[row]), begin + self._window - taken)
                window.append((windows, row, begin, stop, position))
                taken += stop - begin
                last = (item, stop - 1 - start)
                item, offset = (item + 1, 0) if stop == self._lengths[row] else (item, offset)
            pieces.extend(window)
            windows += 1
            # The next sequence starts at this one's last token; past the end, there is none.
            self._cursor = Cursor(*last) if taken == self._window else Cursor(count, 0)
        array = np.array(pieces, dtype=np.int64).reshape(-1, 5)
        return BatchPlan(pieces=array, windows=windows, state=self.get_state())
