"""Train the default quality model that ships with lakemix, and report it on a source it never saw.

Usage: .venv/bin/python scripts/train_quality_model.py [--corpora ../shared/corpora]
       [--out python/lakemix/udf/quality_model/default.lqm] [--seed 0] [--report-only]

Two sources of labelled documents, built from ``../shared/corpora`` by
``lakemix.quality.synthetic`` (prose in several layouts labelled keep; junk made of the same
words labelled drop, one junk document per prose document, the junk kinds in turn):

* ``leipzig``: the Leipzig sentences of 75 languages, even-numbered lines only (the odd ones are
  bench/multilingual's held-out half);
* ``oscar``: OSCAR 2019 paragraphs of 166 languages that read as sentences (at least five words,
  or 20 characters in unspaced scripts, ending with sentence punctuation), both variants.

Fit on one source, report on the other (both ways): accuracy, precision and recall of keep at
0.5, clean documents kept and junk dropped, per kind, and the clean documents kept in the
languages the fitting source does not have (the first three recorded in the model's header).
Then the shipped model is fit on both sources and
written to ``--out``; the same corpora and seed give the same bytes (its SHA-256 is printed).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from lakemix.quality.reference import select_lines, sentence_joiner
from lakemix.quality.synthetic import clean_documents, junk_documents
from lakemix.udf.quality_model import DEFAULT_MODEL
from lakemix.udf.quality_model.train import train

ROOT = Path(__file__).resolve().parents[1]
_OSCAR = re.compile(r"unshuffled_(?:original|deduplicated)_(.+)\.txt\.gz$")
_TERMINAL = tuple(".!?。！？।॥۔؟።။།\"'»”")  # noqa: RUF001 -- sentence ends of many scripts
MAX_PER_LANGUAGE = 120  # prose documents per language and source (as many junk)


@dataclass
class Labelled:
    texts: list[str]
    labels: list[int]
    languages: list[str]
    kinds: list[str]

    def add(self, text: str, label: int, language: str, kind: str) -> None:
        self.texts.append(text)
        self.labels.append(label)
        self.languages.append(language)
        self.kinds.append(kind)


def _build(material: dict[str, list[str]], source: str) -> Labelled:
    out = Labelled([], [], [], [])
    for language in sorted(material):
        sentences = material[language]
        clean = clean_documents(sentences, key=f"{source}:{language}", language=language)
        clean = clean[:MAX_PER_LANGUAGE]
        if not clean:
            continue
        for text in clean:
            out.add(text, 1, language, "prose")
        junk = junk_documents(
            sentences, key=f"{source}:{language}", language=language, count=len(clean)
        )
        for kind, text in junk:
            out.add(text, 0, language, kind)
    return out


def leipzig(corpora: Path) -> dict[str, list[str]]:
    folder = corpora / "langid" / "lingua_leipzig"
    return {
        path.parent.name: select_lines(path.read_text().splitlines(), "even")
        for path in sorted(folder.glob("*/sentences.txt"))
    }


def _sentence_like(line: str, language: str) -> bool:
    line = line.strip()
    if not line.endswith(_TERMINAL):
        return False
    if sentence_joiner(language) == "":
        return len(line) >= 20
    return len(line.split()) >= 5


def oscar(corpora: Path) -> dict[str, list[str]]:
    material: dict[str, list[str]] = defaultdict(list)
    for path in sorted((corpora / "web" / "oscar2019").glob("*.txt.gz")):
        match = _OSCAR.search(path.name)
        if not match:
            continue
        language = match.group(1)
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as lines:
            material[language].extend(
                line.strip() for line in lines if _sentence_like(line, language)
            )
    return {lang: list(dict.fromkeys(lines)) for lang, lines in material.items() if lines}


def _report(
    name: str, data: Labelled, scores: np.ndarray, fit_languages: set[str]
) -> dict[str, float]:
    labels = np.asarray(data.labels)
    keep = scores >= 0.5
    tp = int((keep & (labels == 1)).sum())
    precision = tp / max(int(keep.sum()), 1)
    recall = tp / max(int((labels == 1).sum()), 1)
    accuracy = float((keep == (labels == 1)).mean())
    print(
        f"  {name}: {len(labels):,} documents, accuracy {accuracy:.3f}, "
        f"keep precision {precision:.3f} recall {recall:.3f}"
    )
    kinds: dict[str, list[bool]] = defaultdict(list)
    for kind, kept in zip(data.kinds, keep, strict=True):
        kinds[kind].append(bool(kept))
    parts = [
        f"{kind} {100 * (np.mean(v) if kind == 'prose' else 1 - np.mean(v)):.1f}%"
        for kind, v in sorted(kinds.items())
    ]
    print("    prose kept, junk dropped by kind: " + ", ".join(parts))
    unseen = [
        bool(k)
        for k, label, lang in zip(keep, data.labels, data.languages, strict=True)
        if label == 1 and lang not in fit_languages
    ]
    if unseen:
        langs = {lang for lang in data.languages if lang not in fit_languages}
        print(
            f"    prose kept in the {len(langs)} languages the fit never saw: "
            f"{100 * np.mean(unseen):.1f}% of {len(unseen)}"
        )
    per_lang: dict[str, list[bool]] = defaultdict(list)
    for k, label, lang in zip(keep, data.labels, data.languages, strict=True):
        if label == 1:
            per_lang[lang].append(bool(k))
    worst = sorted(per_lang.items(), key=lambda kv: np.mean(kv[1]))[:8]
    print("    lowest prose kept: " + ", ".join(f"{k} {100 * np.mean(v):.0f}%" for k, v in worst))
    return {
        "documents": len(labels),
        "accuracy": round(accuracy, 4),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report-only", action="store_true", help="do not write the model")
    args = parser.parse_args()
    if not (args.corpora / "langid").is_dir():
        sys.exit(f"no corpora at {args.corpora}: give --corpora")
    started = time.perf_counter()
    sources = {"leipzig": _build(leipzig(args.corpora), "leipzig")}
    sources["oscar"] = _build(oscar(args.corpora), "oscar")
    for name, data in sources.items():
        print(f"{name}: {len(data.texts):,} documents in {len(set(data.languages))} languages")
    print(f"built in {time.perf_counter() - started:.1f} s")
    held_out = {}
    for fit, held in (("leipzig", "oscar"), ("oscar", "leipzig")):
        started = time.perf_counter()
        data = sources[fit]
        model = train(data.texts, data.labels, groups=data.languages, seed=args.seed)
        fitted = time.perf_counter() - started
        scores = model.score(pa.array(sources[held].texts, pa.large_string()))
        print(f"fit on {fit} ({fitted:.1f} s), report on {held}:")
        held_out[f"fit {fit}, report {held}"] = _report(
            held, sources[held], scores, set(data.languages)
        )
    if args.report_only:
        return
    both = Labelled([], [], [], [])
    for data in sources.values():
        for text, label, lang, kind in zip(
            data.texts, data.labels, data.languages, data.kinds, strict=True
        ):
            both.add(text, label, lang, kind)
    info = {
        "trained_by": "scripts/train_quality_model.py",
        "sources": sorted(sources),
        "held_out": held_out,
    }
    model = train(both.texts, both.labels, groups=both.languages, seed=args.seed, info=info)
    digest = model.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes), sha256 {digest}")


if __name__ == "__main__":
    main()
