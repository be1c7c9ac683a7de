"""Jaccard verification of candidate pairs: the MinHash kernel's shingle sets, compared exactly."""

from __future__ import annotations

import random

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf.jaccard import jaccard, jaccard_similarities, register
from lakemix.udf.minhash import MERSENNE_PRIME, shingle_hashes
from tests.unit.udf.test_minhash import TEXTS, document, near_duplicate, ref_shingles, xxh64


def ref_jaccard(a: str, b: str, k: int = 5) -> float:
    x, y = ref_shingles(a, k), ref_shingles(b, k)
    return 1.0 if not x | y else len(x & y) / len(x | y)


def pairs_of(texts: list[str]) -> list[tuple[str, str]]:
    rng = random.Random(0)
    pairs = [(a, b) for a in texts for b in texts]
    pairs += [(t, near_duplicate(rng, t, rng.uniform(0.5, 0.95))) for t in texts[-12:]]
    return pairs


def test_equals_the_reference_definition_on_every_pair() -> None:
    pairs = pairs_of(TEXTS)
    values = jaccard_similarities(
        pa.array([a for a, _ in pairs]), pa.array([b for _, b in pairs])
    ).to_pylist()
    assert values == [ref_jaccard(a, b) for a, b in pairs]
    assert any(0 < v < 1 for v in values)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60), st.integers(1, 6))
def test_equals_the_reference_on_any_text(a: str, b: str, k: int) -> None:
    # Surrogates cannot be UTF-8; the kernel sees their replacement as a separator anyway.
    a, b = (s.encode("utf-8", "replace").decode() for s in (a, b))
    assert jaccard(a, b, shingle_words=k) == ref_jaccard(a, b, k)


def test_the_shingle_hashes_are_the_signatures_shingles() -> None:
    texts = ["one two three four five six", "", None, "a b", "¡¿!", *TEXTS]
    hashes, starts, counts = shingle_hashes(pa.chunked_array([texts[:3], [], texts[3:]]))
    assert counts.tolist()[:5] == [2, 0, 0, 1, 0]
    for i, text in enumerate(texts):
        got = hashes[starts[i] : starts[i] + counts[i]].tolist()
        expected = {xxh64(s.encode()) % MERSENNE_PRIME for s in ref_shingles(text or "")}
        assert set(got) == expected, text


def test_nulls_wordless_texts_and_chunked_input() -> None:
    a = pa.chunked_array([["x y z", None], ["", "...", "same words here"]])
    b = pa.chunked_array([["x y z"], [None, "", "words", "same words here"]])
    assert jaccard_similarities(a, b).to_pylist() == [1.0, None, 1.0, 0.0, 1.0]
    assert jaccard("", "¡!") == 1.0  # neither has a word: the same (empty) set
    with pytest.raises(ValueError, match="texts_a has 1 texts, texts_b 2"):
        jaccard_similarities(pa.array(["a"]), pa.array(["a", "b"]))
    with pytest.raises(TypeError, match="strings"):
        jaccard_similarities(pa.array([1]), pa.array([2]))
    with pytest.raises(ValueError, match="shingle_words"):
        jaccard("a", "b", shingle_words=0)


def test_duckdb_udf_over_thousands_of_rows() -> None:
    rng = random.Random(7)
    texts = [document(rng, 8) for _ in range(300)]
    others = [near_duplicate(rng, t, 0.8) for t in texts]
    conn = duckdb.connect()
    register(conn)
    conn.register("pairs", pa.table({"a": texts * 10, "b": others * 10}))
    rows = conn.execute("select lakemix_jaccard(a, b, 5) from pairs").fetchall()
    expected = [ref_jaccard(a, b) for a, b in zip(texts, others, strict=True)] * 10
    assert [r[0] for r in rows] == expected
    three = conn.execute("select lakemix_jaccard(a, b, 3) from pairs limit 1").fetchone()
    assert three is not None and three[0] == ref_jaccard(texts[0], others[0], 3)


def test_pairs_are_taken_in_slices_of_bounded_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import lakemix.udf.jaccard as module

    rng = random.Random(11)
    texts = [document(rng, rng.randint(1, 12)) for _ in range(40)]
    others = [near_duplicate(rng, t, 0.8) if len(t.split()) > 40 else t for t in texts]
    whole = jaccard_similarities(pa.array(texts), pa.array(others)).to_pylist()
    monkeypatch.setattr(module, "SLICE_BYTES", 1000)  # a few pairs per slice, some alone
    chunked = pa.chunked_array([texts[:7], [None], texts[8:]])
    sliced = jaccard_similarities(chunked, pa.array(others)).to_pylist()
    assert sliced == [*whole[:7], None, *whole[8:]]
    assert whole == [ref_jaccard(a, b) for a, b in zip(texts, others, strict=True)]
