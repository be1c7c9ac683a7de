"""Elastic resume and lineage of a dynamic mix: what every rank of a run read of each group.

A rank's place in a group is the number of items it drew from it (``groups.py``) and the
offset into the one it was reading. Given every rank's state, each group's current epoch is
merged as ``schedule.py`` merges a static epoch: what no rank started is read once by the new
ranks, a document cut at the checkpoint continues from its next token. A rank that had already
moved to a later epoch of a small group gives that progress back (those samples are read
again): the groups' epochs are merged at the earliest epoch any rank was in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.dynamic import Clock, stream_first
from lakemix.loader.groups import GroupStream
from lakemix.loader.schedule import Cursor, Schedule

if TYPE_CHECKING:
    from lakemix.loader.mix_loader import MixLoader


def old_streams(loader: MixLoader, state: Mapping[str, Any]) -> list[GroupStream]:
    """The group streams of the rank and run that ``state`` is of."""
    assert loader.dynamic is not None
    firsts = state.get("firsts") or [None] * len(loader.dynamic.names)
    return [
        GroupStream(
            loader.dynamic.rows_of(g),
            loader.store.keys,
            loader.store.repeats,
            rank=int(state["rank"]),
            world_size=int(state["world_size"]),
            seed=loader.seed,
            first=stream_first(firsts[g]),
        )
        for g in range(len(loader.dynamic.names))
    ]


def merge_dynamic(
    loader: MixLoader, states: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], list[Any]]:
    """``(position, firsts)`` for ``loader``'s rank, from the states of every rank of a run
    of another world size.

    Raises:
        ValueError: The states are not one run's, complete, at one step.
    """
    from lakemix.loader.mix_loader import check_ranks

    old_world = check_ranks(states)
    steps = {int(s["step"]) for s in states}
    histories = {repr(s["weights"]) for s in states}
    if len(steps) != 1 or len(histories) != 1:
        raise ValueError(f"the states are not of one step of one run (steps {sorted(steps)})")
    ordered = sorted(states, key=lambda s: int(s["rank"]))
    streams = [old_streams(loader, s) for s in ordered]
    firsts: list[Any] = []
    for g in range(len(streams[0])):
        places = []
        for state, mine in zip(ordered, streams, strict=True):
            group, offset = state["open"]
            places.append(mine[g].cursor(int(state["items"][g]), offset if group == g else -1))
        earliest = min(epoch for epoch, _, _ in places)
        first = streams[0][g]
        schedule = (
            first.first if earliest == first.first_epoch else Schedule(first.total, old_world)
        )
        cursors = [
            Cursor(within, offset) if epoch == earliest else Cursor(schedule.count(r), 0)
            for r, (epoch, within, offset) in enumerate(places)
        ]
        rest = schedule.remaining(cursors, loader.world_size)
        firsts.append([earliest, rest.to_dict()])
    step = steps.pop()
    origin = ordered[0]["origin"]
    clock = Clock((int(origin[0]), int(origin[1])), loader.seq_len * loader.batch_size, old_world)
    tokens = clock.tokens_at(step)
    position = {
        "step": step,
        "origin": [step, tokens],
        "draws": 0,
        "items": [0] * len(firsts),
        "open": [-1, 0],
    }
    return position, firsts


def copies_read(
    keys: NDArray[np.uint64],
    repeats: NDArray[np.int64],
    group_of_row: NDArray[np.int64],
    states: Sequence[Mapping[str, Any]],
    seed: int,
) -> tuple[NDArray[np.int64], list[float]]:
    """``(copies started of each stored document, epochs read of each group)`` by a dynamic
    run, from every rank's state (a document cut at the checkpoint counts; the epochs of a group
    before an elastic resume count whole, the one it merged counts what was read of it)."""
    copies = np.zeros(len(keys), dtype=np.int64)
    groups = int(group_of_row.max()) + 1 if len(group_of_row) else 0
    samples = np.zeros(groups, dtype=np.int64)
    totals = np.bincount(group_of_row, repeats, minlength=groups).astype(np.int64)
    for state in states:
        firsts = state.get("firsts") or [None] * groups
        for g in range(groups):
            rows = np.flatnonzero(group_of_row == g).astype(np.int64)
            stream = GroupStream(
                rows,
                keys,
                repeats,
                rank=int(state["rank"]),
                world_size=int(state["world_size"]),
                seed=seed,
                first=stream_first(firsts[g]),
            )
            n = int(state["items"][g])
            read, _ = stream.lookup(np.arange(n, dtype=np.int64))
            np.add.at(copies, read, 1)
            samples[g] += n
    # what was read before the last elastic resume: whole epochs, and the merged epoch's start
    firsts = states[0].get("firsts") or [None] * groups
    for g in range(groups):
        first = stream_first(firsts[g])
        if first is None:
            continue
        epoch, schedule = first
        rows = np.flatnonzero(group_of_row == g).astype(np.int64)
        copies[rows] += epoch * repeats[rows]
        samples[g] += epoch * totals[g] + schedule.tail - len(schedule.pending)
    epochs = [float(samples[g] / totals[g]) if totals[g] else 0.0 for g in range(groups)]
    return copies, epochs
