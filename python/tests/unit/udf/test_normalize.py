"""lakemix_normalize_text against its definition: the same rules as DuckDB regexes."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf.normalize import normalize_texts, register
from tests.conftest import CORPORA, load_bench

# The rules as SQL (what macros/normalize_text.sql ran before the UDF): the reference. One
# change: DuckDB's nfc_normalize cuts non-ASCII text at the first NUL, so NUL is passed to it
# as another control character that the rules remove (both block composition alike).
REFERENCE = r"""
trim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    nfc_normalize(replace(replace(replace(text, chr(0), chr(1)),
        chr(13) || chr(10), chr(10)), chr(13), chr(10))),
    '[\x{0}-\x{8}\x{B}-\x{1F}\x{7F}-\x{9F}\x{FEFF}]', '', 'g'),
    '[\t\p{Zs}]+', ' ', 'g'), ' ?\n ?', chr(10), 'g'), '\n{3,}', chr(10) || chr(10), 'g'),
    ' ' || chr(10))
"""
HARD = [
    None,
    "",
    "  Hello\t\t world \r\nsecond\u00a0\u00a0line\r\n\r\n\r\n\r\nthird\u0007 para  ",
    "Cafe\u0301 \ufeffna\u00efve",
    "\u0001\u0002\u001f",
    "\r\r\n\r",
    " \u3000x\u2009\n\u0085\n \n\ny ",
    "a\r\x01\nb",
    "e\x01\u0301",
    "\n\n\n\n",
    "x \x00 \x7f y",
    "😀 \u200b \u2028 \u1680 z",
]


def reference(texts: list[str | None]) -> list[str | None]:
    con = duckdb.connect()
    con.register("t", pa.table({"text": pa.array(texts, pa.string())}))
    return con.execute(f"select {REFERENCE} from t").to_arrow_table().column(0).to_pylist()


def test_hard_cases_follow_the_rules() -> None:
    assert normalize_texts(pa.array(HARD, pa.string())).to_pylist() == reference(HARD)


def test_nul_does_not_cut_the_text() -> None:
    # The regex version lost everything after a NUL in non-ASCII text (nfc_normalize).
    texts = ["Caf\u00e9\x00 und mehr Text", "e\x00\u0301"]
    assert normalize_texts(pa.array(texts)).to_pylist() == ["Caf\u00e9 und mehr Text", "e\u0301"]


def test_web_documents_are_normalized_as_the_rules_say() -> None:
    texts = [text for text, _, _ in load_bench("corpus").web_documents(CORPORA)]
    assert len(texts) > 1000
    got = normalize_texts(pa.array(texts)).to_pylist()
    want = reference(texts)
    differ = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    assert not differ, f"{len(differ)} documents differ, e.g. {texts[differ[0]][:200]!r}"


WHITESPACE = "\t\n\r\x0b\x0c\x00\x01\x1f\x7f\x85\x9f\ufeff \u00a0\u2000\u3000\u2028"
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(WHITESPACE),
        st.sampled_from("ae\u0301\u0308\u00e9\u1100\u1161\uac00\u212b"),
        st.characters(categories=("L", "M", "N", "P", "S")),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), TEXT), max_size=12))
def test_any_text_follows_the_rules(texts: list[str | None]) -> None:
    assert normalize_texts(pa.array(texts, pa.string())).to_pylist() == reference(texts)


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()])
def test_text_types_chunks_and_sql(kind: pa.DataType) -> None:
    texts = ["a  b", None, " c\r\n"]
    chunked = pa.chunked_array([pa.array(texts[:2], kind), pa.array(texts[2:], kind)])
    assert normalize_texts(chunked).to_pylist() == ["a b", None, "c"]
    assert normalize_texts(pa.array([None, None])).to_pylist() == [None, None]
    assert len(normalize_texts(pa.array([], pa.string()))) == 0
    with pytest.raises(TypeError, match="strings"):
        normalize_texts(pa.array([1]))
    con = duckdb.connect()
    register(con)
    assert con.sql("select lakemix_normalize_text(' x\t\ty ')").fetchone() == ("x y",)
