"""Stop words: how many of a text's words are stop words of its language."""

from __future__ import annotations

import csv
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakemix.udf.quality.chars import code_points, decode_utf8
from lakemix.udf.quality.hashing import hash_key
from lakemix.udf.quality.jit import jit
from lakemix.udf.quality.words import tables, tokenize
from lakemix.udf.utf8 import text_buffers

STOP_WORDS_SEED = Path(__file__).resolve().parents[4] / "seeds" / "stop_words.csv"


@jit
def _stop_word_kernel(
    data: Any,
    offsets: Any,
    languages: Any,
    fl: Any,
    lower: Any,
    tk: Any,
    words: Any,
    word_offsets: Any,
    out: Any,
) -> None:
    longest = 1
    for r in range(len(offsets) - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    cp = np.empty(longest + 1, np.int32)
    ts, te = np.empty(longest + 1, np.int32), np.empty(longest + 1, np.int32)
    ss, se = np.empty(longest + 1, np.int32), np.empty(longest + 1, np.int32)
    for r in range(len(offsets) - 1):
        lang = languages[r]
        if lang < 0:
            continue
        n = decode_utf8(data, offsets[r], offsets[r + 1], cp)
        nt = tokenize(cp, 0, n, fl, tk, ts, te, ss, se)
        for i in range(n):
            cp[i] = lower[cp[i]]
        lo0, hi0 = word_offsets[lang], word_offsets[lang + 1]
        count = 0
        for t in range(nt):
            key = hash_key(cp, ts[t], te[t])
            lo, hi = lo0, hi0
            while lo < hi:
                mid = (lo + hi) // 2
                if words[mid] < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < hi0 and words[lo] == key:
                count += 1
        out[r] = count


def stop_word_count(
    texts: pa.Array | pa.ChunkedArray,
    languages: pa.Array | pa.ChunkedArray,
    stop_words: Mapping[str, frozenset[str]],
) -> pa.Int64Array:
    """Occurrences of the text's language's stop words among its words (lower-cased).

    Words are split as in ``quality_signals`` and lower-cased one code point at a time, as are
    the stop words.

    Args:
        texts: Strings; nulls allowed.
        languages: The language code of each text, as keyed in ``stop_words``.
        stop_words: Stop words per language code.

    Returns:
        An int64 array; null where the text or the language is null or the language has no
        stop words in ``stop_words``.

    Raises:
        TypeError: If ``texts`` or ``languages`` are not arrays of strings.
        ValueError: If ``texts`` and ``languages`` differ in length.
    """
    if len(texts) != len(languages):
        raise ValueError(f"texts and languages differ in length: {len(texts)} != {len(languages)}")
    t = tables()
    codes = sorted(stop_words)
    words: list[np.ndarray] = []
    word_offsets = [0]
    for code in codes:
        keys = []
        for word in stop_words[code]:
            cp = t.lower[code_points(word)]
            keys.append(hash_key(cp, 0, len(cp)))
        words.append(np.unique(np.array(keys, dtype=np.uint64)))
        word_offsets.append(word_offsets[-1] + len(words[-1]))
    word_keys = np.concatenate(words) if words else np.zeros(0, np.uint64)
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if isinstance(languages, pa.ChunkedArray):
        languages = languages.combine_chunks()
    text_buffers(languages)  # type check
    index = pc.index_in(languages.cast(pa.large_string()), pa.array(codes, pa.large_string()))
    lang = index.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    data, offsets, valid = text_buffers(texts)
    lang[~valid] = -1
    out = np.zeros(len(texts), dtype=np.int64)
    _stop_word_kernel(
        data,
        offsets,
        lang,
        t.flags,
        t.lower,
        t.kernel,
        word_keys,
        np.array(word_offsets, np.int64),
        out,
    )
    return cast(pa.Int64Array, pa.array(out, pa.int64(), mask=lang < 0))


@functools.cache
def seed_stop_words() -> dict[str, frozenset[str]]:
    """Stop words per language from ``seeds/stop_words.csv`` (read once).

    Raises:
        FileNotFoundError: If the seed is missing (``scripts/make_stop_words.py`` writes it).
    """
    if not STOP_WORDS_SEED.is_file():
        raise FileNotFoundError(
            f"{STOP_WORDS_SEED} not found; write it: .venv/bin/python scripts/make_stop_words.py"
        )
    words: dict[str, set[str]] = {}
    with STOP_WORDS_SEED.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            words.setdefault(row["language"], set()).add(row["word"])
    return {language: frozenset(ws) for language, ws in words.items()}
