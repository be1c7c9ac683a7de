"""The loader's packing written as plain loops, one piece and one token at a time.

This is how ``planner.py`` and ``materialize.py`` first did it. The vectorized code must give
exactly the same pieces, states and tensors, so the order of the samples cannot change without
a test noticing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.materialize import IGNORE_INDEX
from lakemix.loader.order import epoch_order
from lakemix.loader.reader import TokenStore
from lakemix.loader.schedule import Cursor, Schedule


class LoopPlanner:
    """BatchPlanner's plans, built a token window at a time (same options, same states)."""

    def __init__(self, *, start: dict[str, Any] | None = None, **options: Any) -> None:
        keys, repeats, lengths = options["keys"], options["repeats"], options["lengths"]
        seq_len, batch_size = int(options["seq_len"]), int(options["batch_size"])
        rank, world_size, seed = int(options["rank"]), int(options["world_size"]), options["seed"]
        self._keys, self._repeats, self._lengths = keys, repeats, lengths
        self._window, self._batch_size = seq_len + 1, batch_size
        self._rank, self._world_size, self._seed = rank, world_size, seed
        self._total = int(repeats.sum())
        self._epoch, self._order_epoch = 0, -1
        self._schedule = Schedule(self._total, world_size)
        self._cursor = Cursor()
        if start is not None:
            self._epoch = int(start["epoch"])
            self._schedule = Schedule.from_dict(start["schedule"])
            self._cursor = Cursor(*(int(v) for v in start["cursor"]))

    def state(self) -> dict[str, Any]:
        return {
            "epoch": self._epoch,
            "schedule": self._schedule.to_dict(),
            "cursor": [self._cursor.item, self._cursor.offset],
        }

    def next(self) -> tuple[NDArray[np.int64], int, dict[str, Any]]:
        """``(pieces, windows, state)`` of the next batch."""
        if self._cursor.item >= self._schedule.count(self._rank):
            self._epoch, self._cursor = self._epoch + 1, Cursor()
            self._schedule = Schedule(self._total, self._world_size)
        if self._order_epoch != self._epoch:
            self._order = epoch_order(self._keys, self._repeats, seed=self._seed, epoch=self._epoch)
            self._order_epoch = self._epoch
        count = self._schedule.count(self._rank)
        pieces: list[tuple[int, int, int, int, int]] = []
        windows = 0
        while windows < self._batch_size and self._cursor.item < count:
            item, offset = self._cursor.item, self._cursor.offset
            taken, last = 0, (item, offset)
            while taken < self._window and item < count:
                position, start = self._schedule.item(self._rank + self._world_size * item)
                row = int(self._order.rows[position])
                begin = start + offset
                stop = min(int(self._lengths[row]), begin + self._window - taken)
                pieces.append((windows, row, begin, stop, position))
                taken += stop - begin
                last = (item, stop - 1 - start)
                item, offset = (item + 1, 0) if stop == self._lengths[row] else (item, offset)
            windows += 1
            self._cursor = Cursor(*last) if taken == self._window else Cursor(count, 0)
        return np.array(pieces, dtype=np.int64).reshape(-1, 5), windows, self.state()


def loop_tensors(
    store: TokenStore, pieces: NDArray[np.int64], windows: int, *, seq_len: int, pad_id: int
) -> dict[str, Any]:
    """The batch of a plan, written token range by token range into int64 arrays."""
    length = seq_len
    inputs, labels, attention, segments, positions = np.empty((5, windows, length), np.int64)
    attention.fill(1)
    counting = np.arange(length, dtype=np.int64)
    filled = [0] * windows
    documents: list[list[str]] = [[] for _ in range(windows)]
    cu_seqlens = [0]  # where each piece with input tokens ends, over the flattened batch
    for window, row, start, stop, _position in pieces.tolist():
        at, size = filled[window], stop - start
        ids = store.tokens(row, start, stop)
        end = min(at + size, length)
        if end > at:
            inputs[window, at:end] = ids[: end - at]
            segments[window, at:end] = len(documents[window])
            positions[window, at:end] = counting[: end - at]
            cu_seqlens.append(window * length + end)
        first = max(at, 1)
        labels[window, first - 1 : at + size - 1] = ids[first - at :]
        documents[window].append(store.document_id(row))
        filled[window] = at + size
    for window, n in enumerate(filled):
        if n <= length:
            inputs[window, n:] = pad_id
            segments[window, n:], positions[window, n:], attention[window, n:] = -1, 0, 0
            labels[window, max(n - 1, 0) :] = IGNORE_INDEX
    return {
        "input_ids": inputs,
        "labels": labels,
        "attention_mask": attention,
        "segment_ids": segments,
        "position_ids": positions,
        "cu_seqlens": np.array(cu_seqlens, dtype=np.int64),
        "document_ids": documents,
    }
