"""CLD2 on byte ranges: its codes in lid.176's labels, text it refuses, any bytes at all."""

from __future__ import annotations

import numpy as np
import pycld2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf import cld2, fasttext_kernel
from lakemix.udf.langid import _LABELS, model_path

GERMAN = "Die Stadt liegt am Ufer des Flusses und hat eine schöne Altstadt mit vielen Kirchen."


def names() -> tuple[str, ...]:
    return tuple(_LABELS.get(label, label) for label in fasttext_kernel.load(model_path()).labels)


def detect(texts: list[bytes]) -> cld2.Detections:
    lengths = np.array([len(t) for t in texts], np.int64)
    ends = np.cumsum(lengths)
    data = np.frombuffer(b"".join(texts) or b"\0", np.uint8)
    return cld2.detect(data, ends - lengths, ends, names())


@pytest.mark.parametrize(
    ("code", "label"),
    [("iw", "he"), ("jw", "jv"), ("no", "nb"), ("zh-Hant", "zh"), ("bh", "bho"), ("tl", "tl")],
)
def test_cld2_codes_become_lid176_labels(code: str, label: str) -> None:
    assert names()[cld2.label_index(names())[code]] == label


def test_languages_lid176_lacks_are_foreign_and_un_is_unknown() -> None:
    index = cld2.label_index(names())
    assert [index[code] for code in ("zu", "xh", "mi", "ha", "xx-Goth")] == [cld2.FOREIGN] * 5
    assert index["un"] == cld2.UNKNOWN
    assert set(cld2.RENAMED.values()) <= set(names())


def test_detectable_labels_are_those_cld2_can_answer() -> None:
    can = dict(zip(names(), cld2.detectable(names()), strict=True))
    assert can["de"] and can["he"] and can["nb"] and can["zh"]
    assert not can["hbs"] and not can["arz"] and not can["yue"]  # CLD2 has no model for them
    assert sum(can.values()) == 114


def test_refused_code_points_are_read_again_as_spaces() -> None:
    refused = ["\x00", "\x07", "\x7f", "\x85", "\ufdd0", "\ufffe", "\U0010ffff"]
    for char in refused:
        with pytest.raises(pycld2.error):
            pycld2.detect((GERMAN + char).encode(), isPlainText=True)
    found = detect([(GERMAN + char + GERMAN).encode() for char in refused])
    assert found.labels.tolist() == [names().index("de")] * len(refused)
    assert found.reliable.all() and (found.percent >= 80).all() and (found.score > 300).all()


def test_nothing_to_read_is_unknown_and_bad_bytes_are_replaced() -> None:
    found = detect([b"", b"12345 !?", "😀🎉".encode(), b"\xff\xfe" + GERMAN.encode()])
    assert found.labels.tolist() == [cld2.UNKNOWN] * 3 + [names().index("de")]
    assert found.reliable.tolist() == [False] * 3 + [True]
    assert found.score[:3].tolist() == [0.0] * 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=400), st.binary(max_size=400)), max_size=10))
def test_any_text_or_bytes_gives_an_answer(texts: list[str | bytes]) -> None:
    raw = [t if isinstance(t, bytes) else t.encode("utf-8", "surrogatepass") for t in texts]
    found = detect(raw)
    assert len(found.labels) == len(raw)
    assert ((found.labels >= cld2.FOREIGN) & (found.labels < len(names()))).all()
    assert ((found.percent >= 0) & (found.percent <= 100)).all() and (found.score >= 0).all()
