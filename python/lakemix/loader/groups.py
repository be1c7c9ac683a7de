"""The groups of a dynamic mix in the loader: each group's own shuffled stream, for one rank.

A group's epoch is every (document, copy) of the group in the split once, shuffled by (seed,
the group's epoch number) as ``order.py`` shuffles a whole epoch; rank ``r`` of ``W`` reads items
``r, r + W, ...`` of it (``schedule.py``), so each sample of a group's epoch goes to exactly one
rank. A rank's place in a group is one number, the items it has drawn from it: items past the
first epoch's (a ``Schedule``, left over by an elastic resume or fresh) fall in the next epochs,
each fresh. ``GroupStream.lookup`` turns such numbers into store rows, whole arrays at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.order import Shuffle
from lakemix.loader.schedule import Schedule

ORDERS_KEPT = 4  # shuffled epochs of a group kept for reuse


class GroupStream:
    """Rank ``rank``'s items of one group, epoch after epoch.

    Args:
        rows: The store rows of the group's documents.
        keys, repeats: Every stored document's key and copies (indexed by store row).
        rank, world_size: This rank, and how many share each epoch of the group.
        seed: The run's seed.
        first: ``(epoch, schedule)`` of the group's first epoch for this run (``None``: epoch 0,
            fresh).
    """

    def __init__(
        self,
        rows: NDArray[np.int64],
        keys: NDArray[np.uint64],
        repeats: NDArray[np.int64],
        *,
        rank: int,
        world_size: int,
        seed: int,
        first: tuple[int, Schedule] | None = None,
    ) -> None:
        self.rows = rows
        self.total = int(repeats[rows].sum())
        self._keys, self._repeats = keys[rows], repeats[rows]
        self._rank, self._world, self._seed = rank, world_size, seed
        fresh = Schedule(self.total, world_size)
        self.first_epoch, self.first = first if first is not None else (0, fresh)
        self.first_count = self.first.count(rank)
        self.count = fresh.count(rank)  # items of a fresh epoch for this rank
        self._shuffle: Shuffle | None = None
        self._orders: dict[int, NDArray[np.int64]] = {}

    def _order(self, epoch: int) -> NDArray[np.int64]:
        """Store rows of the group's samples in epoch ``epoch``'s order."""
        if epoch not in self._orders:
            if self._shuffle is None:
                self._shuffle = Shuffle(self._keys, self._repeats)
            if len(self._orders) >= ORDERS_KEPT:
                self._orders.pop(min(self._orders))
            self._orders[epoch] = self.rows[self._shuffle.order(seed=self._seed, epoch=epoch).rows]
        return self._orders[epoch]

    def epoch_of(self, items: NDArray[np.int64]) -> NDArray[np.int64]:
        """The group epoch that each item number falls in."""
        later = np.maximum(items - self.first_count, 0) // max(self.count, 1)
        return np.where(items < self.first_count, self.first_epoch, self.first_epoch + 1 + later)

    def lookup(self, items: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(store rows, start tokens)`` of this rank's items ``items`` of the group."""
        rows = np.empty(len(items), dtype=np.int64)
        starts = np.zeros(len(items), dtype=np.int64)
        epochs = self.epoch_of(items)
        for epoch in np.unique(epochs).tolist():
            at = np.flatnonzero(epochs == epoch)
            if epoch == self.first_epoch:
                index = self._rank + self._world * items[at]
                pending = len(self.first.pending)
                positions = np.where(index < pending, 0, self.first.tail + index - pending)
                if pending:
                    head = np.flatnonzero(index < pending)
                    given = np.array(self.first.pending, dtype=np.int64).reshape(-1, 2)
                    positions[head] = given[index[head], 0]
                    starts[at[head]] = given[index[head], 1]
            else:
                k = (items[at] - self.first_count) % self.count
                positions = self._rank + self._world * k
            rows[at] = self._order(epoch)[positions]
        return rows, starts

    def cursor(self, items: int, offset: int) -> tuple[int, int, int]:
        """``(epoch, item in that epoch, offset)`` of a rank that drew ``items`` items of the
        group and is ``offset`` tokens into the last one (``offset`` < 0: into none)."""
        last = items - 1 if offset >= 0 else items
        epoch = int(self.epoch_of(np.array([last]))[0])
        within = last if epoch == self.first_epoch else (last - self.first_count) % self.count
        return epoch, within, max(offset, 0)

    def first_dict(self) -> list[Any]:
        """``[epoch, schedule]`` of the first epoch, JSON-able."""
        return [self.first_epoch, self.first.to_dict()]
