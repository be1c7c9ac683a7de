"""seeds/calibrated_thresholds.csv: sorted, byte-stable rewrites that replace one language."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lakemix.quality.calibrated_seed import (
    COLUMNS,
    CalibratedRow,
    Change,
    read_calibrated,
    replace_language,
    write_calibrated,
)

ROW = CalibratedRow("fr", "gopher_min_alpha_word_fraction", 0.7, 2, "ref.txt", 40, "2026-01-01")


def test_rows_round_trip_sorted(tmp_path: Path) -> None:
    path = tmp_path / "calibrated_thresholds.csv"
    rows = [
        replace(ROW, language="uk", reference="a, b.txt"),
        replace(ROW, rule="c4_min_sentences", threshold=3.0),
        ROW,
    ]
    write_calibrated(path, rows)
    text = path.read_text()
    assert text.splitlines()[0] == ",".join(COLUMNS)
    assert text.splitlines()[1] == "fr,c4_min_sentences,3,2,ref.txt,40,2026-01-01"
    assert '"a, b.txt"' in text
    assert read_calibrated(path) == sorted(rows, key=lambda r: (r.language, r.rule))
    write_calibrated(path, list(reversed(rows)))
    assert path.read_text() == text
    assert read_calibrated(tmp_path / "missing.csv") == []


def test_a_wrong_header_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("language,rule,threshold\nfr,x,1\n")
    with pytest.raises(ValueError, match=r"c\.csv: columns .* are not language, rule"):
        read_calibrated(path)


def test_replacing_a_language_adds_changes_and_removes() -> None:
    other = replace(ROW, language="de")
    untouched = replace(ROW, rule="min_language_score", threshold=0.5)
    old_c4 = replace(ROW, rule="c4_min_sentences", threshold=4.0)
    rows = [ROW, other, untouched, old_c4]
    new_alpha = replace(ROW, threshold=0.65, calibrated_on="2026-02-02")
    new_words = replace(ROW, rule="gopher_min_words", threshold=30.0, calibrated_on="2026-02-02")
    rules = {"gopher_min_alpha_word_fraction", "c4_min_sentences", "gopher_min_words"}
    result, changes = replace_language(rows, language="fr", rules=rules, new=[new_alpha, new_words])
    assert set(result) == {other, untouched, new_alpha, new_words}
    assert changes == [
        Change("c4_min_sentences", 4.0, None),
        Change("gopher_min_alpha_word_fraction", 0.7, 0.65),
        Change("gopher_min_words", None, 30.0),
    ]


def test_the_same_calibration_keeps_its_date() -> None:
    again = replace(ROW, calibrated_on="2027-01-01")
    result, changes = replace_language([ROW], language="fr", rules={ROW.rule}, new=[again])
    assert result == [ROW] and changes == []
