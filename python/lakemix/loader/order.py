"""The sample order of an epoch: every (document, copy) once, shuffled by (seed, epoch).

A sample's place is a pure function of its document's key, its copy number, the seed and the
epoch (a 64-bit hash, ties broken by the key and copy), so the order does not depend on where
the documents are stored, on the number of ranks or workers, or on which other documents the
mix holds (shared/REFERENCE.md, "Mixing": sampling decisions as a pure function of id and seed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def document_key(document_id: str) -> int:
    """A stable 64-bit key of a document id (BLAKE2b), the same on every machine."""
    return int.from_bytes(hashlib.blake2b(document_id.encode(), digest_size=8).digest(), "little")


def _mix64(values: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finalizer, element-wise (uint64 arithmetic wraps, as the algorithm needs)."""
    z = values.copy()
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


@dataclass(frozen=True)
class EpochOrder:
    """Samples of one epoch in their shuffled order: sample ``p`` is copy ``copies[p]`` of the
    document in row ``rows[p]`` of the store."""

    rows: NDArray[np.int64]
    copies: NDArray[np.int64]


def epoch_order(
    keys: NDArray[np.uint64], repeats: NDArray[np.int64], *, seed: int, epoch: int
) -> EpochOrder:
    """Shuffle every (document, copy) of an epoch deterministically.

    Args:
        keys: ``document_key`` of each stored document.
        repeats: Whole copies of each document in the mix (its ``repeat_count``).
        seed: The run's seed.
        epoch: The epoch number (0 first).
    """
    return Shuffle(keys, repeats).order(seed=seed, epoch=epoch)


class Shuffle:
    """``epoch_order`` for one set of documents, epoch after epoch: what does not depend on
    the seed and the epoch (the samples, their keys) is computed once."""

    def __init__(self, keys: NDArray[np.uint64], repeats: NDArray[np.int64]) -> None:
        total = int(repeats.sum())
        self._rows = np.repeat(np.arange(len(keys), dtype=np.int64), repeats)
        starts = np.cumsum(repeats) - repeats
        self._copies = np.arange(total, dtype=np.int64) - np.repeat(starts, repeats)
        self._keys = keys[self._rows]
        self._spread = self._copies.astype(np.uint64) * np.uint64(_GOLDEN)

    def order(self, *, seed: int, epoch: int) -> EpochOrder:
        """The order of epoch ``epoch`` under ``seed``."""
        salt = (seed * _GOLDEN + epoch * 0xD1B54A32D192ED03 + 1) & _MASK
        sample_keys = self._keys ^ _mix64(self._spread + np.uint64(salt))
        hashes = _mix64(sample_keys)
        # Sorting the hashes alone gives the same order unless two are equal (one pair in 2^64):
        # then the key and the copy break the tie. A third of the cost of a three-key lexsort.
        order = np.argsort(hashes, kind="stable")
        ranked = hashes[order]
        if (ranked[1:] == ranked[:-1]).any():
            order = np.lexsort((self._copies, self._keys, hashes))
        return EpochOrder(rows=self._rows[order], copies=self._copies[order])

    def orders(self, seed: int, epochs: Sequence[int]) -> NDArray[np.int64]:
        """``[len(epochs), samples]``: ``order(seed=seed, epoch=e).rows`` of each epoch,
        computed together (a small group is read through many epochs in one plan)."""
        salts = np.array(
            [(seed * _GOLDEN + e * 0xD1B54A32D192ED03 + 1) & _MASK for e in epochs], dtype=np.uint64
        )
        sample_keys = self._keys[None, :] ^ _mix64(self._spread[None, :] + salts[:, None])
        hashes = _mix64(sample_keys)
        order = np.argsort(hashes, axis=1, kind="stable")
        ranked = np.take_along_axis(hashes, order, axis=1)
        for k in np.flatnonzero((ranked[:, 1:] == ranked[:, :-1]).any(axis=1)).tolist():
            order[k] = np.lexsort((self._copies, self._keys, hashes[k]))
        return self._rows[order]
