"""DynamicPlanner on synthetic documents: shares, determinism, resume, caps, every item once."""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest

from lakemix.loader.dynamic import DynamicPlanner, GroupsExhausted, uniforms
from lakemix.loader.groups import GroupStream
from lakemix.loader.planner import BatchPlan
from lakemix.loader.weights import Change, WeightHistory
from lakemix.mix.schedule import WeightSchedule

RNG = np.random.default_rng(0)
LENGTHS = RNG.integers(3, 40, size=60).astype(np.int64)
KEYS = np.array([(i * 0x9E3779B97F4A7C15 + 11) % 2**64 for i in range(60)], dtype=np.uint64)
REPEATS = np.ones(60, dtype=np.int64)
GROUPS = np.array([0] * 40 + [1] * 15 + [2] * 5)  # a big, a middle and a small group
NAMES = ("big", "mid", "small")


def planner(history: WeightHistory | None = None, **options: Any) -> DynamicPlanner:
    rank, world = options.pop("rank", 0), options.pop("world_size", 1)
    repeats = options.pop("repeats", REPEATS)
    streams = [
        GroupStream(np.flatnonzero(g == GROUPS), KEYS, repeats, rank=rank, world_size=world, seed=3)
        for g in range(3)
    ]
    history = history or WeightHistory(NAMES, (0.5, 0.3, 0.2))
    defaults = {"seq_len": 8, "batch_size": 2, "seed": 3, "max_epochs": 1000.0}
    lengths = options.pop("lengths", LENGTHS)
    return DynamicPlanner(
        streams=streams,
        lengths=lengths,
        history=history,
        rank=rank,
        world_size=world,
        **{**defaults, **options},
    )


def take(node: DynamicPlanner, n: int) -> list[BatchPlan]:
    return [next(node) for _ in range(n)]


def same(a: list[BatchPlan], b: list[BatchPlan]) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x.pieces, y.pieces) and x.state == y.state for x, y in zip(a, b, strict=True)
    )


def group_tokens(plans: list[BatchPlan]) -> Counter[int]:
    counts: Counter[int] = Counter()
    for plan in plans:
        for _w, _row, start, stop, group in plan.pieces.tolist():
            counts[group] += stop - start
    return counts


def test_shares_follow_the_weights_and_change_when_told() -> None:
    history = WeightHistory(NAMES, (0.8, 0.1, 0.1)).with_change(Change(100, 1600, (0.1, 0.1, 0.8)))
    plans = take(planner(history), 200)  # 16 tokens a step: the change at step 100
    before, after = group_tokens(plans[:100]), group_tokens(plans[100:])
    assert before[0] > 3 * before[2]
    assert after[2] > 3 * after[0]
    assert [p.state["step"] for p in plans[:3]] == [1, 2, 3]


def test_weights_are_token_shares_whatever_the_groups_document_lengths() -> None:
    """The small group's documents are 12 times as long as the big group's: drawing groups by
    weight per document would give it most of the tokens (0.75 of them for a weight of 0.2)."""
    lengths = np.where(GROUPS == 2, 240, 20).astype(np.int64)
    plans = take(planner(lengths=lengths, seq_len=64, batch_size=4), 1500)
    tokens = group_tokens(plans)
    total = sum(tokens.values())
    shares = [tokens[g] / total for g in range(3)]
    assert shares == pytest.approx([0.5, 0.3, 0.2], abs=0.03)


def test_seeds_draw_unrelated_sequences_of_groups() -> None:
    """Each seed's draws are its own: seed 4's sequence of groups is not seed 3's shifted (with
    the seed added to the draw number before hashing, it was, by one draw)."""
    draws = {seed: uniforms(seed, 0, 0, 400) for seed in (3, 4)}
    assert not np.isin(draws[4], draws[3]).any()
    groups = {}
    for seed in (3, 4):  # the group of each item read, in order (an item spans windows)
        pieces = np.concatenate([p.pieces for p in take(planner(seed=seed), 200)])
        first = np.flatnonzero(np.diff(pieces[:, 1], prepend=-1) != 0)
        groups[seed] = pieces[first, 4]
    n = min(len(g) for g in groups.values()) - 5
    shifted = max(np.mean(groups[3][k : k + n] == groups[4][:n]) for k in range(5))
    assert shifted < 0.8  # about 0.4 for unrelated draws of these weights


def test_plans_do_not_depend_on_how_far_ahead_they_are_made() -> None:
    schedule = WeightSchedule(
        rows=((0, {"big": 1.0}), (800, {"small": 0.5, "mid": 0.5})), interpolation="linear"
    )
    history = WeightHistory(NAMES, (1.0, 0.0, 0.0), schedule)
    assert same(take(planner(history), 120), take(planner(history, ahead=1), 120))
    assert not same(take(planner(history), 120), take(planner(history, seed=4), 120))


def test_resume_from_any_state_is_exact_with_changes_before_and_after() -> None:
    history = (
        WeightHistory(NAMES, (0.6, 0.3, 0.1))
        .with_change(Change(20, 320, (0.2, 0.2, 0.6)))
        .with_change(Change(70, 1120, (0.0, 0.5, 0.5)))
    )
    whole = take(planner(history), 150)
    for cut in (1, 19, 20, 45, 69, 70, 71, 120):
        resumed = planner(history, start=whole[cut - 1].state)
        resumed.reset(None)
        assert same(take(resumed, 150 - cut), whole[cut:]), cut


def reads(plans: list[BatchPlan], group: int) -> list[int]:
    """The rows of ``group`` whose reading starts in the plans, in order (a piece ``[0, 1)``
    is only the label at a window's end: the document starts in the next window)."""
    return [
        row
        for p in plans
        for _w, row, start, stop, g in p.pieces.tolist()
        if g == group and start == 0 and stop > 1
    ]


def test_each_group_epoch_reads_every_item_once_over_the_ranks() -> None:
    small = sorted(np.flatnonzero(GROUPS == 2).tolist())
    one = reads(take(planner(), 300), 2)
    assert len(one) > 3 * len(small)
    for k in range(0, len(one) - len(small), len(small)):
        assert sorted(one[k : k + len(small)]) == small
    two = [reads(take(planner(rank=r, world_size=2), 300), 2) for r in (0, 1)]
    counts = (3, 2)  # of the 5 samples of an epoch, rank 0 reads 3, rank 1 reads 2
    epochs = min(len(two[r]) // counts[r] for r in (0, 1))
    assert epochs > 2
    for e in range(epochs):
        both = two[0][e * 3 : e * 3 + 3] + two[1][e * 2 : e * 2 + 2]
        assert sorted(both) == small


def test_a_capped_group_stops_and_its_weight_goes_elsewhere() -> None:
    history = WeightHistory(NAMES, (0.0, 0.0, 1.0))
    with pytest.raises(GroupsExhausted, match="max_epochs 2"):
        take(planner(history, cap=True, max_epochs=2.0), 100)
    history = WeightHistory(NAMES, (0.5, 0.0, 0.5))
    plans = take(planner(history, cap=True, max_epochs=1.0), 40)  # 640 of 945 tokens
    small = sum(LENGTHS[GROUPS == 2])
    read = {
        (row, t)
        for p in plans
        for _w, row, a, b, g in p.pieces.tolist()
        if g == 2
        for t in range(a, b)
    }
    assert len(read) == small  # read once, whole
    assert group_tokens(plans[-10:])[2] == 0  # then only the big group
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        take(planner(history, max_epochs=1.0), 100)
    assert any(
        "group 'small' is read beyond the mix's max_epochs 1" in str(w.message) for w in caught
    )


def test_a_split_without_documents_of_a_scheduled_group_is_refused_by_name() -> None:
    """A small release's validation split may hold no document of a group its schedule weights:
    the error names the split and the groups, and says how to stream it anyway."""
    from types import SimpleNamespace

    import pyarrow as pa
    import yaml

    from lakemix.loader.dynamic_mix import dynamic_mix

    rows = [
        {"at_tokens": 0, "weights": {"en": 0.5, "fr": 0.3, "ga": 0.2}},
        {"at_tokens": 100, "weights": {"en": 0.2, "fr": 0.3, "ga": 0.5}},
    ]
    raw = {
        "name": "tiny", "token_budget": 1000, "languages": ["en", "fr", "ga"],
        "strategy": {"kind": "temperature", "alpha": 0.3}, "validation_fraction": 0.1,
        "seed": 17, "tokenizer": "cl100k",
        "groups": {"by": "language", "when_exhausted": "repeat", "max_epochs": 20},
        "schedule": {"interpolation": "constant", "rows": rows},
    }  # fmt: skip
    manifest = SimpleNamespace(
        mix="tiny", tag="v1", config_files={"mixes/tiny.yml": yaml.safe_dump(raw)}
    )
    languages = ["en"] * 3 + ["fr"] * 2  # no document of "ga"
    store = SimpleNamespace(
        _column=lambda name: pa.array(languages),
        lengths=np.full(5, 10, dtype=np.int64),
        repeats=np.ones(5, dtype=np.int64),
    )
    where = "split 'validation' of release v1 (tiny)"
    with pytest.raises(ValueError, match=r"split 'validation' of release v1 \(tiny\) holds no "
                       r"documents of group\(s\) ga, .* weights= over the groups it has "
                       r"\(en, fr\)"):  # fmt: skip
        dynamic_mix(store, manifest, None, where=where)  # type: ignore[arg-type]
    mix = dynamic_mix(store, manifest, None, weights={"en": 0.5, "fr": 0.5}, where=where)  # type: ignore[arg-type]
    assert mix is not None and mix.names == ("en", "fr")
