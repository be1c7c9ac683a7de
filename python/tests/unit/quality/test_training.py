from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.quality.synthetic import clean_documents, junk_documents
from lakemix.quality.training import LabelsError, read_labels, train_from_labels
from lakemix.udf.quality_model import load

SENTENCES = [
    f"Die {noun} in {place} war am {day} {adjective}, sagte der {person} gestern Abend."
    for noun in ("Brücke", "Schule", "Bibliothek", "Kirche", "Bahn")
    for place in ("Bern", "Graz", "Köln", "Kiel")
    for day in ("Montag", "Freitag", "Sonntag")
    for adjective in ("geschlossen", "voll", "ruhig")
    for person in ("Bürgermeister", "Lehrer")
]


def write_labels(path: Path, source: str) -> Path:
    clean = clean_documents(SENTENCES, key=source, language="de")
    junk = junk_documents(SENTENCES, key=source, language="de", count=len(clean))
    rows = [{"text": t, "label": "keep", "language": "de", "source": source} for t in clean]
    rows += [{"text": t, "label": "drop", "language": "de", "source": source} for _, t in junk]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_fit_on_one_source_report_on_another(tmp_path: Path) -> None:
    files = [write_labels(tmp_path / "a.jsonl", "a"), write_labels(tmp_path / "b.jsonl", "b")]
    result = train_from_labels(files, out_folder=tmp_path / "models", holdout_source="b")
    assert result.path == tmp_path / "models" / f"{result.digest[:12]}.lqm"
    assert result.held_out_by == "source b"
    assert result.metrics["accuracy"] >= 0.9
    model = load(result.path)
    assert model.info["held_out"]["documents"] == result.held_out
    assert model.info["labels_sha256"] == read_labels(files)[1]
    again = train_from_labels(files, out_folder=tmp_path / "again", holdout_source="b")
    assert again.digest == result.digest  # same labels and seed: the same model


def test_cli_trains_and_says_how_to_use_the_model(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "home"))
    labels = write_labels(tmp_path / "a.jsonl", "a")
    result = CliRunner().invoke(main, ["quality", "train", "--labels", str(labels)])
    assert result.exit_code == 0, result.output
    assert "held out" in result.output and "same sources" in result.output
    assert "give --holdout-source" in result.output
    assert "lakemix_quality_model:" in result.output
    assert len(list((tmp_path / "home" / "quality_models").glob("*.lqm"))) == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "a.jsonl:1: not JSON"),
        ('{"label": "keep"}', "a.jsonl:1: needs an object with a string field text"),
        ('{"text": "x", "label": "maybe"}', "a.jsonl:1: label must be keep or drop"),
    ],
)
def test_bad_labels_are_one_line_naming_file_and_line(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(line + "\n")
    result = CliRunner().invoke(main, ["quality", "train", "--labels", str(path)])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_unknown_holdout_source_names_the_sources(tmp_path: Path) -> None:
    labels = write_labels(tmp_path / "a.jsonl", "a")
    with pytest.raises(LabelsError, match=r"no document has source 'zz'; sources: \['a'\]"):
        train_from_labels([labels], out_folder=tmp_path, holdout_source="zz")


def test_simulate_curves_are_deterministic_and_grow_by_batches(tmp_path: Path) -> None:
    from lakemix.quality.simulate import simulate

    files = [write_labels(tmp_path / "a.jsonl", "a"), write_labels(tmp_path / "b.jsonl", "b")]
    docs, _ = read_labels(files)
    for strategy in ("random", "uncertainty", "disagreement", "stratified"):
        curve = simulate(docs, strategy=strategy, holdout_source="b", start=10, batch=10, budget=40)
        assert [p.labels for p in curve] == [10, 20, 30, 40]
        assert all(0 <= p.accuracy <= 1 for p in curve)
        again = simulate(docs, strategy=strategy, holdout_source="b", start=10, batch=10, budget=40)
        assert again == curve


def test_uncertainty_asks_for_the_documents_nearest_the_boundary() -> None:
    import random

    import numpy as np

    from lakemix.quality.simulate import _choose

    scores = np.array([0.9, 0.52, 0.1, 0.45, 0.7])
    picked = _choose("uncertainty", [0, 1, 2, 3, 4], 2, [], scores, None, random.Random(0))
    assert picked == [1, 3]
    rules = np.array([True, True, False, True, False])  # rules keep 0, 1, 3
    # the model keeps 0, 1, 4: it disagrees with the rules on 3 and 4
    picked = _choose("disagreement", [0, 1, 2, 3, 4], 2, [], scores, rules, random.Random(0))
    assert picked == [3, 4]


def test_simulate_cli_prints_the_curves_and_refuses_bad_strategies(tmp_path: Path) -> None:
    files = [write_labels(tmp_path / "a.jsonl", "a"), write_labels(tmp_path / "b.jsonl", "b")]
    args = ["quality", "simulate", "--labels", str(files[0]), "--labels", str(files[1])]
    args += ["--holdout-source", "b", "--start", "10", "--batch", "10", "--budget", "20"]
    result = CliRunner().invoke(main, [*args, "--strategy", "random", "--strategy", "uncertainty"])
    assert result.exit_code == 0, result.output
    assert "uncertainty reaches random's accuracy at 20 labels" in result.output
    bad = CliRunner().invoke(main, [*args, "--strategy", "psychic"])
    assert bad.exit_code == 2 and "psychic" in bad.output


def test_each_training_is_recorded_and_the_report_draws_the_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two trainings, on more labels the second time: two rows of meta.quality_models, and the
    report's learning-curve section plots labels against held-out accuracy from them."""
    from lakemix.quality.data import trainings
    from lakemix.quality.page import _learning
    from lakemix.settings import Settings
    from lakemix.versions.refs import connect_at

    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "home"))
    few = tmp_path / "few.jsonl"
    many = write_labels(tmp_path / "many.jsonl", "a")
    few.write_text("".join(many.read_text().splitlines(keepends=True)[::4]))
    for labels in (few, many):
        done = CliRunner().invoke(main, ["quality", "train", "--labels", str(labels)])
        assert done.exit_code == 0, done.output
    conn = connect_at(None, settings=Settings.from_env())  # every table as a view, as the report
    try:
        rows = trainings(conn)
    finally:
        conn.close()
    assert [r["fitted_documents"] for r in rows] == sorted(r["fitted_documents"] for r in rows)
    assert len(rows) == 2 and rows[0]["fitted_documents"] < rows[1]["fitted_documents"]
    assert all(
        0 <= r["accuracy"] <= 1 and r["held_out_by"] == "a tenth, same sources" for r in rows
    )

    class Data:  # the report's section needs only the trainings
        trainings = rows

    html = _learning(Data())  # type: ignore[arg-type]
    assert html.startswith("<svg") and "held-out accuracy" in html
    assert html.count("<circle") == 2 and f"{rows[1]['accuracy']:.3f}" in html
