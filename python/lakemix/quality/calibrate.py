"""Calibrate per-language thresholds on the user's own clean reference text.

Every signal of every reference document is computed as the cleaning layer computes it (the
text normalized as ``stg_raw__documents`` does, then ``quality_signals`` with the language's
stop words from the project's ``seeds/stop_words.csv``). For each rule, with the threshold that
applies to the language now (its row in ``seeds/quality_thresholds.csv``, else the '*' row),
the calibration reports the share of the reference it rejects, and proposes a threshold at a
percentile ``p`` of the reference's values that only relaxes (``proposal.propose``: at most
``p`` percent of the reference rejected, never a stricter threshold).

The language-score rule is left alone: lid.176's confidence says how sure the model is, which
depends on its training data and on the neighbouring languages, not on the form of the text;
the report shows how much of the reference lid.176 identifies as the language and how much
passes that rule, for information.

``--write`` (``write_calibration``) replaces the language's rows in
``seeds/calibrated_thresholds.csv``, which ``int_documents_quality_filtered`` applies before the
language's own row and the '*' row. Nothing is recomputed: ``dbt seed && dbt build`` re-runs
the filtering and what depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

from lakemix.quality.calibrated_seed import (
    CalibratedRow,
    Change,
    read_calibrated,
    replace_language,
    write_calibrated,
)
from lakemix.quality.project_seeds import CalibrationError, ProjectSeeds, Rule, load_project_seeds
from lakemix.quality.proposal import propose, rejects
from lakemix.quality.reference import LineSelection, read_reference

LANGUAGE_SCORE = "language_score"


@dataclass(frozen=True)
class RuleCalibration:
    """One rule on the reference.

    Attributes:
        rule: The configured rule (threshold: the one that applies to the language now).
        calibrated: Its row in seeds/calibrated_thresholds.csv now, if any.
        proposed: The proposal (the rule's threshold when no relaxation is needed).
        rejected_share: Share of the reference documents the rule's threshold rejects (a
            null signal passes every rule).
        proposed_rejected_share: The same with the proposal.
        is_enabled: Its family is on (``lakemix_filter_families`` in dbt_project.yml).
    """

    rule: Rule
    calibrated: float | None
    proposed: float
    rejected_share: float
    proposed_rejected_share: float
    is_enabled: bool

    @property
    def is_relaxed(self) -> bool:
        """The proposal differs from the configured threshold."""
        return self.proposed != self.rule.threshold


@dataclass(frozen=True)
class Calibration:
    """A language's rules measured on a reference.

    Attributes:
        language: The lid.176 label.
        language_name: Its name.
        percentile: The percentile ``p`` of the proposals.
        reference: The reference as the seed records it (the path as given, and how read).
        documents: Number of reference documents.
        rules: Every rule but the language score, in the seed's order.
        kept_share: Share of documents every enabled rule keeps with the configured thresholds.
        calibrated_kept_share: The same with the seed's calibrated thresholds where present.
        proposed_kept_share: The same with every proposal.
        identified_share: Share lid.176 identifies as the language.
        language_score_share: Share identified as the language and passing min_language_score.
        language_score_threshold: That rule's threshold for the language (None without it).
        seed_path: seeds/calibrated_thresholds.csv of the project.
        not_read: Files under the reference folder that are none of the formats.
    """

    language: str
    language_name: str
    percentile: float
    reference: str
    documents: int
    rules: list[RuleCalibration]
    kept_share: float
    calibrated_kept_share: float
    proposed_kept_share: float
    identified_share: float
    language_score_share: float
    language_score_threshold: float | None
    seed_path: Path
    not_read: list[Path]


def _signal_values(
    documents: list[str], language: str, seeds: ProjectSeeds
) -> dict[str, np.ndarray]:
    """Every signal of the normalized ``documents`` (float arrays, NaN for null) and lid.176's."""
    import pyarrow as pa

    from lakemix.udf.langid import identify_language
    from lakemix.udf.normalize import normalize_texts
    from lakemix.udf.quality import quality_signals
    from lakemix.udf.quality_model import quality_scores

    texts = normalize_texts(pa.array(documents, pa.large_string()))
    languages = pa.array([language] * len(documents), pa.string())
    words = {language: seeds.stop_words[language]} if language in seeds.stop_words else {}
    signals = quality_signals(texts, languages, words)
    out: dict[str, np.ndarray] = {
        field.name: signals.field(field.name).cast(pa.float64()).to_numpy(zero_copy_only=False)
        for field in signals.type
    }
    scores = quality_scores(texts, seeds.quality_model)
    out["quality_score"] = scores.to_numpy(zero_copy_only=False)
    identified = identify_language(texts)
    out["language"] = np.array(identified.field("language").to_pylist(), dtype=object)
    out[LANGUAGE_SCORE] = identified.field(LANGUAGE_SCORE).to_numpy(zero_copy_only=False)
    return out


def _kept(failures: list[np.ndarray], size: int) -> float:
    failed = np.zeros(size, dtype=bool)
    for f in failures:
        failed |= f
    return float(1 - failed.mean()) if size else 0.0


def calibrate(
    documents: list[str],
    *,
    language: str,
    percentile: float,
    seeds: ProjectSeeds,
    reference: str = "",
) -> Calibration:
    """Measure every rule of ``language`` on ``documents`` and propose thresholds.

    Raises:
        CalibrationError: If the language is unknown, the percentile is not in (0, 50) or
            there are no documents.
    """
    seeds.check_language(language)
    if not 0 < percentile < 50:
        raise CalibrationError(f"percentile must be in (0, 50), got {percentile!r}")
    if not documents:
        raise CalibrationError(f"no reference documents for {language} in {reference or '[]'}")
    values = _signal_values(documents, language, seeds)
    calibrated = {
        r.rule: r.threshold
        for r in read_calibrated(seeds.calibrated_path)
        if r.language == language
    }
    rules, now, seeded, proposed = [], [], [], []
    score_rule = None
    for rule in seeds.rules(language):
        if rule.signal == LANGUAGE_SCORE:
            score_rule = rule
            continue
        v = values[rule.signal]
        new = propose(v, rule.operator, rule.threshold, percentile)
        enabled = rule.family in seeds.families
        result = RuleCalibration(
            rule=rule,
            calibrated=calibrated.get(rule.rule),
            proposed=new,
            rejected_share=float(rejects(v, rule.operator, rule.threshold).mean()),
            proposed_rejected_share=float(rejects(v, rule.operator, new).mean()),
            is_enabled=enabled,
        )
        rules.append(result)
        if enabled:
            now.append(rejects(v, rule.operator, rule.threshold))
            seeded.append(rejects(v, rule.operator, calibrated.get(rule.rule, rule.threshold)))
            proposed.append(rejects(v, rule.operator, new))
    identified = np.asarray(values["language"] == language)
    scores = values[LANGUAGE_SCORE]
    passing = identified.copy()
    if score_rule is not None:
        passing &= ~rejects(scores, score_rule.operator, score_rule.threshold)
    n = len(documents)
    return Calibration(
        language=language,
        language_name=seeds.languages[language],
        percentile=percentile,
        reference=reference,
        documents=n,
        rules=rules,
        kept_share=_kept(now, n),
        calibrated_kept_share=_kept(seeded, n),
        proposed_kept_share=_kept(proposed, n),
        identified_share=float(identified.mean()),
        language_score_share=float(passing.mean()),
        language_score_threshold=score_rule.threshold if score_rule else None,
        seed_path=seeds.calibrated_path,
        not_read=[],
    )


def reference_label(path: Path, *, sentences: bool, lines: LineSelection, packings: int = 1) -> str:
    """How the seed records a reference: the path as given, and how it was read."""
    if not sentences:
        return str(path)
    selection = "" if lines == "all" else f", {lines} lines"
    packed = f", packed {packings} times" if packings > 1 else ""
    return f"{path} (sentences{selection}{packed})"


def calibrate_reference(
    path: Path,
    *,
    language: str,
    percentile: float,
    sentences: bool = False,
    lines: LineSelection = "all",
    packings: int = 1,
    seeds: ProjectSeeds | None = None,
) -> Calibration:
    """Read the reference at ``path`` (``reference.read_reference``) and calibrate on it.

    Raises:
        CalibrationError: If the project, the language or the percentile is wrong.
        ReferenceError: If the reference cannot be read or gives no documents.
    """
    seeds = seeds or load_project_seeds()
    seeds.check_language(language)
    if not 0 < percentile < 50:
        raise CalibrationError(f"percentile must be in (0, 50), got {percentile!r}")
    found = read_reference(
        path, sentences=sentences, lines=lines, language=language, packings=packings
    )
    label = reference_label(path, sentences=sentences, lines=lines, packings=packings)
    result = calibrate(
        found.documents, language=language, percentile=percentile, seeds=seeds, reference=label
    )
    return replace(result, not_read=found.not_read)


def write_calibration(calibration: Calibration, *, today: date | None = None) -> list[Change]:
    """Replace the language's rows of seeds/calibrated_thresholds.csv with the proposals.

    Rules whose proposal is their configured threshold lose their row; the language-score rule
    and other languages are left as they are (see ``calibrated_seed.replace_language``).

    Returns:
        The thresholds added, changed or removed.
    """
    day = (today or datetime.now(UTC).date()).isoformat()
    new = [
        CalibratedRow(
            language=calibration.language,
            rule=r.rule.rule,
            threshold=r.proposed,
            percentile=calibration.percentile,
            reference=calibration.reference,
            reference_documents=calibration.documents,
            calibrated_on=day,
        )
        for r in calibration.rules
        if r.is_relaxed
    ]
    rows, changes = replace_language(
        read_calibrated(calibration.seed_path),
        language=calibration.language,
        rules={r.rule.rule for r in calibration.rules},
        new=new,
    )
    write_calibrated(calibration.seed_path, rows)
    return changes
