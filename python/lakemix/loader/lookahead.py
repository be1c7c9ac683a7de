"""Lookahead: the store rows of many draws over every group of a dynamic mix, in one gather.

``GroupStream.lookup`` turns one group's item numbers into store rows with a dozen numpy calls;
a plan's draws fall in every group, so looking them up group by group cost most of a dynamic
plan (63 small groups on the demo release: some 60 lookups a plan, each shuffling a few epochs).
A ``Lookahead`` keeps a window of each group's rows (from the lowest number asked for on, many
plans' worth), every window in one array, so a plan's draws are one gather; a group's window is
filled again (one ``lookup``) only when a draw falls outside it. The rows are the ones ``lookup``
gives for the same numbers, so what is planned does not depend on the windows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.groups import GroupStream

REACH = 16  # a refilled window holds this many times the numbers asked of its group ...
LEAST = 1024  # ... and at least this many items (16 bytes each)


class Lookahead:
    """Windows of every group's rows, for the draws of one rank's planner.

    Args:
        streams: One ``GroupStream`` per group, in the planner's group order.
        reach, least: A refilled window's size: ``reach`` times the numbers asked of the
            group, at least ``least`` items.
    """

    def __init__(
        self, streams: Sequence[GroupStream], *, reach: int = REACH, least: int = LEAST
    ) -> None:
        self._streams, self._reach, self._least = streams, reach, least
        groups = len(streams)
        self._base = np.zeros(groups, dtype=np.int64)  # each window's first item number
        self._size = np.zeros(groups, dtype=np.int64)  # and its items
        self._offset = np.zeros(groups, dtype=np.int64)  # where it starts in the arrays
        empty = np.zeros(0, dtype=np.int64)
        self._windows = [(empty, empty)] * groups
        self._rows, self._starts = empty, empty
        # GroupStream.epoch_of's terms, one per group, for every draw at once
        self._first_count = np.array([s.first_count for s in streams], dtype=np.int64)
        self._count = np.array([max(s.count, 1) for s in streams], dtype=np.int64)
        self._first_epoch = np.array([s.first_epoch for s in streams], dtype=np.int64)

    def epochs(self, groups: NDArray[np.int64], numbers: NDArray[np.int64]) -> NDArray[np.int64]:
        """The group epoch of each item: item ``numbers[i]`` of group ``groups[i]``
        (``GroupStream.epoch_of`` of every group at once)."""
        first_count, first_epoch = self._first_count[groups], self._first_epoch[groups]
        later = np.maximum(numbers - first_count, 0) // self._count[groups]
        return np.where(numbers < first_count, first_epoch, first_epoch + 1 + later)

    def lookup(
        self,
        groups: NDArray[np.int64],
        numbers: NDArray[np.int64],
        low: NDArray[np.int64],
        high: NDArray[np.int64],
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(store rows, start tokens)`` of item ``numbers[i]`` of group ``groups[i]``.

        Args:
            groups, numbers: The items.
            low, high: Per group, the lowest and highest of its numbers (``high < low``: none).
        """
        asked = high >= low
        outside = asked & ((low < self._base) | (high >= self._base + self._size))
        if outside.any():
            self._fill(np.flatnonzero(outside).tolist(), low, high)
        at = self._offset[groups] + numbers - self._base[groups]
        return self._rows[at], self._starts[at]

    def _fill(self, groups: list[int], low: NDArray[np.int64], high: NDArray[np.int64]) -> None:
        for g in groups:
            first = int(low[g])
            size = max(self._least, self._reach * (int(high[g]) - first + 1))
            self._windows[g] = self._streams[g].lookup(
                np.arange(first, first + size, dtype=np.int64)
            )
            self._base[g], self._size[g] = first, size
        self._offset = np.cumsum(self._size) - self._size
        self._rows = np.concatenate([rows for rows, _ in self._windows])
        self._starts = np.concatenate([starts for _, starts in self._windows])
