"""bench/quality_model: lakemix's quality model against fastText (DCLM's choice) on the same
labelled documents: held-out accuracy on another source, training time, scoring speed.

Usage: .venv/bin/python bench/quality_model.py [--docs 100000] [--cpu N] [--seed 0]

What runs, on one core (``--cpu``, default the lowest this process may use):

* Labelled documents as ``scripts/train_quality_model.py`` builds them from ../shared/corpora
  (prose from Leipzig's even lines and OSCAR 2019's sentence-like paragraphs, junk of eight
  kinds made of the same words). Both models fit on ``leipzig`` and are measured on ``oscar``
  (the project's rule: fit on one source, report on another): accuracy, and precision and
  recall of keep at probability 0.5.
* fastText 0.9.2 (``fasttext-numpy2-wheel``, requirements-bench.txt): ``train_supervised`` with
  DCLM's kind of model (word bigrams, dim 64, 5 epochs, lr 0.1, one thread), texts lower-cased
  and newlines turned into spaces (fastText reads one example a line);
  ``predict(list, k=1)`` for the scores.
* lakemix: ``lakemix.udf.quality_model.train.train`` (its defaults) and ``QualityModel.score``
  over one Arrow array.
* Scoring speed: ``--docs`` documents (the labelled documents repeated to that count, mean about
  1,000 characters), CPU seconds of one scoring pass each, after a warm-up (numba's compile and
  fastText's load are not counted).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from lakemix.udf.quality_model.train import train

ROOT = Path(__file__).resolve().parents[1]


def _script() -> object:
    """scripts/train_quality_model.py, whose labelled documents the bench measures on."""
    sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module("train_quality_model")


def _figures(labels: list[int], scores: np.ndarray) -> str:
    y = np.asarray(labels) == 1
    keep = scores >= 0.5
    precision = (keep & y).sum() / max(keep.sum(), 1)
    recall = (keep & y).sum() / max(y.sum(), 1)
    return f"accuracy {(keep == y).mean():.3f}, precision {precision:.3f}, recall {recall:.3f}"


def _fasttext_line(text: str) -> str:
    return " ".join(text.lower().split())


def fasttext_side(fit: object, held: object, docs: list[str], seed: int) -> dict[str, object]:
    import fasttext

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "train.txt"
        path.write_text(
            "".join(
                f"__label__{'keep' if y else 'drop'} {_fasttext_line(t)}\n"
                for t, y in zip(fit.texts, fit.labels, strict=True)  # type: ignore[attr-defined]
            )
        )
        started = time.process_time()
        model = fasttext.train_supervised(
            str(path), wordNgrams=2, dim=64, epoch=5, lr=0.1, thread=1, seed=seed, verbose=0
        )
        fitted = time.process_time() - started

    def scores(texts: list[str]) -> np.ndarray:
        labels, probs = model.predict([_fasttext_line(t) for t in texts], k=1)
        return np.array(
            [
                p[0] if lab[0] == "__label__keep" else 1 - p[0]
                for lab, p in zip(labels, probs, strict=True)
            ]
        )

    held_scores = scores(held.texts)  # type: ignore[attr-defined]
    scores(docs[:100])
    lines = [_fasttext_line(t) for t in docs]
    started = time.process_time()
    model.predict(lines, k=1)
    speed = len(docs) / (time.process_time() - started)
    return {"fit": fitted, "held": _figures(held.labels, held_scores), "speed": speed}  # type: ignore[attr-defined]


def lakemix_side(fit: object, held: object, docs: list[str], seed: int) -> dict[str, object]:
    started = time.process_time()
    model = train(fit.texts, fit.labels, groups=fit.languages, seed=seed)  # type: ignore[attr-defined]
    fitted = time.process_time() - started
    held_scores = model.score(pa.array(held.texts, pa.large_string()))  # type: ignore[attr-defined]
    array = pa.array(docs, pa.large_string())
    model.score(array[:100])
    started = time.process_time()
    model.score(array)
    speed = len(docs) / (time.process_time() - started)
    return {"fit": fitted, "held": _figures(held.labels, held_scores), "speed": speed}  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.cpu})
    script = _script()
    corpora = ROOT.parent / "shared" / "corpora"
    fit = script._build(script.leipzig(corpora), "leipzig")  # type: ignore[attr-defined]
    held = script._build(script.oscar(corpora), "oscar")  # type: ignore[attr-defined]
    texts = fit.texts
    docs = (texts * (args.docs // len(texts) + 1))[: args.docs]
    mean_chars = sum(map(len, docs)) / len(docs)
    print(
        f"fit on leipzig ({len(fit.texts):,} documents), held out: oscar ({len(held.texts):,}); "
        f"scoring {len(docs):,} documents of {mean_chars:,.0f} characters on average, cpu "
        f"{args.cpu}"
    )
    rows = {
        "lakemix": lakemix_side(fit, held, docs, args.seed),
        "fastText 0.9.2": fasttext_side(fit, held, docs, args.seed),
    }
    print(f"{'':16} {'fit CPU s':>10} {'docs/CPU s':>12}  held out on oscar")
    for name, row in rows.items():
        print(f"{name:16} {row['fit']:>10.1f} {row['speed']:>12,.0f}  {row['held']}")
    ratio = rows["lakemix"]["speed"] / rows["fastText 0.9.2"]["speed"]  # type: ignore[operator]
    print(f"lakemix scores {ratio:.1f}x as many documents per CPU second as fastText's predict")


if __name__ == "__main__":
    main()
