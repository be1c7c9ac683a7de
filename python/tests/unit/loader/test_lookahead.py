"""Lookahead: every group's rows in one gather, the same as each group's own lookup."""

from __future__ import annotations

import numpy as np

from lakemix.loader.groups import GroupStream
from lakemix.loader.lookahead import Lookahead
from lakemix.loader.schedule import Schedule

RNG = np.random.default_rng(7)
KEYS = RNG.integers(0, 2**63, size=50).astype(np.uint64)
REPEATS = RNG.integers(1, 3, size=50).astype(np.int64)
GROUPS = np.array([0] * 30 + [1] * 18 + [2] * 2)  # a big group, a middle one, two documents


def streams(rank: int = 0, world_size: int = 1) -> list[GroupStream]:
    made = []
    for g in range(3):
        rows = np.flatnonzero(g == GROUPS)
        first = None
        if g == 1:  # an elastic resume's leftovers: two pending samples, a started tail
            total = int(REPEATS[rows].sum())
            first = (2, Schedule(total, world_size, tail=5, pending=((3, 7), (0, 2))))
        made.append(
            GroupStream(rows, KEYS, REPEATS, rank=rank, world_size=world_size, seed=11, first=first)
        )
    return made


def asked(groups: np.ndarray, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low = np.full(3, np.iinfo(np.int64).max)
    high = np.full(3, -1)
    np.minimum.at(low, groups, numbers)
    np.maximum.at(high, groups, numbers)
    return low, high


def test_rows_and_epochs_are_each_groups_own_through_refills_and_going_back() -> None:
    for rank, world in ((0, 1), (1, 2)):
        own = streams(rank, world)
        look = Lookahead(streams(rank, world), reach=2, least=8)  # small windows: many refills
        for first in (0, 40, 3, 500, 41, 0):  # forward, back (a resume), far ahead
            groups = RNG.integers(0, 3, size=60).astype(np.int64)
            numbers = first + RNG.integers(0, 30, size=60).astype(np.int64)
            rows, starts = look.lookup(groups, numbers, *asked(groups, numbers))
            for g in range(3):
                at = np.flatnonzero(groups == g)
                want_rows, want_starts = own[g].lookup(numbers[at])
                assert np.array_equal(rows[at], want_rows), (rank, first, g)
                assert np.array_equal(starts[at], want_starts), (rank, first, g)
                assert np.array_equal(
                    look.epochs(groups[at], numbers[at]), own[g].epoch_of(numbers[at])
                )


def test_a_group_not_asked_for_is_not_looked_up() -> None:
    look = Lookahead(streams(), reach=1, least=4)
    groups = np.array([0, 0], dtype=np.int64)
    look.lookup(groups, np.array([2, 3], dtype=np.int64), *asked(groups, np.array([2, 3])))
    assert look._size.tolist() == [4, 0, 0]
