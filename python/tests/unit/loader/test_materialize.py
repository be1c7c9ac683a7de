"""Materializer on a synthetic token store: what each tensor of a packed batch holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.loader import boundaries
from lakemix.loader.boundaries import EXTRA_FIELDS
from lakemix.loader.materialize import IGNORE_INDEX, Materializer
from lakemix.loader.order import document_key
from lakemix.loader.planner import BatchPlanner
from lakemix.loader.reader import TokenStore
from lakemix.loader.store import SCHEMA

EOT = 99
DTYPES = {
    "input_ids": torch.int64,
    "labels": torch.int64,
    "cu_seqlens": torch.int32,
    "attention_mask": torch.int8,
    "segment_ids": torch.int32,
    "position_ids": torch.int32,
}


def write_store(path: Path, documents: list[list[int]], repeats: list[int]) -> TokenStore:
    ids = [f"doc-{i}" for i in range(len(documents))]
    with pa.ipc.new_file(str(path), SCHEMA.with_metadata({"eot": str(EOT)})) as writer:
        half = len(documents) // 2  # two record batches, so rows are found across them
        for part in (slice(0, half), slice(half, None)):
            writer.write_batch(
                pa.record_batch(
                    [
                        pa.array(ids[part]),
                        pa.array(["xx"] * len(ids[part])),
                        pa.array([document_key(d) for d in ids[part]], type=pa.uint64()),
                        pa.array(repeats[part], type=pa.int64()),
                        pa.array([[*d, EOT] for d in documents[part]], type=pa.list_(pa.int32())),
                    ],
                    schema=SCHEMA,
                )
            )
    return TokenStore(path)


def test_batches_hold_inputs_labels_boundaries_and_provenance(tmp_path: Path) -> None:
    documents = [[1, 2, 3], [10, 11, 12, 13, 14, 15, 16, 17, 18], [20], [30, 31, 32, 33]]
    store = write_store(tmp_path / "store.arrow", documents, [1, 2, 0, 1])
    seq_len = 5
    node = BatchPlanner(
        keys=store.keys, repeats=store.repeats, lengths=store.lengths, seq_len=seq_len,
        batch_size=3, rank=0, world_size=1, seed=1,
    )  # fmt: skip
    make = Materializer(tmp_path / "store.arrow", seq_len=seq_len, pad_id=EOT)
    stream: list[int] = []  # the epoch's input tokens, in order
    owners: list[str] = []
    ends: list[tuple[int, int, int]] = []  # (first input, last label, inputs) of each sequence
    while (plan := next(node)).state["epoch"] == 0:
        ((batch, state),) = make([plan])
        assert state == plan.state
        assert set(batch) == {"input_ids", "labels", "cu_seqlens", "document_ids"}
        cu = batch["cu_seqlens"]
        assert cu.dtype == torch.int32 and cu[0] == 0 and (cu.diff() > 0).all()
        real = boundaries.attention_mask(batch).bool()
        segment_ids = boundaries.segment_ids(batch)
        assert int(real.sum()) == int(cu[-1])
        for w in range(plan.windows):
            inputs = batch["input_ids"][w][real[w]].tolist()
            labels = batch["labels"][w]
            n = len(inputs)
            # Label k is input k + 1, and the last label is the next sequence's first input.
            assert labels[: n - 1].tolist() == inputs[1:]
            assert (labels[n:] == IGNORE_INDEX).all()
            ends.append((inputs[0], int(labels[n - 1]), n))
            segments = segment_ids[w][real[w]].tolist()
            names = batch["document_ids"][w]
            # Every document of the row has a segment, but one whose only token is the last label.
            assert sorted(set(segments)) == list(range(len(set(segments))))
            assert len(names) - len(set(segments)) in (0, 1)
            owners.extend(names[s] for s in segments)
            positions = boundaries.position_ids(batch)[w][real[w]]
            assert (positions[1:][np.diff(segments) == 0] > 0).all()
            assert (segment_ids[w][~real[w]] == -1).all()
            stream.extend(inputs)
    # A full sequence's last label is the next one's first input; a short one has none.
    for (_, last, n), (first, _, _) in zip(ends, [*ends[1:], (IGNORE_INDEX, 0, 0)], strict=True):
        assert last == (first if n == seq_len else IGNORE_INDEX)
    assert batch["input_ids"].dtype == torch.int64 and batch["input_ids"].shape[1] == seq_len
    # Every copy's tokens, end-of-text included, once, in the planner's order.
    copies = [f"doc-{i}" for i, r in enumerate([1, 2, 0, 1]) for _ in range(r)]
    assert sorted(owners) == sorted(d for d in copies for _ in documents[int(d[4:])] + [EOT])
    assert len(stream) == sum(len(documents[int(d[4:])]) + 1 for d in copies)
    assert stream.count(EOT) == len(copies) and "doc-2" not in owners
    assert store.vocabulary().tolist() == sorted({t for d in documents for t in d} | {EOT})


def test_labels_are_the_inputs_one_token_on_in_the_same_memory(tmp_path: Path) -> None:
    """Inputs and labels share their memory (both contiguous), but in the batch that ends an
    epoch, whose padding needs -100 labels."""
    documents = [list(range(100 * i, 100 * i + 7)) for i in range(1, 6)]
    store = write_store(tmp_path / "store.arrow", documents, [1] * 5)
    node = BatchPlanner(
        keys=store.keys, repeats=store.repeats, lengths=store.lengths, seq_len=4,
        batch_size=2, rank=0, world_size=1, seed=3,
    )  # fmt: skip
    plans = []
    while (plan := next(node)).state["epoch"] == 0:
        plans.append(plan)
    built = Materializer(tmp_path / "store.arrow", seq_len=4, pad_id=EOT)(plans)
    for k, (batch, _) in enumerate(built):
        inputs, labels = batch["input_ids"], batch["labels"]
        assert inputs.is_contiguous() and labels.is_contiguous()
        aliased = labels.data_ptr() == inputs.data_ptr() + 8
        assert aliased == (k < len(built) - 1)
    batch = built[0][0]
    batch["input_ids"][0, 1] = -5  # the aliasing docs/loader.md warns of
    assert batch["labels"][0, 0] == -5
    assert built[-1][0]["labels"][-1, -1] == IGNORE_INDEX


def test_extra_fields_are_checked_by_name(tmp_path: Path) -> None:
    write_store(tmp_path / "store.arrow", [[1, 2]], [1])
    with pytest.raises(ValueError, match=r"unknown extra field 'mask'; choose among attention"):
        Materializer(tmp_path / "store.arrow", seq_len=4, pad_id=EOT, extra_fields=["mask"])
    with pytest.raises(ValueError, match="must be a list of names, got the string 'segment_ids'"):
        Materializer(tmp_path / "store.arrow", seq_len=4, pad_id=EOT, extra_fields="segment_ids")
    fields = ["position_ids", "segment_ids", "position_ids"]
    made = Materializer(tmp_path / "store.arrow", seq_len=4, pad_id=EOT, extra_fields=fields)
    assert made.extra_fields == ("position_ids", "segment_ids")


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 30), min_size=1, max_size=20),
    data=st.data(),
)
def test_batches_equal_the_token_by_token_loops(
    tmp_path_factory: pytest.TempPathFactory, lengths: list[int], data: Any
) -> None:
    """Every batch of three epochs holds what the plain loops write, padding included, however
    many consecutive plans are built together."""
    from tests.unit.loader.reference import loop_tensors

    repeats = data.draw(st.lists(st.integers(0, 3), min_size=len(lengths), max_size=len(lengths)))
    repeats[0] += 1
    documents = [[1000 + 37 * i + t for t in range(n - 1)] for i, n in enumerate(lengths)]
    path = tmp_path_factory.mktemp("store") / "store.arrow"
    store = write_store(path, documents, repeats)
    seq_len, batch_size = data.draw(st.integers(2, 12)), data.draw(st.integers(1, 4))
    node = BatchPlanner(
        keys=store.keys, repeats=store.repeats, lengths=store.lengths, seq_len=seq_len,
        batch_size=batch_size, rank=0, world_size=1, seed=2,
    )  # fmt: skip
    make = Materializer(path, seq_len=seq_len, pad_id=EOT, extra_fields=EXTRA_FIELDS)
    lean = Materializer(path, seq_len=seq_len, pad_id=EOT)  # the default fields only
    plans = []
    while (plan := next(node)).state["epoch"] < 3:
        plans.append(plan)
    group = data.draw(st.integers(1, 6))  # plans built together (across epochs too)
    for at in range(0, len(plans), group):
        built = make(plans[at : at + group])
        alone = lean(plans[at : at + group])
        for plan, (batch, state), (default, _) in zip(
            plans[at : at + group], built, alone, strict=True
        ):
            assert state == plan.state
            expected = loop_tensors(store, plan.pieces, plan.windows, seq_len=seq_len, pad_id=EOT)
            assert batch["document_ids"] == expected.pop("document_ids")
            for name, array in expected.items():
                assert batch[name].dtype == DTYPES[name], name
                assert batch[name].tolist() == array.tolist(), name
                # boundaries.py derives the same from cu_seqlens
                if name in EXTRA_FIELDS:
                    assert torch.equal(getattr(boundaries, name)(default), batch[name]), name
            assert set(default) == {"input_ids", "labels", "cu_seqlens", "document_ids"}
            assert default["document_ids"] == batch["document_ids"]
            for name in ("input_ids", "labels", "cu_seqlens"):
                assert torch.equal(default[name], batch[name]), name
