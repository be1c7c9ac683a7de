"""bench/quality_policy: which decision keeps clean prose and drops junk: the hand-set rule
families, the trained model alone, or floors with the model between them, on text whose source
neither the thresholds' calibration nor the model was fit on... as far as this project's data
allows: the model here is fit on OSCAR-built labels only and judged on Leipzig-built ones.

Usage: .venv/bin/python bench/quality_policy.py [--seed 0]

What runs (one process, in memory; the decisions are the filter model's, computed in Python):

* Held-out documents: ``scripts/train_quality_model.py``'s builder on Leipzig's odd-numbered
  lines (75 languages): prose in four layouts labelled keep, and as many junk documents of eight
  kinds made of the same words (``lakemix.quality.synthetic``). The even lines are what
  ``seeds/calibrated_thresholds.csv`` was calibrated on and what the shipped model saw; the odd
  ones neither.
* The model: ``lakemix.udf.quality_model.train.train`` on the OSCAR 2019-built labels only
  (87 languages), so no Leipzig text shaped it.
* Signals: ``lakemix.udf.quality.quality_signals`` on the normalized texts with the project's
  stop words, as ``int_documents_quality_scored`` computes them; thresholds: each language's
  rules from the project's seeds (its row, else '*'), a calibrated threshold first, as
  ``int_documents_quality_filtered`` takes them. The language rule is left out (the documents
  are all of their language).
* Printed per decision: prose kept (overall, languages at 0% and under 90%), junk dropped (overall
  and per kind); then each rule's failures on prose and on junk.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

from lakemix.quality.calibrated_seed import read_calibrated
from lakemix.quality.project_seeds import load_project_seeds
from lakemix.quality.proposal import rejects
from lakemix.quality.reference import select_lines
from lakemix.udf.normalize import normalize_texts
from lakemix.udf.quality import quality_signals
from lakemix.udf.quality_model.train import train

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import train_quality_model as builder  # noqa: E402 -- the script's labelled documents

FAMILIES = ("gopher_quality", "gopher_repetition", "c4", "fineweb")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    corpora = ROOT.parent / "shared" / "corpora"
    folder = corpora / "langid" / "lingua_leipzig"
    odd = {
        path.parent.name: select_lines(path.read_text().splitlines(), "odd")
        for path in sorted(folder.glob("*/sentences.txt"))
    }
    held = builder._build(odd, "leipzig-odd")
    fit = builder._build(builder.oscar(corpora), "oscar")
    model = train(fit.texts, fit.labels, groups=fit.languages, seed=args.seed)
    seeds = load_project_seeds(ROOT)
    calibrated = {(r.language, r.rule): r.threshold for r in read_calibrated(seeds.calibrated_path)}
    texts = normalize_texts(pa.array(held.texts, pa.large_string()))
    stop_words = {
        lang: seeds.stop_words[lang] for lang in set(held.languages) if lang in seeds.stop_words
    }
    signals = quality_signals(texts, pa.array(held.languages, pa.string()), stop_words)
    values = {
        f.name: signals.field(f.name).cast(pa.float64()).to_numpy(zero_copy_only=False)
        for f in signals.type
    }
    values["quality_score"] = model.score(texts)
    n = len(held.texts)
    languages = np.array(held.languages)
    fails: dict[str, np.ndarray] = collections.defaultdict(lambda: np.zeros(n, bool))
    family: dict[str, str] = {}
    for language in sorted(set(held.languages)):
        rows = languages == language
        for rule in seeds.rules(language):
            family[rule.rule] = rule.family
            if rule.signal == "language_score":
                continue
            threshold = calibrated.get((language, rule.rule), rule.threshold)
            fails[rule.rule][rows] = rejects(values[rule.signal][rows], rule.operator, threshold)
    labels = np.array(held.labels)
    kinds = np.array(held.kinds)
    print(
        f"held out: {int((labels == 1).sum()):,} prose and {int((labels == 0).sum()):,} junk "
        f"documents from Leipzig's odd lines ({len(set(held.languages))} languages); model fit "
        f"on {len(fit.texts):,} OSCAR-built documents ({len(set(fit.languages))} languages)"
    )

    def decide(name: str, families: tuple[str, ...]) -> None:
        rejected = np.zeros(n, bool)
        for rule, fam in family.items():
            if fam in families:
                rejected |= fails[rule]
        prose = ~rejected[labels == 1]
        per_language: dict[str, list[bool]] = collections.defaultdict(list)
        for language, kept in zip(languages[labels == 1], prose, strict=True):
            per_language[language].append(bool(kept))
        at_zero = sum(1 for v in per_language.values() if not any(v))
        under = sum(1 for v in per_language.values() if np.mean(v) < 0.9)
        junk = ", ".join(
            f"{kind} {100 * rejected[kinds == kind].mean():.1f}%"
            for kind in sorted(set(kinds) - {"prose"})
        )
        print(
            f"{name:44} prose kept {100 * prose.mean():5.1f}% (languages at 0%: {at_zero}, "
            f"under 90%: {under}); junk dropped {100 * rejected[labels == 0].mean():.2f}% ({junk})"
        )

    decide("the four families (calibrated)", FAMILIES)
    decide("the model alone", ("model",))
    decide("floor + gopher_repetition + model (default)", ("floor", "gopher_repetition", "model"))
    print("\nfailures per rule: prose, junk")
    for rule in family:
        if fails[rule].any():
            print(
                f"  {rule:44} {family[rule]:18} {100 * fails[rule][labels == 1].mean():5.1f}% "
                f"{100 * fails[rule][labels == 0].mean():5.1f}%"
            )


if __name__ == "__main__":
    main()
