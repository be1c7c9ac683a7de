"""Stop words: the lists the signals kernel counts, from the arguments of ``quality_signals``.

The words come with the data (the dbt model joins each document to its language's row of the
``stop_words`` seed), never from a file: a release rebuilds with the stop words it was made
with. Words are matched lower-cased one code point at a time, on both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa

from lakemix.udf.arrow import TEXT_TYPES, one_array
from lakemix.udf.quality.chars import code_points
from lakemix.udf.quality.hashing import lower_key


def languages_of(languages: pa.Array | pa.ChunkedArray | None, size: int) -> list[str | None]:
    """The language of each of ``size`` texts (all None when ``languages`` is None).

    Raises:
        TypeError: If ``languages`` is not an array of strings.
        ValueError: If its length is not ``size``.
    """
    if languages is None:
        return [None] * size
    languages = one_array(languages)
    if not any(getattr(pa.types, f"is_{name}")(languages.type) for name in TEXT_TYPES):
        raise TypeError(f"languages must be an Arrow array of strings, got {languages.type}")
    if len(languages) != size:
        raise ValueError(f"texts and languages differ in length: {size} != {len(languages)}")
    names: list[str | None] = languages.to_pylist()
    return names


def stop_word_lists(
    stop_words: pa.Array | pa.ChunkedArray | Mapping[str, Iterable[str]] | None,
    languages: list[str | None],
    size: int,
) -> dict[str, list[str]]:
    """Stop words per language, from a mapping or from one list per text.

    Raises:
        ValueError: If the per-text lists differ in length from the texts, or two texts of one
            language carry different lists.
    """
    if stop_words is None:
        return {}
    if isinstance(stop_words, Mapping):
        present = {language for language in languages if language is not None}
        return {code: list(words) for code, words in stop_words.items() if code in present}
    rows = one_array(stop_words).to_pylist()
    if len(rows) != size:
        raise ValueError(f"texts and stop-word lists differ in length: {size} != {len(rows)}")
    lists: dict[str, list[str]] = {}
    for language, words in zip(languages, rows, strict=True):
        if language is None or words is None:
            continue
        known = lists.setdefault(language, words)
        if known is not words and known != words and sorted(known) != sorted(words):
            raise ValueError(
                f"texts of language {language!r} carry different stop-word lists: "
                f"{sorted(known)[:5]}... and {sorted(words)[:5]}...; pass one list per language"
            )
    return lists


def stop_word_keys(words: Iterable[str], lower: np.ndarray) -> np.ndarray:
    """Sorted, distinct hash keys of ``words`` lower-cased with ``lower`` (uint64)."""
    keys = []
    for word in words:
        cp = code_points(word)
        keys.append(lower_key(cp, 0, len(cp), lower))
    return np.unique(np.array(keys, dtype=np.uint64))
