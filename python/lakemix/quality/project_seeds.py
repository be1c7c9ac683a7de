"""The project's filter configuration as dbt reads it: seeds and the filter-family var.

Read from the dbt project (``dbt_project.yml`` at or above the working directory, as every
command finds it), never from a path relative to the package: the seeds a calibration compares
with are the ones the next ``dbt build`` applies.
"""

from __future__ import annotations

import csv
import difflib
from dataclasses import dataclass
from pathlib import Path

from lakemix.errors import LakemixError
from lakemix.settings import project_root

SEEDS = "seeds"
LANGUAGE_CONFIGS = "language_configs.csv"
QUALITY_THRESHOLDS = "quality_thresholds.csv"
STOP_WORDS = "stop_words.csv"
CALIBRATED_THRESHOLDS = "calibrated_thresholds.csv"
DEFAULT_LANGUAGE = "*"


class CalibrationError(LakemixError, ValueError):
    """A calibration that cannot run: no project, an unknown language, a bad setting."""


@dataclass(frozen=True)
class Rule:
    """A rule as it applies to one language (its row in quality_thresholds, else the '*' row).

    Attributes:
        rule: The rule's name (the rejection reason).
        signal: The signal it reads (a column of int_documents_quality_scored).
        operator: ``>=``, ``>``, ``<=`` or ``<``: how a passing value compares.
        threshold: The threshold.
        family: Its filter family.
        source: The language of the row the threshold comes from, or '*'.
    """

    rule: str
    signal: str
    operator: str
    threshold: float
    family: str
    source: str


@dataclass(frozen=True)
class ProjectSeeds:
    """The seeds and the var that decide what the filters do.

    Attributes:
        root: The dbt project folder.
        languages: lid.176 label -> language name (seeds/language_configs.csv).
        thresholds: Every row of seeds/quality_thresholds.csv.
        stop_words: Stop words per language (seeds/stop_words.csv).
        families: The filter families ``lakemix_filter_families`` in dbt_project.yml switches on.
        quality_model: The var ``lakemix_quality_model``: ``default`` or a model file's path
            (relative to ``root``, where dbt runs).
    """

    root: Path
    languages: dict[str, str]
    thresholds: list[dict[str, str]]
    stop_words: dict[str, list[str]]
    families: list[str]
    quality_model: str = "default"

    @property
    def calibrated_path(self) -> Path:
        """seeds/calibrated_thresholds.csv of the project."""
        return self.root / SEEDS / CALIBRATED_THRESHOLDS

    def check_language(self, language: str) -> None:
        """Fail unless ``language`` is a label of seeds/language_configs.csv.

        Raises:
            CalibrationError: Naming the file and the closest labels.
        """
        if language in self.languages:
            return
        given = language.strip().lower()
        by_name = [c for c, name in self.languages.items() if name.lower().startswith(given)]
        close = difflib.get_close_matches(given, list(self.languages), n=5, cutoff=0.5)
        close += [c for c in self.languages if c.startswith(given[:2]) and c not in close]
        shown = list(dict.fromkeys([*by_name, *close]))[:6]
        hint = ", ".join(f"{c} ({self.languages[c]})" for c in shown) or "none"
        raise CalibrationError(
            f"unknown language {language!r}: not a label of "
            f"{self.root / SEEDS / LANGUAGE_CONFIGS} (lid.176's labels as lakemix emits them); "
            f"close: {hint}"
        )

    def rules(self, language: str) -> list[Rule]:
        """Every rule, with the threshold that applies to ``language`` (its row, else '*')."""
        own = {r["rule"]: r for r in self.thresholds if r["language"] == language}
        out = []
        for default in self.thresholds:
            if default["language"] != DEFAULT_LANGUAGE:
                continue
            row = own.get(default["rule"], default)
            out.append(
                Rule(
                    rule=default["rule"],
                    signal=row["signal"],
                    operator=row["operator"],
                    threshold=float(row["threshold"]),
                    family=default["family"],
                    source=row["language"],
                )
            )
        return out


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise CalibrationError(f"seed {path} is missing: is {path.parents[1]} a lakemix project?")
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _vars(root: Path) -> dict[str, object]:
    import yaml

    project = yaml.safe_load((root / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    return dict(project.get("vars") or {})


def _families(root: Path) -> list[str]:
    families = _vars(root).get("lakemix_filter_families") or []
    return [str(f) for f in families]  # type: ignore[attr-defined]


def _quality_model(root: Path) -> str:
    model = str(_vars(root).get("lakemix_quality_model") or "default")
    return model if model == "default" else str(root / model)


def load_project_seeds(root: Path | None = None) -> ProjectSeeds:
    """The seeds of the project at ``root`` (default: the project of the working directory).

    Raises:
        CalibrationError: If there is no project or one of its seeds is missing.
    """
    root = root or project_root()
    if root is None:
        raise CalibrationError(
            f"no dbt project at or above {Path.cwd()}: run lakemix calibrate from the lakemix "
            "project (the folder with dbt_project.yml), whose seeds it reads and writes"
        )
    seeds = root / SEEDS
    stop_words: dict[str, list[str]] = {}
    for row in _rows(seeds / STOP_WORDS):
        stop_words.setdefault(row["language"], []).append(row["word"])
    return ProjectSeeds(
        root=root,
        languages={r["language"]: r["language_name"] for r in _rows(seeds / LANGUAGE_CONFIGS)},
        thresholds=_rows(seeds / QUALITY_THRESHOLDS),
        stop_words=stop_words,
        families=_families(root),
        quality_model=_quality_model(root),
    )
