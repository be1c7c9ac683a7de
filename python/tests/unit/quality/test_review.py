"""Reading a filled-in review CSV: verdicts, skipped rows, and errors that name the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakemix.quality.review import ReviewError, Verdict, read_verdicts


def test_verdicts_are_read_and_empty_rows_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("document_id,verdict,note\na, Good ,fine\nb,,\nc,bad,spam\n")
    assert read_verdicts(path, reviewer="ana") == [
        Verdict("a", "good", "ana", "fine"),
        Verdict("c", "bad", "ana", "spam"),
    ]


def test_bad_verdict_and_missing_column_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("document_id,verdict\na,good\nb,ok\n")
    with pytest.raises(ReviewError, match=r"s\.csv:3: verdict 'ok' is not one of good, bad"):
        read_verdicts(path, reviewer="ana")
    path.write_text("id,verdict\na,good\n")
    with pytest.raises(ReviewError, match="lacks the column"):
        read_verdicts(path, reviewer="ana")
