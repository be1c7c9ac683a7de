"""Which samples of an epoch each rank reads, and what is left when ranks are cut.

An epoch's samples are positions ``0 .. total-1`` of its shuffled order (``order.py``). A
``Schedule`` is the sequence of what is still to be read: first ``pending`` (samples left over by
an earlier, cut run, each with the token it resumes at), then every position from ``tail`` on.
Rank ``r`` of ``consumers`` reads items ``r, r + consumers, r + 2 * consumers, ...`` of it, so
each item goes to exactly one rank. A rank's progress is a ``Cursor``: the index of the item it
is in (among its own) and the token offset in that item.

``remaining`` merges the cursors of every rank into the schedule of what none of them has read
yet; a new set of ranks, of any size, then splits that. That is the elastic resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cursor:
    """A rank's place: item ``item`` of its own items, at token ``offset`` of that item."""

    item: int = 0
    offset: int = 0


@dataclass(frozen=True)
class Schedule:
    """What is left of an epoch, split over ``consumers`` ranks.

    Attributes:
        total: Samples in the whole epoch.
        consumers: Ranks sharing it.
        tail: The first position of the untouched rest of the epoch.
        pending: ``(position, start token)`` of earlier leftovers, read before the tail.
    """

    total: int
    consumers: int
    tail: int = 0
    pending: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.consumers < 1:
            raise ValueError(f"a schedule needs at least one consumer, got {self.consumers}")
        if not 0 <= self.tail <= self.total:
            raise ValueError(f"tail {self.tail} is outside the epoch of {self.total} samples")

    @property
    def length(self) -> int:
        """Items left, pending and tail."""
        return len(self.pending) + self.total - self.tail

    def item(self, index: int) -> tuple[int, int]:
        """``(position, start token)`` of item ``index`` of the whole schedule."""
        if index < len(self.pending):
            return self.pending[index]
        return self.tail + index - len(self.pending), 0

    def count(self, rank: int) -> int:
        """How many items rank ``rank`` reads."""
        return max(0, -(-(self.length - rank) // self.consumers))

    def remaining(self, cursors: Sequence[Cursor], consumers: int) -> Schedule:
        """What no rank has read yet, given every rank's cursor, split over ``consumers``.

        Args:
            cursors: ``cursors[r]`` is rank ``r``'s place; one per rank of this schedule.
            consumers: The number of ranks that will read the rest.
        """
        if len(cursors) != self.consumers:
            raise ValueError(f"need the cursors of all {self.consumers} ranks, got {len(cursors)}")
        firsts = [rank + self.consumers * c.item for rank, c in enumerate(cursors)]
        low = min(firsts)
        # Every item at or after `high` is untouched, and so is every later item of a rank.
        high = max(max(firsts) + 1, len(self.pending))
        high = min(high, self.length)
        left: list[tuple[int, int]] = []
        for index in range(low, high):
            rank, mine = index % self.consumers, index // self.consumers
            cursor = cursors[rank]
            if mine < cursor.item:
                continue
            position, start = self.item(index)
            left.append((position, start + cursor.offset if mine == cursor.item else start))
        tail = self.tail + max(0, high - len(self.pending))
        return Schedule(self.total, consumers, tail, tuple(left))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (``from_dict`` reads it back)."""
        return {
            "total": self.total,
            "consumers": self.consumers,
            "tail": self.tail,
            "pending": [list(p) for p in self.pending],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schedule:
        """The schedule ``to_dict`` wrote."""
        pending = tuple((int(p), int(s)) for p, s in data["pending"])
        return cls(int(data["total"]), int(data["consumers"]), int(data["tail"]), pending)
