"""Text normalization of raw documents (``macros/normalize_text.sql``) as one pass over Arrow.

The rules, in the order they apply: CRLF and CR become LF; Unicode NFC; control characters
U+0000-0008, U+000B-001F, U+007F-009F and U+FEFF removed (tab and newline kept); every run of
tabs and ``Zs`` spaces becomes one space; spaces next to a line break are removed; three or more
line breaks in a row become two; spaces and line breaks at either end are trimmed.

Why not SQL: the same rules as four ``regexp_replace`` calls around ``nfc_normalize`` cost
160 us a document in DuckDB (NFC alone 43 us), more than language identification. Here NFC is
Python's ``unicodedata`` (a quick check, then composition only where needed) and the rest one
numba pass over the UTF-8 bytes; both engines run this same function, so they agree.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from lakemix.udf.arrow import text_chunks
from lakemix.udf.utf8 import code_point, text_buffers

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Bumped when a text normalizes differently: the key (``lakemix.cache_key``) of every incremental
# model that reads normalized text names it, so their stored rows are rebuilt, not mixed.
DEFINITION = 1

# Unicode's Zs (space separators); stable since Unicode 4.0.
_ZS = (0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)


@numba.njit(cache=True, nogil=True)
def _kernel(data: Any, offsets: Any, valid: Any, spaces: Any, out: Any, out_offsets: Any) -> None:
    """Everything but NFC, for each text ``data[offsets[i]:offsets[i + 1]]`` (see the module)."""
    w = 0
    out_offsets[0] = 0
    for i in range(offsets.shape[0] - 1):
        p, end = offsets[i], offsets[i + 1]
        start = w
        pending = False  # a run of whitespace not yet written
        newlines = 0  # line breaks in that run
        while valid[i] and p < end:
            cp, n = code_point(data, p)
            if cp == 13:  # CR: with the LF after it one line break, alone a line break
                if p + 1 < end and data[p + 1] == 10:
                    p += 1
                    continue
                cp = 10
            if cp == 10:
                pending = True
                newlines += 1
            elif cp == 9 or (cp < spaces.shape[0] and spaces[cp]):
                pending = True
            elif cp <= 8 or 11 <= cp <= 31 or 0x7F <= cp <= 0x9F or cp == 0xFEFF:
                pass  # removed; a whitespace run goes on across it
            else:
                if pending and w > start:
                    if newlines == 0:
                        out[w] = 32
                        w += 1
                    else:
                        for _ in range(min(newlines, 2)):
                            out[w] = 10
                            w += 1
                pending = False
                newlines = 0
                for k in range(n):
                    out[w + k] = data[p + k]
                w += n
            p += n
        out_offsets[i + 1] = w


@functools.cache
def _spaces() -> np.ndarray:
    table = np.zeros(0x3001, np.bool_)
    table[list(_ZS)] = True
    return table


def normalize_texts(texts: pa.Array | pa.ChunkedArray) -> pa.LargeStringArray:
    """The normalized form of each text (see the module docstring); null stays null.

    Args:
        texts: Strings (string, large_string, string_view or null type).

    Returns:
        A large_string array of the same length.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
    """
    import pyarrow as pa

    results = []
    for chunk in text_chunks(texts):
        values = chunk.to_pylist()
        composed = pa.array(
            [None if v is None else unicodedata.normalize("NFC", v) for v in values],
            pa.large_string(),
        )
        data, offsets, valid = text_buffers(composed)
        out = np.empty(max(int(offsets[-1]), 1), np.uint8)
        out_offsets = np.empty(len(composed) + 1, np.int64)
        _kernel(data, offsets, valid, _spaces(), out, out_offsets)
        mask = composed.buffers()[0] if not valid.all() else None
        results.append(
            pa.LargeStringArray.from_buffers(
                len(composed),
                pa.py_buffer(out_offsets),
                pa.py_buffer(out[: out_offsets[-1]]),
                mask,
                len(composed) - int(valid.sum()),
            )
        )
    if not results:
        return pa.array([], pa.large_string())
    return pa.concat_arrays(results) if len(results) > 1 else results[0]


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_normalize_text(text VARCHAR) -> VARCHAR`` (vectorized, NULL to NULL)."""
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import VARCHAR

    conn.create_function(
        "lakemix_normalize_text",
        lambda texts: normalize_texts(texts),  # duckdb evaluates annotations: pass none
        [VARCHAR],
        VARCHAR,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
