"""bench/active_learning: labels each way of choosing documents needs to reach the accuracy that
1,000 random labels give, on two pools the project builds from its own data.

Usage: .venv/bin/python bench/active_learning.py [--budget 1000] [--batch 50] [--start 50]
       [--seed 0] [--cpu N]

What runs (one core), with ``lakemix.quality.simulate`` (what ``lakemix quality simulate``
runs), strategies random, uncertainty, disagreement and stratified:

* Pools, labelled as ``scripts/train_quality_model.py`` labels its documents (prose keep, junk of
  eight kinds made of the same words drop):
  - ``english``: Leipzig's English sentences (even lines), packed 30 times in other orders (500
    sentences make only about 40 documents); held out: the sentence-like lines of the cc_net
    "head" pages of ``web/dolma_cc_en_head`` (another source), packed 10 times;
  - ``multilingual``: Leipzig's 75 languages (even lines); held out: the OSCAR-built documents
    of 87 languages (40 of them not in Leipzig).
* Each strategy starts from the same 50 random labels and asks for 50 more a round; each round's
  model is measured on the held-out source. Printed: the curves side by side and, per strategy,
  the labels with which it first reaches random's accuracy at the budget. The goal (issue 52):
  uncertainty or disagreement there with at most a third of the budget.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from lakemix.quality.simulate import STRATEGIES, simulate
from lakemix.quality.training import Labelled

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import train_quality_model as builder  # noqa: E402 -- the script's labelled documents


def _labelled(data: object, source: str) -> list[Labelled]:
    return [
        Labelled(text=t, label=y, language=lang, source=source)
        for t, y, lang in zip(data.texts, data.labels, data.languages, strict=True)  # type: ignore[attr-defined]
    ]


def _packed(sentences: list[str], source: str, times: int) -> list[Labelled]:
    out = []
    for k in range(times):
        out += _labelled(builder._build({"en": sentences}, f"{source}:{k}"), source)
    return out


def _head_sentences(corpora: Path) -> list[str]:
    import gzip
    import json

    lines = []
    for path in sorted((corpora / "web" / "dolma_cc_en_head").glob("*")):
        if path.suffix not in (".gz", ".jsonl", ".json"):
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as records:
            for record in records:
                text = json.loads(record).get("text") or ""
                lines += [line for line in text.split("\n") if builder._sentence_like(line, "en")]
    return list(dict.fromkeys(lines))


def pools(corpora: Path) -> dict[str, tuple[list[Labelled], str]]:
    leipzig = builder.leipzig(corpora)
    oscar = builder.oscar(corpora)
    english = _packed(leipzig["en"], "leipzig", 30)
    english += _packed(_head_sentences(corpora), "cc_en_head", 10)
    multilingual = _labelled(builder._build(leipzig, "leipzig"), "leipzig")
    multilingual += _labelled(builder._build(oscar, "oscar"), "oscar")
    return {"english": (english, "cc_en_head"), "multilingual": (multilingual, "oscar")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--start", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.cpu})
    for name, (docs, held) in pools(ROOT.parent / "shared" / "corpora").items():
        pool = sum(1 for d in docs if d.source != held)
        print(f"\n== {name}: {pool:,} pool documents, {len(docs) - pool:,} held out ({held})")
        curves = {}
        for strategy in STRATEGIES:
            started = time.process_time()
            curves[strategy] = simulate(
                docs,
                strategy=strategy,
                holdout_source=held,
                start=args.start,
                batch=args.batch,
                budget=min(args.budget, pool),
                seed=args.seed,
            )
            spent = time.process_time() - started
            print(f"  {strategy}: {len(curves[strategy])} rounds in {spent:.1f} CPU s")
        counts = sorted({p.labels for curve in curves.values() for p in curve})
        print("  labels  " + "  ".join(f"{s:>12}" for s in curves))
        for count in counts:
            cells = []
            for curve in curves.values():
                point = next((p for p in curve if p.labels == count), None)
                cells.append(f"{point.accuracy:>12.3f}" if point else " " * 12)
            print(f"  {count:>6}  " + "  ".join(cells))
        target = curves["random"][-1]
        for strategy, curve in curves.items():
            reached = next((p.labels for p in curve if p.accuracy >= target.accuracy), None)
            share = f"{reached / target.labels:.0%} of random's" if reached else "not reached"
            print(
                f"  {strategy:>12} reaches random's {target.accuracy:.3f} at {target.labels} "
                f"labels with {reached} labels ({share})"
            )


if __name__ == "__main__":
    main()
