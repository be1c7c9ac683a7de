"""The epoch order: a sort by the samples' hashes, ties broken by key and copy."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lakemix.loader.order import _GOLDEN, _MASK, Shuffle, _mix64


def lexsorted(keys: np.ndarray, repeats: np.ndarray, seed: int, epoch: int) -> np.ndarray:
    """The rows of the epoch by the definition: hash, then key, then copy (a three-key sort)."""
    rows = np.repeat(np.arange(len(keys)), repeats)
    copies = np.concatenate([np.arange(r) for r in repeats]).astype(np.int64)
    salt = (seed * _GOLDEN + epoch * 0xD1B54A32D192ED03 + 1) & _MASK
    spread = copies.astype(np.uint64) * np.uint64(_GOLDEN) + np.uint64(salt)
    hashes = _mix64(keys[rows] ^ _mix64(spread))
    return rows[np.lexsort((copies, keys[rows], hashes))]


@given(
    keys=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
    seed=st.integers(0, 2**32),
    epoch=st.integers(0, 50),
    data=st.data(),
)
def test_the_order_is_the_three_key_sort(
    keys: list[int], seed: int, epoch: int, data: st.DataObject
) -> None:
    size = len(keys)
    repeats = np.array(data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size)))
    if repeats.sum() == 0:
        repeats[0] = 1
    array = np.array(keys, dtype=np.uint64)
    found = Shuffle(array, repeats).order(seed=seed, epoch=epoch)
    assert found.rows.tolist() == lexsorted(array, repeats, seed, epoch).tolist()


def test_equal_hashes_are_ordered_by_key_then_copy() -> None:
    seed, epoch = 7, 2
    salt = np.uint64((seed * _GOLDEN + epoch * 0xD1B54A32D192ED03 + 1) & _MASK)
    spread = [_mix64(np.array([c * _GOLDEN % 2**64], dtype=np.uint64) + salt)[0] for c in (0, 1)]
    # Document 1's copy 0 hashes like document 0's copy 1 (its key is chosen so, and smaller,
    # so that the tie is broken against the samples' places), and documents 2 and 3 share a
    # key: every sample has a twin of equal hash.
    twin = int(spread[1]) ^ int(spread[0])
    first = next(k for k in range(1 << 60, 1 << 64, 1 << 58) if k ^ twin < k)
    keys = np.array([first, first ^ twin, 5, 5], dtype=np.uint64)
    repeats = np.array([2, 1, 1, 1])
    found = Shuffle(keys, repeats).order(seed=seed, epoch=epoch)
    assert found.rows.tolist() == lexsorted(keys, repeats, seed, epoch).tolist()
    assert len(set(found.rows.tolist())) == 4


def test_orders_of_many_epochs_at_once_are_each_epochs_order() -> None:
    keys = np.array([(i * 0x9E3779B97F4A7C15 + 5) % 2**64 for i in range(7)], dtype=np.uint64)
    repeats = np.array([1, 3, 1, 2, 1, 1, 4], dtype=np.int64)
    shuffle = Shuffle(keys, repeats)
    epochs = [0, 1, 5, 40]
    together = shuffle.orders(9, epochs)
    for k, epoch in enumerate(epochs):
        assert together[k].tolist() == shuffle.order(seed=9, epoch=epoch).rows.tolist()
    assert len({tuple(row) for row in together.tolist()}) > 1  # the epochs differ
