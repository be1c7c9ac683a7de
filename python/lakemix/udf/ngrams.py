"""Word n-grams of texts, hashed, for decontamination: ``lakemix_ngram_hashes(text, n)``.

Words and hashes are the MinHash kernel's (:mod:`lakemix.udf.minhash`: maximal runs of Unicode
letters, marks and digits, lower-cased; an n-gram is XXH64 mod ``2**61 - 1`` of its words joined
by one space), compiled with numba, so a document's 13-grams cost about what its MinHash
shingles do. A text holds the distinct hashes of its n-grams of exactly ``n`` consecutive
words; a text of fewer words has none (an evaluation item that short cannot be told from
common phrases by a long n-gram: decontamination counts it as unchecked). A null text gives
null. Two different n-grams share a hash with probability about ``2**-61``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.udf.arrow import constant, one_array
from lakemix.udf.minhash import shingle_hashes

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Bumped when the hashes of a text change: the cache key of the model that stores matches
# names it.
DEFINITION = 1


def ngram_hashes(texts: pa.Array | pa.ChunkedArray, n: int) -> pa.Array:
    """The distinct hashes of each text's ``n``-word n-grams (a ``list<int64>`` per text)."""
    import pyarrow as pa

    if n < 2:
        raise ValueError(f"lakemix_ngram_hashes: n must be at least 2, got {n}")
    array = one_array(texts)
    hashes, starts, counts = shingle_hashes(array, shingle_words=n)
    # A text of 1 to n - 1 words has one shingle of all its words: it has n - 1 words or
    # fewer exactly when its (n - 1)-word shingles number at most one as well.
    single = np.flatnonzero(counts == 1)
    if len(single):
        _, _, shorter = shingle_hashes(array.take(pa.array(single)), shingle_words=n - 1)
        counts[single[shorter <= 1]] = 0
    valid = np.asarray(array.is_valid())
    values: list[Any] = []
    for i in range(len(array)):
        if not valid[i]:
            values.append(None)
            continue
        own = hashes[starts[i] : starts[i] + counts[i]]
        values.append(np.unique(own).astype(np.int64))
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    flat = np.concatenate([v for v in values if v is not None] or [np.zeros(0, np.int64)])
    mask = pa.array(~valid) if not valid.all() else None
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, pa.int64()), mask=mask)


def _udf(texts: Any, n: Any) -> pa.Array:
    import pyarrow as pa

    words = constant("lakemix_ngram_hashes", "n", n)
    if words is None:
        return pa.array([], pa.list_(pa.int64()))
    return ngram_hashes(texts, int(words))


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_ngram_hashes(text VARCHAR, n INTEGER) -> BIGINT[]``."""
    import duckdb as duckdb_module
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, INTEGER, VARCHAR

    conn.create_function(
        "lakemix_ngram_hashes",
        lambda texts, n: _udf(texts, n),  # duckdb evaluates annotations: none
        [VARCHAR, INTEGER],
        duckdb_module.list_type(BIGINT),
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
