"""The one way UDFs accept text: Arrow string arrays, chunked or not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

TEXT_TYPES = ("null", "string", "large_string", "string_view")


def text_chunks(texts: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    """Chunks of ``texts`` as ``string`` or ``large_string`` arrays (nulls and views converted).

    Raises:
        TypeError: ``texts`` is not an array of strings.
    """
    import pyarrow as pa

    if not any(getattr(pa.types, f"is_{name}")(texts.type) for name in TEXT_TYPES):
        raise TypeError(
            f"texts must be an Arrow array of strings (string, large_string, string_view), "
            f"got {texts.type}; cast bytes with pyarrow.compute.cast(texts, pa.string())"
        )
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    out = []
    for chunk in chunks:
        if pa.types.is_null(chunk.type):
            chunk = pa.nulls(len(chunk), pa.string())
        elif pa.types.is_string_view(chunk.type):
            chunk = chunk.cast(pa.large_string())
        out.append(chunk)
    return out


def one_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array of ``values`` (DuckDB hands Arrow UDFs chunked arrays; no chunk: empty strings)."""
    import pyarrow as pa

    if not isinstance(values, pa.ChunkedArray):
        return values
    return values.combine_chunks() if values.num_chunks else pa.array([], pa.string())


def text_byte_lengths(texts: pa.Array | pa.ChunkedArray) -> NDArray[np.int64]:
    """UTF-8 bytes of each text (0 for null).

    Raises:
        TypeError: ``texts`` is not an array of strings.
    """
    import numpy as np
    import pyarrow.compute as pc

    lengths = [pc.fill_null(pc.binary_length(chunk), 0) for chunk in text_chunks(texts)]
    return np.concatenate([np.zeros(0, np.int64), *(np.asarray(x, np.int64) for x in lengths)])


def constant(function: str, name: str, column: pa.Array | pa.ChunkedArray) -> Any:
    """The single value of a UDF argument that must be the same on every row of a call.

    Returns None for an empty call (DuckDB may call with no rows).

    Raises:
        ValueError: the argument varies between rows or is NULL, naming function and argument.
    """
    import pyarrow.compute as pc

    if len(column) == 0:
        return None
    distinct = pc.unique(column).to_pylist()
    if len(distinct) != 1 or distinct[0] is None:
        raise ValueError(f"{function}: {name} must be one constant, got {set(distinct)}")
    return distinct[0]
