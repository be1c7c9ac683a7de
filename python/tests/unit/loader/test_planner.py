"""BatchPlanner on synthetic documents: packing, sharding, exact and elastic resume."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.loader.mix_loader import merge_states
from lakemix.loader.planner import BatchPlan, BatchPlanner


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


def state(node: BatchPlanner, rank: int, world_size: int) -> dict[str, Any]:
    return {**node.state_dict(), "rank": rank, "world_size": world_size}


def epoch_tokens(docs: dict[str, Any]) -> Counter[tuple[int, int]]:
    """Every token of an epoch once, keyed like ``inputs`` (positions in shuffled order)."""
    from lakemix.loader.order import epoch_order

    order = epoch_order(docs["keys"], docs["repeats"], seed=3, epoch=0)
    return Counter(
        (p, t) for p, row in enumerate(order.rows.tolist()) for t in range(docs["lengths"][row])
    )


def test_packs_every_token_once_in_full_sequences() -> None:
    docs = documents([5, 1, 12, 3], [1, 2, 1, 3])
    node = planner(docs)
    plans = list(node)
    seen = [t for plan in plans for t in inputs(plan, 8)]
    assert Counter(seen) == epoch_tokens(docs)
    sizes = [len(inputs(p, 8)) for p in plans]
    assert all(s == 16 for s in sizes[:-1])  # only the last batch is short
    node.reset()  # the next epoch: another order, same tokens
    assert [p.pieces.tolist() for p in node] != [p.pieces.tolist() for p in plans]


def test_each_sample_goes_to_one_rank() -> None:
    docs = documents([9, 4, 30, 2, 7, 11, 3], [2, 1, 1, 3, 1, 2, 1])
    ranks = [planner(docs, rank=r, world_size=3) for r in range(3)]
    positions = [{int(p) for plan in node for p in plan.pieces[:, 4]} for node in ranks]
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
    whole = [p.pieces.tolist() for p in planner(docs, seq_len=seq_len)]
    cut = data.draw(st.integers(0, len(whole)))
    first = planner(docs, seq_len=seq_len)
    head = [next(first).pieces.tolist() for _ in range(cut)]
    resumed = planner(docs, seq_len=seq_len, start=first.state_dict())
    assert head + [p.pieces.tolist() for p in resumed] == whole
    again = planner(docs, seq_len=seq_len)  # reset(state) on a used node works the same
    list(again)
    again.reset(first.state_dict())
    assert [p.pieces.tolist() for p in again] == whole[cut:]


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
    if sum(repeats) == 0:
        repeats[0] = 1
    docs = documents(lengths, repeats)
    seen: list[tuple[int, int]] = []
    states = []
    for rank in range(old):  # each old rank stops after its own number of batches
        node = planner(docs, rank=rank, world_size=old)
        for _ in range(data.draw(st.integers(0, 6))):
            plan = next(node, None)
            if plan is None:
                break
            seen.extend(inputs(plan, 8))
        states.append(state(node, rank, old))
    for _ in range(data.draw(st.integers(0, 2))):  # resumed again, at yet another size
        position = merge_states(states, new)
        states = []
        for rank in range(new):
            node = planner(docs, rank=rank, world_size=new, start=position)
            for _ in range(data.draw(st.integers(0, 3))):
                plan = next(node, None)
                if plan is None:
                    break
                seen.extend(inputs(plan, 8))
            states.append(state(node, rank, new))
        old, new = new, data.draw(st.integers(1, 4))
    position = merge_states(states, new)
    for rank in range(new):
        node = planner(docs, rank=rank, world_size=new, start=position)
        seen.extend(t for plan in node for t in inputs(plan, 8))
    assert Counter(seen) == epoch_tokens(docs)
