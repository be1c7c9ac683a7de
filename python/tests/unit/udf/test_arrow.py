from __future__ import annotations

import pyarrow as pa
import pytest

from lakemix.udf.arrow import constant, text_chunks


def test_constant_argument() -> None:
    assert constant("f", "x", pa.array([3, 3, 3])) == 3
    assert constant("f", "x", pa.chunked_array([[3], [3]])) == 3
    assert constant("f", "x", pa.array([], pa.int64())) is None  # an empty call
    with pytest.raises(ValueError, match="f: x must be one constant"):
        constant("f", "x", pa.array([3, 4]))
    with pytest.raises(ValueError, match="f: x must be one constant"):
        constant("f", "x", pa.array([None], pa.int64()))


def test_text_chunks_normalizes_and_refuses_non_text() -> None:
    assert text_chunks(pa.nulls(2))[0].type == pa.string()
    assert text_chunks(pa.array(["a"], pa.string_view()))[0].type == pa.large_string()
    assert len(text_chunks(pa.chunked_array([["a"], ["b", "c"]]))) == 2
    with pytest.raises(TypeError, match="Arrow array of strings"):
        text_chunks(pa.array([1, 2]))
