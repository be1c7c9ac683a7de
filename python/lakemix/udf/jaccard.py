"""Exact word-shingle Jaccard similarity of text pairs, to verify MinHash candidate pairs.

Words and shingles are the MinHash kernel's (:mod:`lakemix.udf.minhash`: maximal runs of
Unicode letters, marks and digits, lower-cased; shingles of ``shingle_words`` consecutive words,
or the one shingle of all the words of a shorter text), so a pair is verified on exactly the
sets its signatures estimate. Each shingle is compared by its 61-bit hash (XXH64 mod
``2**61 - 1``): two different shingles of a pair share one with probability about ``2**-61``
per pair of shingles, far below any threshold's resolution. Two texts without any word have
Jaccard 1.0; a text without words and one with words 0.0; a null text gives null.

The kernel (numba) sorts each text's shingle hashes and counts the distinct ones and the shared
ones in one merge: no Python object per shingle.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.udf.arrow import constant, text_byte_lengths
from lakemix.udf.minhash import SHINGLE_WORDS, shingle_hashes

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from numpy.typing import NDArray

# The version of the definition above (1: regular-expression words and sets of word tuples;
# 2: the MinHash kernel's shingles): bump it when a pair's Jaccard changes, so that cached pairs
# verified under the old one are refused (lakemix.dbt.cache_key).
DEFINITION = 2


def _kernel(
    hashes_a: NDArray[np.uint64],
    starts_a: NDArray[np.int64],
    counts_a: NDArray[np.int64],
    hashes_b: NDArray[np.uint64],
    starts_b: NDArray[np.int64],
    counts_b: NDArray[np.int64],
    valid: NDArray[np.bool_],
    out: NDArray[np.float64],
) -> None:
    """``out[i]`` = |A & B| / |A | B| of pair ``i``'s shingle hash sets (compiled by numba)."""
    for i in range(valid.shape[0]):
        if not valid[i]:
            continue
        a = np.sort(hashes_a[starts_a[i] : starts_a[i] + counts_a[i]])
        b = np.sort(hashes_b[starts_b[i] : starts_b[i] + counts_b[i]])
        na, nb = a.shape[0], b.shape[0]
        ia = ib = 0
        distinct = shared = 0
        while ia < na or ib < nb:
            x = a[ia] if ib == nb or (ia < na and a[ia] < b[ib]) else b[ib]
            in_a = ia < na and a[ia] == x
            in_b = ib < nb and b[ib] == x
            while ia < na and a[ia] == x:
                ia += 1
            while ib < nb and b[ib] == x:
                ib += 1
            distinct += 1
            if in_a and in_b:
                shared += 1
        out[i] = 1.0 if distinct == 0 else shared / distinct


@functools.cache
def _compiled() -> Callable[..., None]:
    """The numba-compiled kernel (compiled on first use, cached on disk by numba)."""
    import numba

    compiled: Callable[..., None] = numba.njit(cache=True, nogil=True)(_kernel)
    return compiled


# Text bytes (both sides) hashed at once by jaccard_similarities.
SLICE_BYTES = 32 << 20


def jaccard_similarities(
    texts_a: pa.Array | pa.ChunkedArray,
    texts_b: pa.Array | pa.ChunkedArray,
    *,
    shingle_words: int = SHINGLE_WORDS,
) -> pa.DoubleArray:
    """Jaccard similarity of ``texts_a[i]`` and ``texts_b[i]``'s word-shingle sets, per ``i``.

    Raises:
        TypeError: If an argument is not an array of strings.
        ValueError: If the arrays differ in length or ``shingle_words`` is not positive.
    """
    import pyarrow as pa

    if len(texts_a) != len(texts_b):
        raise ValueError(f"texts_a has {len(texts_a)} texts, texts_b {len(texts_b)}")
    valid = np.asarray(texts_a.is_valid(), dtype=np.bool_) & np.asarray(
        texts_b.is_valid(), dtype=np.bool_
    )
    out = np.zeros(len(texts_a), dtype=np.float64)
    # Shingle hashes take up to 4x their text (8 bytes per 2 text bytes): pairs are taken a
    # slice of at most SLICE_BYTES of text at a time, so long texts cannot exhaust memory.
    ends = np.cumsum(text_byte_lengths(texts_a) + text_byte_lengths(texts_b))
    kernel, begin = _compiled(), 0
    while begin < len(out):
        done = int(ends[begin - 1]) if begin else 0
        end = max(int(np.searchsorted(ends, done + SLICE_BYTES, side="right")), begin + 1)
        side_a = shingle_hashes(texts_a.slice(begin, end - begin), shingle_words=shingle_words)
        side_b = shingle_hashes(texts_b.slice(begin, end - begin), shingle_words=shingle_words)
        kernel(*side_a, *side_b, valid[begin:end], out[begin:end])
        begin = end
    return pa.array(out, type=pa.float64(), mask=~valid)


def jaccard(a: str, b: str, *, shingle_words: int = SHINGLE_WORDS) -> float:
    """The Jaccard similarity of two texts (see the module docstring)."""
    import pyarrow as pa

    value = jaccard_similarities(
        pa.array([a], type=pa.string()), pa.array([b], type=pa.string()),
        shingle_words=shingle_words,
    )[0].as_py()  # fmt: skip
    return float(value)


def _udf(texts_a: Any, texts_b: Any, shingle_words: Any) -> pa.Array:
    words = constant("lakemix_jaccard", "shingle_words", shingle_words)
    return jaccard_similarities(
        texts_a, texts_b, shingle_words=SHINGLE_WORDS if words is None else int(words)
    )


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_jaccard(text_a, text_b, shingle_words INTEGER) -> DOUBLE``.

    The dbt models pass ``lakemix_minhash_shingle_words``, so candidates are verified on the
    shingles their signatures were computed from.
    """
    from duckdb.func import ARROW
    from duckdb.sqltypes import DOUBLE, INTEGER, VARCHAR

    conn.create_function(
        "lakemix_jaccard",
        lambda a, b, words: _udf(a, b, words),  # duckdb evaluates annotations: pass none
        [VARCHAR, VARCHAR, INTEGER],
        DOUBLE,
        type=ARROW,
        side_effects=False,
    )
