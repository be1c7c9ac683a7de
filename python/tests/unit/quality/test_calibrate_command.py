"""lakemix calibrate on Leipzig sentences, and its errors on bad input."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.quality.calibrate import calibrate_reference, write_calibration
from lakemix.quality.calibration_report import format_calibration, format_changes
from lakemix.quality.project_seeds import CalibrationError, load_project_seeds
from tests.conftest import CORPORA, ROOT

CATALAN = CORPORA / "langid" / "lingua_leipzig" / "ca" / "sentences.txt"


@pytest.fixture
def in_project(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    return ROOT


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["calibrate", *args])
    return result.exit_code, result.output


def test_unknown_language_names_the_seed_and_close_labels(in_project: Path) -> None:
    code, out = invoke("--reference", str(CATALAN), "--language", "cat")
    assert code == 1
    assert "unknown language 'cat'" in out and "seeds/language_configs.csv" in out
    assert "ca (Catalan)" in out


def test_an_empty_reference_is_an_error(in_project: Path, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    code, out = invoke("--reference", str(tmp_path / "empty.txt"), "--language", "ca")
    assert code == 1 and "gives no documents" in out
    code, out = invoke("--reference", str(tmp_path / "none.txt"), "--language", "ca")
    assert code == 1 and "does not exist" in out


@pytest.mark.parametrize("percentile", ["0", "50", "-3", "x"])
def test_a_percentile_outside_zero_to_fifty_is_refused(in_project: Path, percentile: str) -> None:
    code, out = invoke("--reference", str(CATALAN), "--language", "ca", "--percentile", percentile)
    assert code == 2 and "--percentile" in out


def test_packings_need_sentences_and_are_recorded(in_project: Path) -> None:
    code, out = invoke("--reference", str(CATALAN), "--language", "ca", "--packings", "3")
    assert code == 1 and "packings=3 packs sentences: it needs --sentences" in out
    code, out = invoke("--reference", str(CATALAN), "--language", "ca", "--packings", "0")
    assert code == 2 and "--packings" in out
    once = calibrate_reference(CATALAN, language="ca", percentile=1, sentences=True)
    packed = calibrate_reference(CATALAN, language="ca", percentile=1, sentences=True, packings=3)
    assert packed.documents > 2 * once.documents
    assert packed.reference.endswith("(sentences, packed 3 times)")


def test_outside_a_project_says_where_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CalibrationError, match="no dbt project at or above"):
        load_project_seeds()


def test_catalan_calibration_relaxes_and_writes_once(tmp_path: Path) -> None:
    # FineWeb's families on (the default's floors and model keep this prose as it is)
    families = ["language", "gopher_quality", "gopher_repetition", "c4", "fineweb"]
    seeds = replace(load_project_seeds(ROOT), root=tmp_path, families=families)
    (tmp_path / "seeds").mkdir()
    result = calibrate_reference(
        CATALAN, language="ca", percentile=2, sentences=True, lines="even", seeds=seeds
    )
    rules = {r.rule.rule: r for r in result.rules}
    assert "min_language_score" not in rules and len(rules) == 37  # 30 + 6 floors + the model
    alpha = rules["gopher_min_alpha_word_fraction"]
    assert alpha.rejected_share > 0.2 and alpha.is_relaxed
    assert alpha.proposed < alpha.rule.threshold and alpha.proposed_rejected_share <= 0.02
    assert result.proposed_kept_share >= 0.98 > result.kept_share
    assert result.reference.endswith("sentences.txt (sentences, even lines)")
    table = format_calibration(result)
    assert "gopher_min_alpha_word_fraction" in table and "not calibrated" in table

    changes = write_calibration(result, today=date(2026, 1, 2))
    assert {c.rule for c in changes} == {r.rule.rule for r in result.rules if r.is_relaxed}
    assert "dbt seed && dbt build" in format_changes(result, changes)
    written = seeds.calibrated_path.read_text()
    assert ",2026-01-02\n" in written and written.count("\nca,") == len(changes)
    again = calibrate_reference(
        CATALAN, language="ca", percentile=2, sentences=True, lines="even", seeds=seeds
    )
    assert again.calibrated_kept_share == again.proposed_kept_share
    assert write_calibration(again, today=date(2026, 3, 4)) == []
    assert seeds.calibrated_path.read_text() == written  # same calibration, same bytes
