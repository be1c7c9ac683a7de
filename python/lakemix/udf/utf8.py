"""The UTF-8 bytes of Arrow string arrays, as numba kernels read them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from lakemix.udf.arrow import TEXT_TYPES

if TYPE_CHECKING:
    import pyarrow as pa


def text_buffers(chunk: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 bytes, int64 offsets (rebased on the slice) and validity of a string array.

    Raises:
        TypeError: ``chunk`` is not an array of strings.
    """
    import pyarrow as pa

    if not any(getattr(pa.types, f"is_{name}")(chunk.type) for name in TEXT_TYPES):
        raise TypeError(f"texts must be an Arrow array of strings, got {chunk.type}")
    chunk = chunk.cast(pa.large_string())
    valid = chunk.is_valid().to_numpy(zero_copy_only=False)
    _, offsets_buffer, data_buffer = chunk.buffers()
    if offsets_buffer is None:  # an all-null array cast from the null type
        return np.zeros(1, np.uint8), np.zeros(len(chunk) + 1, np.int64), valid
    offsets = np.frombuffer(offsets_buffer, np.int64)[chunk.offset : chunk.offset + len(chunk) + 1]
    data = np.zeros(1, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
    return data, offsets, valid


@numba.njit(cache=True, nogil=True, inline="always")
def code_point(data: Any, p: int) -> tuple[int, int]:
    """The code point that starts at byte ``p`` of valid UTF-8 ``data``, and its length."""
    b = data[p]
    if b < 0x80:
        return b, 1
    if b < 0xE0:
        return ((b & 0x1F) << 6) | (data[p + 1] & 0x3F), 2
    if b < 0xF0:
        return ((b & 0x0F) << 12) | ((data[p + 1] & 0x3F) << 6) | (data[p + 2] & 0x3F), 3
    c = ((b & 0x07) << 18) | ((data[p + 1] & 0x3F) << 12) | ((data[p + 2] & 0x3F) << 6)
    return c | (data[p + 3] & 0x3F), 4
