"""The token store's two ways of reading: at random for a loader (no read-around, a batch's
pages asked for at once), in order for an export (the kernel's read-ahead); the same tokens."""

from __future__ import annotations

import gc
import mmap
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.loader.reader import TokenStore
from tests.unit.loader.test_materialize import write_store
from tests.unit.test_mapped import advice_flags, resident


def test_a_loader_reads_at_random_and_an_export_in_order(tmp_path: Path) -> None:
    path = tmp_path / "store.arrow"
    write_store(path, [[1, 2, 3], [4, 5]], [1, 1])
    gc.collect()  # write_store's own store, unmapped
    loader = TokenStore(path)
    assert (flags := advice_flags(path)) and all("rr" in f for f in flags)
    del loader
    gc.collect()
    export = TokenStore(path, sequential=True)
    assert (flags := advice_flags(path)) and not any("rr" in f for f in flags)
    assert export.lengths.tolist() == [4, 3]


def test_a_batch_reads_its_pages_and_no_others(tmp_path: Path) -> None:
    # A shuffled loader over a store larger than memory: without the advice, each document's
    # first page would read the disk's read-ahead around it (8 MB on the bench machines).
    page = mmap.PAGESIZE
    per_document = page  # token ids (int32): four pages a document
    documents = [[d] * (per_document - 1) for d in range(40)]  # and the end-of-text id
    path = tmp_path / "store.arrow"
    write_store(path, documents, [1] * 40)
    gc.collect()
    fd = os.open(path, os.O_RDONLY)
    os.fdatasync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    store = TokenStore(path)
    out = np.empty(per_document, dtype=np.int64)
    store.gather(np.array([30]), np.array([0]), np.array([per_document]), out)
    assert (out[:-1] == 30).all()
    chunk, local = store._locate(30)  # the second of the store's two record batches
    values = store._values[chunk]
    first = values.ctypes.data // page * page
    pages = resident(pa.foreign_buffer(first, values.ctypes.data + values.nbytes - first))
    start = values.ctypes.data + int(store._offsets[chunk][local]) * 4 - first
    wanted = set(range(start // page, (start + per_document * 4 - 1) // page + 1))
    assert all(pages[p] for p in wanted)
    # the pages of the other documents' ids alone (the first and last are shared with the
    # file's other parts, read when it was opened)
    others = set(range(1, len(pages) - 1)) - wanted
    assert len(others) > 60 and not any(pages[p] for p in others), "other documents were read"


@settings(max_examples=40, deadline=None)
@given(
    documents=st.lists(st.lists(st.integers(0, 5000), max_size=30), min_size=1, max_size=12),
    picks=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 31), st.integers(0, 31))),
)
def test_both_ways_read_the_same_tokens(
    tmp_path_factory: pytest.TempPathFactory,
    documents: list[list[int]],
    picks: list[tuple[int, int, int]],
) -> None:
    path = tmp_path_factory.mktemp("store") / "store.arrow"
    write_store(path, documents, [1] * len(documents))
    at_random, in_order = TokenStore(path), TokenStore(path, sequential=True)
    rows = np.array([r % len(documents) for r, _, _ in picks], dtype=np.int64)
    lengths = at_random.lengths[rows]
    starts = np.minimum([min(a, b) for _, a, b in picks], lengths).astype(np.int64)
    stops = np.minimum([max(a, b) for _, a, b in picks], lengths).astype(np.int64)
    expected = [t for r, a, b in zip(rows, starts, stops, strict=True)
                for t in (documents[r] + [in_order.eot])[a:b]]  # fmt: skip
    for store in (at_random, in_order):
        out = np.empty(int((stops - starts).sum()), dtype=np.int64)
        store.gather(rows, starts, stops, out)
        assert out.tolist() == expected
    assert at_random.vocabulary().tolist() == in_order.vocabulary().tolist()
    assert at_random.keys.tolist() == in_order.keys.tolist()
    assert at_random.repeats.tolist() == in_order.repeats.tolist()
