"""The groups of a dynamic mix in the loader: each group's own shuffled stream, for one rank.

A group's epoch is every (document, copy) of the group in the split once, shuffled by (seed,
the group's epoch number) as ``order.py`` shuffles a whole epoch; rank ``r`` of ``W`` reads items
``r, r + W, ...`` of it (``schedule.py``), so each sample of a group's epoch goes to exactly one
rank. A rank's place in a group is one number, the items it has drawn from it: items past the
first epoch's (a ``Schedule``, left over by an elastic resume or fresh) fall in the next epochs,
each fresh. ``GroupStream.lookup`` turns such numbers into store rows, whole arrays at a time.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.order import Shuffle
from lakemix.loader.schedule import Schedule

ORDERS_KEPT = 4  # shuffled epochs of a group kept for reuse (one more a lookup's run)
BATCHED_SAMPLES = 1 << 20  # epochs shuffled at once while epochs x samples stays under this


class GroupOrders:
    """The shuffled epochs of one group, shared by the streams of one loader (its planners are
    rebuilt when the weights change; the shuffles stay): each epoch's store rows in order.

    Args:
        rows: The store rows of the group's documents.
        keys, repeats: Every stored document's key and copies (indexed by store row).
        seed: The run's seed.
    """

    def __init__(
        self,
        rows: NDArray[np.int64],
        keys: NDArray[np.uint64],
        repeats: NDArray[np.int64],
        seed: int,
    ) -> None:
        self.rows, self.seed = rows, seed
        self.keys, self.repeats = keys[rows], repeats[rows]
        self.total = int(self.repeats.sum())
        self._shuffle: Shuffle | None = None
        self._kept: dict[int, NDArray[np.int64]] = {}
        self._lock = threading.Lock()  # a dropped pipeline's thread may still be planning
        self._mean_tokens: float | None = None

    def mean_tokens(self, lengths: NDArray[np.int64]) -> float:
        """Tokens of an item of the group on average (copies counted), at least 1: computed
        once, as the shuffles (a loader's planners, rebuilt at each change of weights, ask
        again; ``lengths`` are the store's, the same for all of them)."""
        if self._mean_tokens is None:
            total = float((lengths[self.rows] * self.repeats).sum())
            self._mean_tokens = max(1.0, total / self.total) if self.total else 1.0
        return self._mean_tokens

    def of(self, epochs: NDArray[np.int64]) -> list[NDArray[np.int64]]:
        """The store rows of each epoch's samples, in its order (``epochs`` sorted, distinct).
        The epochs not kept are shuffled together."""
        with self._lock:
            if self._shuffle is None:
                self._shuffle = Shuffle(self.keys, self.repeats)
            wanted = epochs.tolist()
            missing = [e for e in wanted if e not in self._kept]
            step = max(1, BATCHED_SAMPLES // max(self.total, 1))
            for at in range(0, len(missing), step):
                part = missing[at : at + step]
                for epoch, order in zip(part, self._shuffle.orders(self.seed, part), strict=True):
                    self._kept[epoch] = self.rows[order]
            out = [self._kept[e] for e in wanted]
            for epoch in sorted(self._kept)[: max(0, len(self._kept) - ORDERS_KEPT)]:
                del self._kept[epoch]
            return out


class GroupStream:
    """Rank ``rank``'s items of one group, epoch after epoch.

    Args:
        rows: The store rows of the group's documents.
        keys, repeats: Every stored document's key and copies (indexed by store row).
        rank, world_size: This rank, and how many share each epoch of the group.
        seed: The run's seed.
        first: ``(epoch, schedule)`` of the group's first epoch for this run (``None``: epoch 0,
            fresh).
        orders: The group's shuffled epochs, shared with other streams of the same group and
            seed (built here when None).
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
        orders: GroupOrders | None = None,
    ) -> None:
        self.rows = rows
        self._orders = orders if orders is not None else GroupOrders(rows, keys, repeats, seed)
        self.total = self._orders.total
        self._rank, self._world = rank, world_size
        fresh = Schedule(self.total, world_size)
        self.first_epoch, self.first = first if first is not None else (0, fresh)
        self.first_count = self.first.count(rank)
        self.count = fresh.count(rank)  # items of a fresh epoch for this rank

    @property
    def rank(self) -> int:
        """The rank whose items these are."""
        return self._rank

    @property
    def world_size(self) -> int:
        """How many ranks share each epoch of the group."""
        return self._world

    def mean_tokens(self, lengths: NDArray[np.int64]) -> float:
        """Tokens of an item of the group on average (copies counted), at least 1."""
        return self._orders.mean_tokens(lengths)

    def epoch_of(self, items: NDArray[np.int64]) -> NDArray[np.int64]:
        """The group epoch that each item number falls in."""
        later = np.maximum(items - self.first_count, 0) // max(self.count, 1)
        return np.where(items < self.first_count, self.first_epoch, self.first_epoch + 1 + later)

    def lookup(self, items: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(store rows, start tokens)`` of this rank's items ``items`` of the group."""
        starts = np.zeros(len(items), dtype=np.int64)
        if not len(items):
            return np.zeros(0, dtype=np.int64), starts
        epochs = self.epoch_of(items)
        first = epochs == self.first_epoch
        positions = np.empty(len(items), dtype=np.int64)
        if first.any():
            at = np.flatnonzero(first)
            index = self._rank + self._world * items[at]
            pending = len(self.first.pending)
            positions[at] = np.where(index < pending, 0, self.first.tail + index - pending)
            if pending:
                head = np.flatnonzero(index < pending)
                given = np.array(self.first.pending, dtype=np.int64).reshape(-1, 2)
                positions[at[head]] = given[index[head], 0]
                starts[at[head]] = given[index[head], 1]
        later = ~first
        k = (items[later] - self.first_count) % max(self.count, 1)
        positions[later] = self._rank + self._world * k
        # every epoch the items fall in, shuffled at once (a small group spans many)
        if epochs[0] == epochs[-1] and (epochs[0] == epochs).all():  # one epoch (most lookups)
            return self._orders.of(epochs[:1])[0][positions], starts
        needed, which = np.unique(epochs, return_inverse=True)
        orders = self._orders.of(needed)
        if self.total * len(orders) <= BATCHED_SAMPLES:  # many epochs of a small group
            return np.stack(orders)[which.reshape(-1), positions], starts
        rows = np.empty(len(items), dtype=np.int64)
        for j, order in enumerate(orders):
            at = np.flatnonzero(which.reshape(-1) == j)
            rows[at] = order[positions[at]]
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
