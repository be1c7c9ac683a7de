"""BatchPlanner on synthetic documents: packing, sharding, exact and elastic resume."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.loader.mix_loader import merge_states
from lakemix.loader.planner import BatchPlan, BatchPlanner, Grouper


def documents(lengths: list[int], repeats: list[int]) -> dict[str, Any]:
    keys = np.array([(i * 0x9E3779B97F4A7C15 + 7) % 2**64 for i in range(len(lengths))])
    return {
        "keys": keys.astype(np.uint64),
        "repeats": np.array(repeats, dtype=np.int64),
        "lengths": np.array(lengths, dtype=np.int64),
    }


def planner(docs: dict[str, Any], **options: Any) -> BatchPlanner:
    defaults = {"seq_len": 8, "batch_size": 2, "rank": 0, "world_size": 1, "seed": 3}
    return BatchPlanner(**docs, **{**defaults, **options})


def epoch(node: BatchPlanner) -> list[BatchPlan]:
    """The plans of the epoch the node is in (the planner itself runs on without end)."""
    plans = [next(node)]
    while (plan := next(node)).state["epoch"] == plans[0].state["epoch"]:
        plans.append(plan)
    return plans


def step(node: BatchPlanner) -> BatchPlan | None:
    """The node's next plan of epoch 0, or None once epoch 0 is done (the node is spent then)."""
    plan = next(node)
    return plan if plan.state["epoch"] == 0 else None


def inputs(plan: BatchPlan, seq_len: int) -> list[tuple[int, int]]:
    """(epoch position, token index) of every input token of a batch, in order."""
    found: list[tuple[int, int]] = []
    for window in range(plan.windows):
        tokens = [
            (int(p), t)
            for w, _row, a, b, p in plan.pieces.tolist()
            if w == window
            for t in range(a, b)
        ]
        found.extend(tokens[:seq_len])  # a full sequence's last token is only a label
    return found


def epoch_tokens(docs: dict[str, Any], epoch: int = 0) -> Counter[tuple[int, int]]:
    """Every token of an epoch once, keyed like ``inputs`` (positions in shuffled order)."""
    from lakemix.loader.order import epoch_order

    order = epoch_order(docs["keys"], docs["repeats"], seed=3, epoch=epoch)
    return Counter(
        (p, t) for p, row in enumerate(order.rows.tolist()) for t in range(docs["lengths"][row])
    )


def test_packs_every_token_once_in_full_sequences() -> None:
    docs = documents([5, 1, 12, 3], [1, 2, 1, 3])
    node = planner(docs)
    plans, plan = [], next(node)
    while plan.state["epoch"] == 0:
        plans.append(plan)
        plan = next(node)
    seen = [t for plan in plans for t in inputs(plan, 8)]
    assert Counter(seen) == epoch_tokens(docs)
    sizes = [len(inputs(p, 8)) for p in plans]
    assert all(s == 16 for s in sizes[:-1])  # only the last batch is short
    following = [plan]  # the stream runs on into the next epoch: another order, same tokens
    while (plan := next(node)).state["epoch"] == 1:
        following.append(plan)
    assert [p.pieces.tolist() for p in following] != [p.pieces.tolist() for p in plans]
    assert Counter(t for plan in following for t in inputs(plan, 8)) == epoch_tokens(docs, 1)


def test_each_sample_goes_to_one_rank() -> None:
    docs = documents([9, 4, 30, 2, 7, 11, 3], [2, 1, 1, 3, 1, 2, 1])
    ranks = [planner(docs, rank=r, world_size=3) for r in range(3)]
    positions = [{int(p) for plan in epoch(node) for p in plan.pieces[:, 4]} for node in ranks]
    assert sum(len(p) for p in positions) == int(docs["repeats"].sum())
    assert set().union(*positions) == set(range(int(docs["repeats"].sum())))


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=25),
    data=st.data(),
)
def test_save_and_resume_equals_the_uninterrupted_stream(lengths: list[int], data: Any) -> None:
    repeats = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths), max_size=len(lengths)))
    if sum(repeats) == 0:
        repeats[0] = 1
    docs = documents(lengths, repeats)
    seq_len = data.draw(st.integers(2, 17))
    whole = [p.pieces.tolist() for p in epoch(planner(docs, seq_len=seq_len))]
    cut = data.draw(st.integers(0, len(whole)))
    first = planner(docs, seq_len=seq_len)
    head = [next(first).pieces.tolist() for _ in range(cut)]
    resumed = planner(docs, seq_len=seq_len, start=first.state_dict())
    rest = [p.pieces.tolist() for p in iter(lambda: step(resumed), None)]
    assert head + rest == whole
    again = planner(docs, seq_len=seq_len)  # reset(state) on a used node works the same
    epoch(again)
    again.reset(first.state_dict())
    assert [p.pieces.tolist() for p in iter(lambda: step(again), None)] == whole[cut:]


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=30),
    old=st.integers(1, 4),
    new=st.integers(1, 4),
    data=st.data(),
)
def test_elastic_resume_reads_every_remaining_token_once(
    lengths: list[int], old: int, new: int, data: Any
) -> None:
    repeats = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths), max_size=len(lengths)))
    repeats[0] += max(0, 4 - sum(repeats))  # at least one sample per rank, up to 4 ranks
    docs = documents(lengths, repeats)
    seen: list[tuple[int, int]] = []

    def read(rank: int, size: int, start: dict[str, Any] | None, batches: int) -> dict[str, Any]:
        """Read up to ``batches`` batches of epoch 0; the state after the last one delivered."""
        node = planner(docs, rank=rank, world_size=size, start=start)
        last = node.state_dict()
        for _ in range(batches):
            plan = step(node)
            if plan is None:
                break
            seen.extend(inputs(plan, 8))
            last = plan.state
        return {**last, "rank": rank, "world_size": size}

    # Each old rank stops after its own number of batches.
    states = [read(rank, old, None, data.draw(st.integers(0, 6))) for rank in range(old)]
    for _ in range(data.draw(st.integers(0, 2))):  # resumed again, at yet another size
        position = merge_states(states, new)
        states = [read(r, new, position, data.draw(st.integers(0, 3))) for r in range(new)]
        new = data.draw(st.integers(1, 4))
    position = merge_states(states, new)
    for rank in range(new):
        node = planner(docs, rank=rank, world_size=new, start=position)
        plans = iter(lambda node=node: step(node), None)  # type: ignore[misc]
        seen.extend(t for plan in plans for t in inputs(plan, 8))
    assert Counter(seen) == epoch_tokens(docs)


@settings(max_examples=80, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=25),
    old=st.integers(1, 3),
    data=st.data(),
)
def test_plans_equal_the_token_by_token_loops(lengths: list[int], old: int, data: Any) -> None:
    """The vectorized planner gives the pieces and states of the plain loops, batch after batch,
    across epochs and after an elastic resume, however many batches it plans at once."""
    from tests.unit.loader.reference import LoopPlanner

    repeats = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths), max_size=len(lengths)))
    repeats[0] += max(0, 3 - sum(repeats))
    docs = documents(lengths, repeats)
    options = {
        "seq_len": data.draw(st.integers(2, 17)),
        "batch_size": data.draw(st.integers(1, 4)),
        "seed": 3,
    }
    states = []
    for rank in range(old):  # a cut run of `old` ranks, to resume from its leftovers
        node = planner(docs, rank=rank, world_size=old, **options)
        last = node.state_dict()
        for _ in range(data.draw(st.integers(0, 5))):
            plan = step(node)
            last = plan.state if plan is not None else last
        states.append({**last, "rank": rank, "world_size": old})
    new = data.draw(st.integers(1, old))
    start = data.draw(st.sampled_from([None, merge_states(states, new)]))
    size = new if start is not None else 1
    for rank in range(size):
        ahead = data.draw(st.sampled_from([None, 1, 2, 5]))
        node = planner(docs, rank=rank, world_size=size, start=start, ahead=ahead, **options)
        loops = LoopPlanner(**docs, rank=rank, world_size=size, start=start, **options)
        for _ in range(data.draw(st.integers(1, 30))):
            plan = next(node)
            pieces, windows, state = loops.next()
            assert plan.pieces.tolist() == pieces.tolist()
            assert (plan.windows, plan.state) == (windows, state)
            assert plan.last == (state["cursor"][0] >= loops._schedule.count(rank))


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 40), min_size=1, max_size=25),
    size=st.integers(1, 5),
    data=st.data(),
)
def test_groups_end_at_epoch_ends_and_resume(lengths: list[int], size: int, data: Any) -> None:
    """Grouper passes the planner's stream on in groups of at most ``size`` plans, none past
    an epoch's last; resuming from its state gives the same groups."""
    repeats = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths), max_size=len(lengths)))
    repeats[0] += 1
    docs = documents(lengths, repeats)
    seq_len = data.draw(st.integers(2, 17))
    grouper = Grouper(planner(docs, seq_len=seq_len), size)
    groups = [next(grouper) for _ in range(12)]
    plain = planner(docs, seq_len=seq_len)
    flat = [plan for group in groups for plan in group]
    assert [(p.pieces.tolist(), p.state) for p in flat] == [
        (p.pieces.tolist(), p.state) for p in (next(plain) for _ in flat)
    ]
    for group in groups:
        assert 1 <= len(group) <= size and not any(p.last for p in group[:-1])
        assert len(group) == size or group[-1].last
        assert len({p.state["epoch"] for p in group}) == 1
    cut = data.draw(st.integers(0, 11))
    first = Grouper(planner(docs, seq_len=seq_len), size)
    for _ in range(cut):
        next(first)
    resumed = Grouper(planner(docs, seq_len=seq_len), size)
    resumed.reset(first.state_dict())
    assert [p.state for p in next(resumed)] == [p.state for p in groups[cut]]
    with pytest.raises(ValueError, match="at least one plan, got size 0"):
        Grouper(planner(docs), 0)
