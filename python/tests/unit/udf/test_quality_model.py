from __future__ import annotations

import random
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.quality.synthetic import clean_documents, junk_documents
from lakemix.udf.quality_model import (
    DEFAULT_MODEL,
    ModelFileError,
    file_digest,
    from_bytes,
    load,
    quality_scores,
    register,
)
from lakemix.udf.quality_model.train import balanced_weights, train

SENTENCES = [
    f"The {noun} of the {place} was {adjective} when the {person} arrived on {day}."
    for noun in ("river", "market", "school", "bridge", "garden", "council")
    for place in ("town", "valley", "harbour", "village", "city")
    for adjective in ("quiet", "busy", "closed", "new")
    for person in ("mayor", "teacher", "doctor")
    for day in ("Monday", "Friday")
]


def labelled(key: str) -> tuple[list[str], list[int]]:
    clean = clean_documents(SENTENCES, key=key, language="en")
    junk = junk_documents(SENTENCES, key=key, language="en", count=len(clean))
    return clean + [text for _, text in junk], [1] * len(clean) + [0] * len(junk)


@pytest.fixture(scope="module")
def model_and_data():
    texts, labels = labelled("fit")
    return train(texts, labels, seed=3, buckets=1 << 14), labelled("held")


def test_same_labels_and_seed_give_the_same_bytes(model_and_data) -> None:
    texts, labels = labelled("fit")
    again = train(texts, labels, seed=3, buckets=1 << 14)
    assert again.to_bytes() == model_and_data[0].to_bytes()
    other = train(texts, labels, seed=4, buckets=1 << 14)
    assert other.digest != again.digest  # the seed orders the rows, and the order matters


def test_learns_prose_from_junk_on_documents_it_did_not_see(model_and_data) -> None:
    model, (texts, labels) = model_and_data
    scores = model.score(pa.array(texts))
    keep = scores >= 0.5
    assert keep[np.array(labels) == 1].mean() >= 0.9
    assert (~keep[np.array(labels) == 0]).mean() >= 0.9


def test_file_round_trip_scores_alike(tmp_path: Path, model_and_data) -> None:
    model, (texts, _) = model_and_data
    path = tmp_path / "m.lqm"
    digest = model.save(path)
    assert digest == file_digest(path) == model.digest
    loaded = load(path)
    assert loaded.info["seed"] == 3
    assert np.array_equal(loaded.score(pa.array(texts)), model.score(pa.array(texts)))


def test_damaged_files_are_named(tmp_path: Path, model_and_data) -> None:
    data = model_and_data[0].to_bytes()
    with pytest.raises(ModelFileError, match=r"x\.lqm: .*truncated"):
        from_bytes(data[:-10], name="x.lqm")
    with pytest.raises(ModelFileError, match="not a lakemix quality model"):
        from_bytes(b"PK\x03\x04" + data, name="x.lqm")
    with pytest.raises(ModelFileError, match=r"missing\.lqm: cannot read"):
        load(tmp_path / "missing.lqm")


def test_bad_training_input_is_refused() -> None:
    with pytest.raises(ValueError, match="both labels"):
        train(["a", "b"], [1, 1])
    with pytest.raises(ValueError, match=r"0 \(drop\) or 1 \(keep\), got \[2\]"):
        train(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match="as long"):
        train(["a"], [1, 0])
    with pytest.raises(ValueError, match="power of two"):
        train(["a", "b"], [1, 0], buckets=1000)


def test_balanced_weights_make_classes_and_groups_weigh_alike() -> None:
    labels = [1, 1, 1, 1, 0, 0]
    groups = ["en", "en", "en", "am", "en", "am"]
    w = balanced_weights(labels, groups)
    assert w[:3].sum() == pytest.approx(w[3])  # three English keeps weigh one Amharic keep
    assert w[:4].sum() == pytest.approx(w[4:].sum())  # keep and drop weigh alike
    assert w.mean() == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=300) | st.none(), max_size=8))
def test_any_text_scores_in_range_and_null_stays_null(texts: list[str | None]) -> None:
    scores = quality_scores(pa.array(texts, pa.string()), DEFAULT_MODEL).to_pylist()
    for text, score in zip(texts, scores, strict=True):
        assert (score is None) == (text is None)
        if score is not None:
            assert 0.0 <= score <= 1.0


def test_bytes_cut_inside_a_character_are_not_read_past() -> None:
    from lakemix.udf.quality_model import kernel

    data = np.frombuffer(b"ab \xe2\x82 cd\xf0", np.uint8)
    weights = np.zeros(1 << 10)
    offsets = np.array([0, 5, 9], np.int64)
    scores = kernel.score(data, offsets, np.ones(2, np.bool_), weights, 0.0)
    assert scores.tolist() == [0.5, 0.5]


def test_scores_do_not_depend_on_the_batch() -> None:
    rng = random.Random(0)
    texts, _ = labelled("batch")
    rng.shuffle(texts)
    whole = quality_scores(pa.array(texts), DEFAULT_MODEL).to_pylist()
    parts = pa.chunked_array([pa.array(texts[:7]), pa.array(texts[7:])])
    assert quality_scores(parts, DEFAULT_MODEL).to_pylist() == whole


def test_duckdb_function_scores_as_python(tmp_path: Path) -> None:
    conn = duckdb.connect()
    register(conn)
    texts, _ = labelled("sql")
    conn.execute("create table t as select unnest(?) as text", [texts[:20]])
    rows = conn.execute(
        "select lakemix_quality_score(text, ?) from t", [str(DEFAULT_MODEL)]
    ).fetchall()
    expected = quality_scores(pa.array(texts[:20]), DEFAULT_MODEL).to_pylist()
    assert [r[0] for r in rows] == expected
    with pytest.raises(duckdb.Error, match=r"nowhere\.lqm: cannot read the quality model"):
        conn.execute(
            "select lakemix_quality_score(text, ?) from t", [str(tmp_path / "nowhere.lqm")]
        )


def test_the_shipped_model_is_what_its_script_writes(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[4]
    out = tmp_path / "default.lqm"
    subprocess.run(
        [sys.executable, root / "scripts" / "train_quality_model.py", "--out", out],
        check=True,
        capture_output=True,
    )
    assert file_digest(out) == file_digest(DEFAULT_MODEL), (
        "the shipped model differs from what scripts/train_quality_model.py trains: run it"
    )
