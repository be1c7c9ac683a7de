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
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.dynamic import Clock, stream_first
from lakemix.loader.groups import GroupStream
from lakemix.loader.schedule import Cursor, Schedule

if TYPE_CHECKING:
    from lakemix.loader.dynamic_mix import DynamicMix
    from lakemix.loader.reader import TokenStore


class Resumable(Protocol):
    """What resuming reads of a loader (``MixLoader`` is one): its store, dynamic mix, seed
    and shape. A protocol, so this module does not import the loader that imports it."""

    store: TokenStore
    dynamic: DynamicMix | None
    seed: int
    world_size: int
    seq_len: int
    batch_size: int


def check_ranks(states: Sequence[Mapping[str, Any]]) -> int:
    """The world size of a run whose states these are: one state of every rank.

    Raises:
        ValueError: States of several world sizes, or a rank missing.
    """
    sizes = {int(s["world_size"]) for s in states}
    if len(sizes) != 1:
        raise ValueError(f"the states are of several runs: world sizes {sorted(sizes)}")
    size = sizes.pop()
    ranks = sorted(int(s["rank"]) for s in states)
    if ranks != list(range(size)):
        raise ValueError(f"need the state of every rank 0..{size - 1}, got ranks {ranks}")
    return size


def old_streams(loader: Resumable, state: Mapping[str, Any]) -> list[GroupStream]:
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
    loader: Resumable, states: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], list[Any]]:
    """``(position, firsts)`` for ``loader``'s rank, from the states of every rank of a run
    of another world size.

    Raises:
        ValueError: The states are not one run's, complete, at one step.
    """
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
        # the samples a rank was in (read on by the new ranks: lineage counts them once)
        continued = sorted(
            schedule.item(r + old_world * within)[0]
            for r, (state, (epoch, within, _)) in enumerate(zip(ordered, places, strict=True))
            if int(state["open"][0]) == g and epoch == earliest
        )
        firsts.append([earliest, rest.to_dict(), continued])
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
    run, from every rank's state (a document cut at a checkpoint counts once)."""
    groups = int(group_of_row.max()) + 1 if len(group_of_row) else 0
    totals = np.bincount(group_of_row, repeats, minlength=groups).astype(np.int64)
    rows_of = [np.flatnonzero(group_of_row == g).astype(np.int64) for g in range(groups)]
    copies, samples = _started(keys, repeats, rows_of, states, seed)
    epochs = [float(samples[g] / totals[g]) if totals[g] else 0.0 for g in range(groups)]
    return copies, epochs


def _started(
    keys: NDArray[np.uint64],
    repeats: NDArray[np.int64],
    rows_of: list[NDArray[np.int64]],
    states: Sequence[Mapping[str, Any]],
    seed: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(copies started of each document, samples started of each group)`` by the ranks of
    ``states`` and, through their ``before``, by every world size of the run before them."""
    copies = np.zeros(len(keys), dtype=np.int64)
    samples = np.zeros(len(rows_of), dtype=np.int64)
    firsts = states[0].get("firsts") or [None] * len(rows_of)
    before = states[0].get("before")
    if before:  # an elastic resume: what the ranks before it started, exactly
        copies, samples = _started(keys, repeats, rows_of, before, seed)
    elif any(f is not None for f in firsts):  # a record written before `before` was kept:
        _whole_epochs(repeats, rows_of, firsts, copies, samples)  # its epochs, approximately
    for state in states:
        firsts = state.get("firsts") or [None] * len(rows_of)
        for g, rows in enumerate(rows_of):
            stream = GroupStream(
                rows,
                keys,
                repeats,
                rank=int(state["rank"]),
                world_size=int(state["world_size"]),
                seed=seed,
                first=stream_first(firsts[g]),
            )
            items = np.arange(int(state["items"][g]), dtype=np.int64)
            continued = firsts[g][2] if firsts[g] is not None and len(firsts[g]) > 2 else []
            items = items[~_continuing(stream, items, continued)]
            read, _ = stream.lookup(items)
            np.add.at(copies, read, 1)
            samples[g] += len(items)
    return copies, samples


def _continuing(
    stream: GroupStream, items: NDArray[np.int64], continued: Sequence[int]
) -> NDArray[np.bool_]:
    """Which of a rank's ``items`` go on with a sample the ranks before an elastic resume had
    started (its position in the merged epoch is one of ``continued``)."""
    out = np.zeros(len(items), dtype=bool)
    pending = stream.first.pending
    if not continued or not pending:
        return out
    index = stream.rank + stream.world_size * items
    head = np.flatnonzero((items < stream.first_count) & (index < len(pending)))
    positions = np.array([p for p, _ in pending], dtype=np.int64)[index[head]]
    out[head] = np.isin(positions, np.asarray(continued, dtype=np.int64))
    return out


def _whole_epochs(
    repeats: NDArray[np.int64],
    rows_of: list[NDArray[np.int64]],
    firsts: Sequence[Any],
    copies: NDArray[np.int64],
    samples: NDArray[np.int64],
) -> None:
    """A run record without ``before``: the epochs of each group before its last elastic
    resume count whole, the merged epoch only as samples (its documents are not known)."""
    for g, rows in enumerate(rows_of):
        first = stream_first(firsts[g])
        if first is None:
            continue
        epoch, schedule = first
        copies[rows] += epoch * repeats[rows]
        samples[g] += epoch * int(repeats[rows].sum()) + schedule.tail - len(schedule.pending)
