"""bench/corpus.py: byte-identical rebuilds and a ground truth that matches the shard texts."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import load_bench

DOCS = 2_000
SEED = 7
TARGET_FRACTIONS = {
    "base": 0.72,
    "exact_duplicate": 0.05,
    "near_duplicate": 0.10,
    "boilerplate": 0.10,
    "noise": 0.03,
}


corpus = load_bench("corpus")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same corpus built twice into two folders."""
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    for out in (first, second):
        corpus.build_corpus(out, docs=DOCS, seed=SEED, shard_docs=700)
    return first, second


@pytest.fixture(scope="module")
def documents(builds: tuple[Path, Path]) -> list[dict[str, Any]]:
    """Shard records in stream order."""
    records = []
    for path in sorted(builds[0].glob("part-*.jsonl.zst")):
        with path.open("rb") as f:
            reader = zstandard.ZstdDecompressor().stream_reader(f)
            records += [orjson.loads(line) for line in io.BufferedReader(reader)]
    return records


@pytest.fixture(scope="module")
def truth(builds: tuple[Path, Path]) -> list[dict[str, Any]]:
    """Ground-truth rows."""
    return pq.read_table(builds[0] / "ground_truth.parquet").to_pylist()


@pytest.fixture(scope="module")
def by_id(documents: list[dict[str, Any]]) -> dict[str, tuple[int, dict[str, Any]]]:
    """Stream position and record of every document id."""
    return {doc["id"]: (position, doc) for position, doc in enumerate(documents)}


def test_same_seed_gives_byte_identical_files(builds: tuple[Path, Path]) -> None:
    first, second = builds
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    assert names == [
        "ground_truth.parquet",
        "manifest.json",
        "part-00000.jsonl.zst",
        "part-00001.jsonl.zst",
        "part-00002.jsonl.zst",
    ]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_another_seed_gives_another_corpus(tmp_path: Path, builds: tuple[Path, Path]) -> None:
    corpus.build_corpus(tmp_path, docs=300, seed=SEED + 1, shard_docs=700)
    with (tmp_path / "part-00000.jsonl.zst").open("rb") as f:
        other = f.read()
    assert other != (builds[0] / "part-00000.jsonl.zst").read_bytes()


def test_ids_are_unique_and_match_the_ground_truth(
    documents: list[dict[str, Any]], truth: list[dict[str, Any]]
) -> None:
    ids = [doc["id"] for doc in documents]
    assert len(ids) == len(set(ids)) == DOCS
    assert ids == [row["id"] for row in truth]
    for doc, row in zip(documents, truth, strict=True):
        assert set(doc) == {"id", "text", "url", "language", "source"}
        assert (doc["language"], doc["source"]) == (row["language"], row["source"])
        assert doc["text"].strip() and doc["url"].startswith("https://")


def test_kind_counts_match_the_target_fractions(truth: list[dict[str, Any]]) -> None:
    counts = Counter(row["kind"] for row in truth)
    assert set(counts) == set(TARGET_FRACTIONS)
    for kind, fraction in TARGET_FRACTIONS.items():
        assert counts[kind] / DOCS == pytest.approx(fraction, abs=0.01), kind
    assert len({row["source"] for row in truth}) >= 2
    assert len({row["language"] for row in truth}) >= 50


def test_exact_duplicates_copy_an_earlier_base_document(
    truth: list[dict[str, Any]], by_id: dict[str, tuple[int, dict[str, Any]]]
) -> None:
    rows = [row for row in truth if row["kind"] == "exact_duplicate"]
    kinds = {row["id"]: row["kind"] for row in truth}
    assert rows
    for row in rows:
        position, doc = by_id[row["id"]]
        original_position, original = by_id[row["original_id"]]
        assert original_position < position
        assert kinds[row["original_id"]] == "base"
        assert doc["text"] == original["text"]
        assert row["jaccard"] == 1.0


def test_near_duplicates_store_their_measured_jaccard(
    truth: list[dict[str, Any]], by_id: dict[str, tuple[int, dict[str, Any]]]
) -> None:
    rows = [row for row in truth if row["kind"] == "near_duplicate"]
    kinds = {row["id"]: row["kind"] for row in truth}
    values = []
    for row in rows:
        position, doc = by_id[row["id"]]
        original_position, original = by_id[row["original_id"]]
        assert original_position < position
        assert kinds[row["original_id"]] == "base"
        assert row["jaccard"] == corpus.text_jaccard(doc["text"], original["text"])
        values.append(row["jaccard"])
    assert max(values) < 1.0
    assert sum(v >= 0.8 for v in values) >= 20
    assert sum(0.65 <= v < 0.8 for v in values) >= 20
    assert sum(v < 0.65 for v in values) >= 20


def test_other_rows_have_no_original(truth: list[dict[str, Any]]) -> None:
    for row in truth:
        if row["kind"] in ("base", "boilerplate", "noise"):
            assert row["original_id"] is None and row["jaccard"] is None


def test_only_exact_duplicates_repeat_a_text(
    documents: list[dict[str, Any]], truth: list[dict[str, Any]]
) -> None:
    exact = sum(row["kind"] == "exact_duplicate" for row in truth)
    assert len({doc["text"] for doc in documents}) == DOCS - exact


def test_base_documents_are_not_near_duplicates_of_each_other(
    documents: list[dict[str, Any]], truth: list[dict[str, Any]]
) -> None:
    shingles: dict[str, list[set[tuple[str, ...]]]] = {}
    for doc, row in zip(documents, truth, strict=True):
        if row["kind"] == "base":
            shingles.setdefault(row["language"], []).append(corpus.word_shingles(doc["text"]))
    highest = max(
        corpus.jaccard(a, b) for sets in shingles.values() for a, b in combinations(sets, 2)
    )
    assert highest < 0.3


def test_boilerplate_documents_share_lines(
    documents: list[dict[str, Any]], truth: list[dict[str, Any]]
) -> None:
    texts = [
        doc["text"]
        for doc, row in zip(documents, truth, strict=True)
        if row["kind"] == "boilerplate"
    ]
    seen = Counter(line for text in texts for line in set(text.split("\n")))
    most_shared = [max(seen[line] for line in text.split("\n")) for text in texts]
    assert min(most_shared) >= 2
    assert sum(count >= 3 for count in most_shared) >= 0.9 * len(texts)


def test_manifest_records_counts_and_hashes(builds: tuple[Path, Path]) -> None:
    out = builds[0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["parameters"] == {"docs": DOCS, "seed": SEED, "shard_docs": 700}
    assert sum(manifest["counts"]["kind"].values()) == DOCS
    assert sum(manifest["counts"]["language"].values()) == DOCS
    assert sum(s["docs"] for s in manifest["shards"]) == DOCS
    for shard in manifest["shards"]:
        data = (out / shard["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == shard["sha256"]
        assert len(data) == shard["bytes"]
    truth_bytes = (out / "ground_truth.parquet").read_bytes()
    assert hashlib.sha256(truth_bytes).hexdigest() == manifest["ground_truth"]["sha256"]


@pytest.mark.parametrize("options", [{"docs": 0}, {"docs": 10, "shard_docs": 0}])
def test_rejects_empty_corpora(tmp_path: Path, options: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be positive"):
        corpus.build_corpus(tmp_path, **options)


words = st.lists(st.sampled_from(["a", "B", "c", "dé", "e"]), max_size=30)
spaces = st.sampled_from([" ", "  ", "\n", "\t"])


@given(words, words)
def test_jaccard_is_a_symmetric_similarity(a: list[str], b: list[str]) -> None:
    text_a, text_b = " ".join(a), " ".join(b)
    value = corpus.text_jaccard(text_a, text_b)
    assert 0.0 <= value <= 1.0
    assert value == corpus.text_jaccard(text_b, text_a)
    assert corpus.text_jaccard(text_a, text_a) == 1.0


@given(words, spaces)
def test_shingles_ignore_case_and_whitespace(a: list[str], space: str) -> None:
    assert corpus.word_shingles(space.join(a).upper()) == corpus.word_shingles(" ".join(a))
