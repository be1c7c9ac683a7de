"""Hashing kernels: 64-bit keys of code-point runs and open-addressing tables of them."""

from __future__ import annotations

from typing import Any

import numpy as np

from lakemix.udf.quality.jit import inline, jit

HB = np.uint64(0x100000001B3)  # polynomial hash base (FNV-1 prime)
HLEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
ONE = np.uint64(1)


@jit
def mix64(z: Any) -> Any:
    """splitmix64's finalizer."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def hash_key(cp: Any, s: int, e: int) -> Any:
    """Hash of the code points cp[s:e] and their number."""
    h = np.uint64(0)
    for i in range(s, e):
        h = h * HB + np.uint64(cp[i] + 1)
    return mix64(h ^ (np.uint64(e - s) * HLEN))


@inline
def find_slot(keys: Any, stamps: Any, stamp: int, key: Any) -> tuple[Any, bool]:
    """Slot of ``key`` in an open-addressing table (entries are live when stamped ``stamp``)."""
    mask = np.uint64(len(keys) - 1)
    i = np.int64(mix64(key) & mask)
    while stamps[i] == stamp:
        if keys[i] == key:
            return i, True
        i = (i + 1) & (len(keys) - 1)
    return i, False


@jit
def hash_table(entries: int) -> Any:
    """An empty hash table for up to ``entries`` keys: keys, stamps, counts, first seen, lengths."""
    size = 16
    while size < 2 * entries + 2:
        size *= 2
    i32 = np.int32
    z = np.zeros
    return np.empty(size, np.uint64), z(size, np.int64), z(size, i32), z(size, i32), z(size, i32)


@jit
def lower_key(cp: Any, s: int, e: int, lower: Any) -> Any:
    """``hash_key`` of cp[s:e] lower-cased with ``lower`` (one code point per character)."""
    h = np.uint64(0)
    for i in range(s, e):
        h = h * HB + np.uint64(lower[cp[i]] + 1)
    return mix64(h ^ (np.uint64(e - s) * HLEN))
