"""Word n-grams for decontamination: exactly n words, distinct, the MinHash kernel's words."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from lakemix.udf import ngrams


def hashes(texts: list[str | None], n: int) -> list[list[int] | None]:
    return ngrams.ngram_hashes(pa.array(texts, pa.string()), n).to_pylist()


def test_a_text_has_its_distinct_ngrams_of_exactly_n_words() -> None:
    one, two, repeated, short, empty, null = hashes(
        ["a b c d", "a b c d e", "a b c d a b c d", "a b c", "", None], 4
    )
    assert len(one) == 1 and len(two) == 2 and one[0] in two
    assert len(repeated) == 4  # abcd, bcda, cdab, dabc: abcd twice, once
    assert short == [] and empty == [] and null is None


def test_words_are_the_kernels_lower_cased_runs_of_letters() -> None:
    plain, noisy = hashes(["the cat sat on the mat", "The CAT, sat... on: the-mat!"], 6)
    assert plain == noisy and len(plain) == 1


def test_duckdb_gives_what_python_gives_and_refuses_a_short_n() -> None:
    conn = duckdb.connect()
    ngrams.register(conn)
    [(found,)] = conn.execute("select lakemix_ngram_hashes('a b c d e', 4)").fetchall()
    assert found == hashes(["a b c d e"], 4)[0]
    with pytest.raises(duckdb.InvalidInputException, match="n must be at least 2"):
        conn.execute("select lakemix_ngram_hashes('a b', 1)").fetchall()
