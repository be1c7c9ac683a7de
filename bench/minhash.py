"""bench/minhash: lakemix's minhash_bands against datatrove's MinhashDedupSignature, one core.

Usage: .venv/bin/python bench/minhash.py [--docs 20000] [--seed 0] [--corpus DIR]
       [--datatrove-python bench/out/venv-datatrove/bin/python] [--cpu 0] [--repeat 3]

The documents are a ``bench/corpus.py`` corpus (built in ``bench/out/corpus-<docs>`` unless
``--corpus`` names one), with its ground truth of exact and near duplicates. Both sides run
pinned to the same CPU, in one invocation, on the same texts:

* lakemix: ``lakemix.udf.minhash.minhash_bands`` over the whole column, and over batches of
  2,048 rows (DuckDB's vector size); best of ``--repeat``; the first call (numba's compile or
  cache load and the Unicode tables) is reported apart.
* datatrove 0.10.1 (its own virtualenv; it must not go into the project's): the
  ``MinhashDedupSignature`` stage with its default ``MinhashConfig`` (5-grams, 14 x 8, 64-bit
  xxhash), writing its signature files to a temporary folder, timed after a warm-up that loads its
  word tokenizer. Its candidates are read back from those files.

Candidates are pairs of documents that share a band key (lakemix) or a bucket signature
(datatrove). Recall is measured on the corpus's duplicate pairs by their ground-truth Jaccard
(word 5-grams of ``text.lower().split()``, see ``bench/corpus.py``), beside the LSH rate
``1 - (1 - J**8)**14`` expected from those Jaccards; precision is the fraction of all candidate
pairs whose Jaccard (the same definition, computed here) reaches 0.8 (and 0.5).

Verification: the exact Jaccard of every lakemix candidate pair, by
``lakemix.udf.jaccard.jaccard_similarities`` (what ``lakemix_jaccard`` runs, in batches of 2,048
pairs) and by the plain-Python way (sets of word 5-gram tuples, ``bench/corpus.text_jaccard``),
pairs per second of each on the same pairs, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from lakemix.udf.jaccard import jaccard_similarities
from lakemix.udf.minhash import BANDS, ROWS, minhash_bands

BENCH = Path(__file__).resolve().parent
DATATROVE_PYTHON = BENCH / "out" / "venv-datatrove" / "bin" / "python"
BATCH = 2048
THRESHOLD = 0.8
JACCARD_BINS = ((1.0, 1.01, "1.0 (exact)"), (0.9, 1.0, "0.9-1.0"), (0.8, 0.9, "0.8-0.9"))
JACCARD_BINS += ((0.7, 0.8, "0.7-0.8"), (0.6, 0.7, "0.6-0.7"), (0.0, 0.6, "<0.6"))

DATATROVE_SCRIPT = r"""
import json, os, sys, time
from pathlib import Path
os.sched_setaffinity(0, {int(sys.argv[3])})
from datatrove.data import Document
from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupSignature
lines = [x for x in open(sys.argv[1], encoding="utf-8").read().split("\n") if x]
docs = [Document(text=json.loads(line)["text"], id=str(i)) for i, line in enumerate(lines)]
out = Path(sys.argv[2])
warmup = MinhashDedupSignature(output_folder=str(out / "warmup"), config=MinhashConfig())
warmup.run(iter(docs[:50]))
stage = MinhashDedupSignature(output_folder=str(out / "sigs"), config=MinhashConfig())
started = time.perf_counter()
stage.run(iter(docs))
print(json.dumps({"docs": len(docs), "seconds": time.perf_counter() - started}))
"""


def load_corpus(corpus: Path) -> tuple[list[str], list[str], pa.Table]:
    """Ids and texts of every shard of ``corpus`` in order, and its ground truth."""
    ids, texts = [], []
    for path in sorted(corpus.glob("part-*.jsonl.zst")):
        with path.open("rb") as raw:
            reader = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
            for line in reader:
                record = orjson.loads(line)
                ids.append(record["id"])
                texts.append(record["text"])
    return ids, texts, pq.read_table(corpus / "ground_truth.parquet")


def time_lakemix(texts: pa.Array, repeat: int) -> dict[str, float]:
    """First-call seconds, docs/s over the whole column and over batches; keys of each text."""
    started = time.perf_counter()
    minhash_bands(texts.slice(0, 1))
    first = time.perf_counter() - started
    whole, batched = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        minhash_bands(texts)
        whole.append(time.perf_counter() - started)
        started = time.perf_counter()
        for begin in range(0, len(texts), BATCH):
            minhash_bands(texts.slice(begin, BATCH))
        batched.append(time.perf_counter() - started)
    return {"first": first, "whole": min(whole), "batched": min(batched)}


def time_datatrove(python: Path, texts: list[str], cpu: int, workdir: Path) -> dict[str, float]:
    """Seconds of datatrove's signature stage over ``texts``; signatures left in workdir/sigs."""
    jsonl = workdir / "docs.jsonl"
    with jsonl.open("wb") as f:
        for text in texts:
            f.write(orjson.dumps({"text": text}) + b"\n")
    result = subprocess.run(
        [str(python), "-c", DATATROVE_SCRIPT, str(jsonl), str(workdir), str(cpu)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def pairs_of_groups(groups: Iterable[list[int]]) -> set[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of documents in a same group."""
    pairs = set()
    for members in groups:
        members = sorted(set(members))
        pairs.update((a, b) for k, a in enumerate(members) for b in members[k + 1 :])
    return pairs


def lakemix_candidates(keys: pa.ListArray) -> set[tuple[int, int]]:
    """Pairs of documents that share a band key."""
    groups: dict[int, list[int]] = defaultdict(list)
    for doc, doc_keys in enumerate(keys.to_pylist()):
        for key in doc_keys or ():
            groups[key].append(doc)
    return pairs_of_groups(g for g in groups.values() if len(g) > 1)


def datatrove_candidates(sigs: Path) -> set[tuple[int, int]]:
    """Pairs of documents with an equal bucket signature in datatrove's signature files."""
    record = np.dtype([("hashes", "<u8", (ROWS,)), ("doc", "<u4")])
    groups: list[list[int]] = []
    for path in sorted(sigs.glob("bucket_*/*.minhash.sig")):
        data = np.fromfile(path, dtype=record)
        by_hashes: dict[bytes, list[int]] = defaultdict(list)
        for hashes, doc in zip(data["hashes"], data["doc"], strict=True):
            by_hashes[hashes.tobytes()].append(int(doc))
        groups.extend(g for g in by_hashes.values() if len(g) > 1)
    return pairs_of_groups(groups)


def quality(
    name: str,
    candidates: set[tuple[int, int]],
    truth: list[tuple[int, int, float]],
    jaccard_of: dict[tuple[int, int], float],
) -> dict[str, object]:
    """Recall per Jaccard bin of the ground-truth pairs, and precision of the candidates."""
    recall = {}
    for low, high, label in JACCARD_BINS:
        hits = [(a, b) in candidates for a, b, j in truth if low <= j < high]
        recall[label] = (sum(hits), len(hits))
    at_threshold = [(a, b) in candidates for a, b, j in truth if j >= THRESHOLD]
    values = np.array([jaccard_of[pair] for pair in candidates])
    return {
        "name": name,
        "recall": recall,
        "recall_at_threshold": float(np.mean(at_threshold)) if at_threshold else float("nan"),
        "pairs": len(candidates),
        "precision": float((values >= THRESHOLD).mean()) if len(values) else float("nan"),
        "precision_05": float((values >= 0.5).mean()) if len(values) else float("nan"),
    }


def truth_pairs(ids: list[str], truth: pa.Table) -> list[tuple[int, int, float]]:
    """``(original, duplicate, jaccard)`` index pairs of the exact and near duplicates."""
    index = {doc_id: i for i, doc_id in enumerate(ids)}
    pairs = []
    for row in truth.to_pylist():
        if row["kind"] in ("exact_duplicate", "near_duplicate") and row["original_id"] in index:
            a, b = sorted((index[row["original_id"]], index[row["id"]]))
            pairs.append((a, b, float(row["jaccard"])))
    return pairs


def time_verification(
    column: pa.Array,
    texts: list[str],
    pairs: list[tuple[int, int]],
    repeat: int,
    python_jaccard: Callable[[str, str], float],
) -> None:
    """Print pairs/s of lakemix's Jaccard kernel and of Python sets on the candidate pairs."""
    if not pairs:
        return
    left = column.take(pa.array([a for a, _ in pairs]))
    right = column.take(pa.array([b for _, b in pairs]))
    jaccard_similarities(left.slice(0, 1), right.slice(0, 1))  # numba's cache load
    kernel = []
    for _ in range(repeat):
        started = time.perf_counter()
        for begin in range(0, len(pairs), BATCH):
            jaccard_similarities(left.slice(begin, BATCH), right.slice(begin, BATCH))
        kernel.append(time.perf_counter() - started)
    started = time.perf_counter()
    for a, b in pairs:
        python_jaccard(texts[a], texts[b])
    python = time.perf_counter() - started
    print(f"\nVerification of the {len(pairs):,} lakemix candidate pairs (exact Jaccard)")
    print(f"{'':44}{'pairs/s':>10}{'µs/pair':>9}{'vs Python':>14}")
    for label, seconds in (
        ("lakemix jaccard_similarities (kernel)", min(kernel)),
        ("Python sets of 5-gram tuples", python),
    ):
        print(
            f"{label:44}{len(pairs) / seconds:>10,.0f}{seconds / len(pairs) * 1e6:>9.1f}"
            f"{python / seconds:>13.1f}x"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--docs", type=int, default=20_000, help="documents (default 20,000)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--corpus", type=Path, help="an existing bench/corpus.py output folder")
    parser.add_argument("--datatrove-python", type=Path, default=DATATROVE_PYTHON)
    parser.add_argument("--cpu", type=int, default=0, help="the CPU both sides are pinned to")
    parser.add_argument("--repeat", type=int, default=3, help="lakemix runs, best kept")
    args = parser.parse_args(argv)

    from corpus import cached_corpus, text_jaccard

    corpus = args.corpus or cached_corpus(args.docs, args.seed)
    ids, texts, truth = load_corpus(corpus)
    column = pa.array(texts, type=pa.string())
    size = sum(len(t.encode()) for t in texts)
    os.sched_setaffinity(0, {args.cpu})
    print(
        f"{len(texts):,} documents of {corpus} ({size / 1e6:.1f} MB of text, "
        f"{size / len(texts):,.0f} bytes per document), one core (CPU {args.cpu})"
    )

    lakemix = time_lakemix(column, args.repeat)
    keys = minhash_bands(column)
    results = [("lakemix minhash_bands", lakemix_candidates(keys))]
    rows = [
        ("lakemix minhash_bands (whole column)", len(texts) / lakemix["whole"]),
        (f"lakemix minhash_bands ({BATCH}-row batches)", len(texts) / lakemix["batched"]),
    ]
    datatrove_rate = None
    if args.datatrove_python.is_file():
        with tempfile.TemporaryDirectory(prefix="minhash-datatrove-") as tmp:
            timing = time_datatrove(args.datatrove_python, texts, args.cpu, Path(tmp))
            datatrove_rate = timing["docs"] / timing["seconds"]
            rows.append(("datatrove MinhashDedupSignature", datatrove_rate))
            results.append(("datatrove", datatrove_candidates(Path(tmp) / "sigs")))
    else:
        print(
            f"datatrove: skipped, no {args.datatrove_python}; create it with python3.11 -m venv "
            "<dir> && <dir>/bin/pip install 'datatrove[processing]==0.10.1' spacy"
        )

    print(f"\n{'':44}{'docs/s':>10}{'MB/s':>9}{'vs datatrove':>14}")
    for label, rate in rows:
        ratio = f"{rate / datatrove_rate:,.0f}x" if datatrove_rate else "-"
        print(f"{label:44}{rate:>10,.0f}{rate * size / len(texts) / 1e6:>9.1f}{ratio:>14}")
    print(f"lakemix first call (numba compile or cache load, tables): {lakemix['first']:.2f} s")

    time_verification(column, texts, sorted(results[0][1]), args.repeat, text_jaccard)

    truth_list = truth_pairs(ids, truth)
    every_pair = set().union(*(c for _, c in results)) | {(a, b) for a, b, _ in truth_list}
    jaccard_of = {(a, b): text_jaccard(texts[a], texts[b]) for a, b in every_pair}
    reports = [quality(name, c, truth_list, jaccard_of) for name, c in results]
    print(f"\nCandidates ({BANDS} bands x {ROWS} rows) on the ground-truth duplicate pairs")
    header = "".join(f"{r['name'][:22]:>24}" for r in reports)
    print(f"{'Jaccard':14}{'pairs':>7}{header}{'expected':>10}")
    for low, high, label in JACCARD_BINS:
        js = [j for _, _, j in truth_list if low <= j < high]
        if not js:
            continue
        expected = np.mean([1 - (1 - j**ROWS) ** BANDS for j in js])
        cells = ""
        for r in reports:
            hit, count = r["recall"][label]  # type: ignore[index]
            cells += f"{hit:>14,} ({hit / count:6.1%})"
        print(f"{label:14}{len(js):>7,}{cells}{expected:>10.1%}")
    for r in reports:
        print(
            f"{r['name']}: recall at Jaccard >= {THRESHOLD} {r['recall_at_threshold']:.1%}; "
            f"{r['pairs']:,} candidate pairs, {r['precision']:.1%} at Jaccard >= {THRESHOLD}, "
            f"{r['precision_05']:.1%} at >= 0.5"
        )


if __name__ == "__main__":
    main()
