"""Exact word 5-gram Jaccard similarity of text pairs, to verify MinHash candidate pairs.

Words are maximal runs of Unicode letters and digits (``[^\\W_]+`` after ``str.lower``), close
to the MinHash kernel's words (which also keep combining marks inside a word); shingles are
tuples of ``SHINGLE_WORDS`` consecutive words (a shorter text is one shingle of all its words).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lakemix.udf.minhash import SHINGLE_WORDS

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

_WORD = re.compile(r"[^\W_]+")


def shingles(text: str, size: int = SHINGLE_WORDS) -> set[tuple[str, ...]]:
    """The set of word ``size``-grams of ``text``."""
    words = _WORD.findall(text.lower())
    if len(words) < size:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: str, b: str) -> float:
    """|A & B| / |A | B| of the two texts' shingle sets (1.0 when both have none)."""
    sa, sb = shingles(a), shingles(b)
    union = len(sa | sb)
    return 1.0 if union == 0 else len(sa & sb) / union


def _udf(texts_a: Any, texts_b: Any) -> pa.Array:
    import pyarrow as pa

    values = [
        None if a is None or b is None else jaccard(a, b)
        for a, b in zip(texts_a.to_pylist(), texts_b.to_pylist(), strict=True)
    ]
    return pa.array(values, type=pa.float64())


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_jaccard(text_a VARCHAR, text_b VARCHAR) -> DOUBLE``."""
    from duckdb.func import ARROW
    from duckdb.sqltypes import DOUBLE, VARCHAR

    conn.create_function(
        "lakemix_jaccard",
        lambda a, b: _udf(a, b),  # duckdb evaluates annotations: pass none
        [VARCHAR, VARCHAR],
        DOUBLE,
        type=ARROW,
        side_effects=False,
    )
