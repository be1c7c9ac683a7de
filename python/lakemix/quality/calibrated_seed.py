"""seeds/calibrated_thresholds.csv: read it, and replace one language's calibration in it.

The file is rewritten whole, sorted by (language, rule), with numbers in their shortest form,
so that the same calibration gives the same bytes and a review sees only what changed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

from lakemix.quality.project_seeds import CalibrationError

COLUMNS = (
    "language",
    "rule",
    "threshold",
    "percentile",
    "reference",
    "reference_documents",
    "calibrated_on",
)


@dataclass(frozen=True)
class CalibratedRow:
    """One calibrated threshold (see seeds/_seeds.yml for what each column means)."""

    language: str
    rule: str
    threshold: float
    percentile: float
    reference: str
    reference_documents: int
    calibrated_on: str

    def same_calibration(self, other: CalibratedRow) -> bool:
        """Equal in everything but the date it was made."""
        return self == replace(other, calibrated_on=self.calibrated_on)


@dataclass(frozen=True)
class Change:
    """A rule of the language whose calibrated threshold was added, changed or removed."""

    rule: str
    before: float | None
    after: float | None


def number(value: float) -> str:
    """``value`` as the seed writes it: 0.812, 37, 1.5."""
    return f"{value:.12g}"


def read_calibrated(path: Path) -> list[CalibratedRow]:
    """The rows of ``path``; none when it does not exist.

    Raises:
        CalibrationError: If its header is not ``COLUMNS``, naming the file.
    """
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise CalibrationError(
                f"{path}: columns {reader.fieldnames} are not {', '.join(COLUMNS)}; "
                "fix the header (lakemix calibrate --write rewrites the rest)"
            )
        return [
            CalibratedRow(
                language=r["language"],
                rule=r["rule"],
                threshold=float(r["threshold"]),
                percentile=float(r["percentile"]),
                reference=r["reference"],
                reference_documents=int(r["reference_documents"]),
                calibrated_on=r["calibrated_on"],
            )
            for r in reader
        ]


def write_calibrated(path: Path, rows: list[CalibratedRow]) -> None:
    """Write ``rows`` sorted by (language, rule), LF line ends."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        for r in sorted(rows, key=lambda r: (r.language, r.rule)):
            writer.writerow(
                [
                    r.language,
                    r.rule,
                    number(r.threshold),
                    number(r.percentile),
                    r.reference,
                    r.reference_documents,
                    r.calibrated_on,
                ]
            )


def replace_language(
    rows: list[CalibratedRow],
    *,
    language: str,
    rules: set[str],
    new: list[CalibratedRow],
) -> tuple[list[CalibratedRow], list[Change]]:
    """``rows`` with the calibration of ``rules`` in ``language`` replaced by ``new``.

    A rule of ``rules`` without a row in ``new`` (its configured threshold rejects no more than
    the percentile allows) loses its old row; rows of other rules and languages stay. A new row
    equal to the old one but for the date keeps the old date, so re-running a calibration on
    the same reference changes nothing.

    Returns:
        The rows, and the changes in rule order.
    """
    old = {r.rule: r for r in rows if r.language == language and r.rule in rules}
    by_rule = {r.rule: r for r in new}
    kept = [r for r in rows if not (r.language == language and r.rule in rules)]
    result = list(kept)
    changes = []
    for rule in sorted(rules):
        before, after = old.get(rule), by_rule.get(rule)
        if before is not None and after is not None and before.same_calibration(after):
            after = before
        if after is not None:
            result.append(after)
        was = before.threshold if before is not None else None
        now = after.threshold if after is not None else None
        if was != now:
            changes.append(Change(rule, was, now))
    return result, changes
