"""bench/pii: recall, precision and speed of ``lakemix.udf.pii`` on gold spans and real pages.

Usage: .venv/bin/python bench/pii.py [--samples 20] [--all] [--corpus-docs 10000]

Gold: ../shared/corpora/pii/presidio_synth (1,500 records from human-written templates filled
with synthetic values, spans typed EMAIL_ADDRESS, IP_ADDRESS, PHONE_NUMBER, CREDIT_CARD and
other types that are not ours). Span level: a gold span is found when a redacted span overlaps
it; a redaction is a true positive when it overlaps a gold span of its own type, else a false
positive (counted by what it fell on: another gold type, or nothing). Speed: documents per
second through ``redact_pii`` on one core (the function is single-threaded).

Real pages: the web documents of ../shared/corpora/web/dolma_cc2019 have no gold, so the
redactions are counted per kind and a seeded sample is printed with 30 characters of context
on each side for a human to judge.

Bench corpus (``--corpus-docs N``, 0 to skip): the first N documents of bench/corpus.py's
corpus, as the model sees them. CPU microseconds per document (best of 3, this process only, so
a loaded machine changes little) of ``redact_pii`` (one RE2 scan rules texts out, the passes run
on the rest) beside every text through ``redact_text`` (the passes on all, as before the scan),
the share of texts the scan keeps, and a check that both give the same rows.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from lakemix.udf import pii
from lakemix.udf.pii import FIELDS, find_pii, redact_pii, redact_text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
GOLD = CORPORA / "pii" / "presidio_synth" / "synth_dataset_v2.json"
WEB = CORPORA / "web" / "dolma_cc2019"
KINDS = {
    "EMAIL_ADDRESS": "<EMAIL>",
    "IP_ADDRESS": "<IP_ADDRESS>",
    "PHONE_NUMBER": "<PHONE_NUMBER>",
    "CREDIT_CARD": "<CREDIT_CARD>",
}


def docs_per_second(texts: list[str], seconds: float = 2.0) -> float:
    """Throughput of ``redact_pii`` on ``texts`` as one Arrow array, best of repeated runs."""
    array = pa.array(texts, pa.string())
    best, spent = float("inf"), 0.0
    while spent < seconds:
        t0 = time.perf_counter()
        redact_pii(array)
        elapsed = time.perf_counter() - t0
        best, spent = min(best, elapsed), spent + elapsed
    return len(texts) / best


def gold_scores() -> None:
    records = json.loads(GOLD.read_text())
    gold_total: Counter[str] = Counter()
    gold_found: Counter[str] = Counter()
    true_pos: Counter[str] = Counter()
    false_pos: Counter[tuple[str, str]] = Counter()
    missed: list[str] = []
    wrong: list[str] = []
    for record in records:
        text = record["full_text"]
        gold = [(s["entity_type"], s["start_position"], s["end_position"]) for s in record["spans"]]
        found = find_pii(text)
        for kind, start, end in gold:
            if kind not in KINDS:
                continue
            gold_total[kind] += 1
            if any(s < end and start < e for _, s, e in found):
                gold_found[kind] += 1
            else:
                missed.append(
                    f"{kind:<13} {text[start:end]!r} in {text[max(0, start - 25) : end + 25]!r}"
                )
        for placeholder, start, end in found:
            hits = [k for k, s, e in gold if s < end and start < e]
            if any(KINDS.get(k) == placeholder for k in hits):
                true_pos[placeholder] += 1
            else:
                false_pos[placeholder, hits[0] if hits else "no gold span"] += 1
                wrong.append(f"{placeholder:<15} {text[start:end]!r} on {hits or 'nothing'}")
    print(f"presidio_synth: {len(records)} records, {sum(gold_total.values())} gold spans of ours")
    columns = (("gold", 6), ("found", 7), ("recall", 8), ("redacted", 10), ("tp", 5), ("fp", 5))
    print(f"{'kind':<14}" + "".join(f"{n:>{w}}" for n, w in columns) + f"{'precision':>11}")
    for kind, placeholder in KINDS.items():
        tp = true_pos[placeholder]
        fp = sum(n for (p, _), n in false_pos.items() if p == placeholder)
        recall = gold_found[kind] / gold_total[kind] if gold_total[kind] else float("nan")
        precision = tp / (tp + fp) if tp + fp else float("nan")
        print(
            f"{kind:<14}{gold_total[kind]:>6}{gold_found[kind]:>7}{recall:>8.3f}"
            f"{tp + fp:>10}{tp:>5}{fp:>5}{precision:>11.3f}"
        )
    if false_pos:
        print("false positives by what they fell on:")
        for (placeholder, on), n in sorted(false_pos.items()):
            print(f"  {placeholder:<15} on {on:<18} {n}")
    print(f"speed: {docs_per_second([r['full_text'] for r in records]):,.0f} docs/s on one core")
    print("missed gold spans:")
    for line in missed:
        print("  " + line)
    print("false positives:")
    for line in wrong:
        print("  " + line)


def web_samples(samples: int, show_all: bool) -> None:
    texts = []
    for path in sorted(WEB.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            texts += [json.loads(line)["text"] for line in lines]
    redactions = []
    for doc, text in enumerate(texts):
        for placeholder, start, end in find_pii(text):
            context = f"{text[max(0, start - 30) : start]}[{text[start:end]}]{text[end : end + 30]}"
            redactions.append((placeholder, doc, context.replace("\n", "\\n")))
    counts = Counter(r[0] for r in redactions)
    size = sum(len(t.encode()) for t in texts) / 1e6
    print(f"\ndolma_cc2019: {len(texts)} documents, {size:.1f} MB of text")
    print("redacted: " + ", ".join(f"{p} {counts[p]}" for p in KINDS.values()))
    speed = docs_per_second(texts)
    print(f"speed: {speed:,.0f} docs/s ({speed * size / len(texts):.1f} MB/s) on one core")
    shown = (
        redactions
        if show_all
        else random.Random(0).sample(redactions, min(samples, len(redactions)))
    )
    print(f"{'all' if show_all else len(shown)} redactions (doc number, matched string in [...]):")
    for placeholder, doc, context in sorted(shown):
        print(f"  {placeholder:<15}{doc:>4}  {context}")


def cpu_us_per_doc(run: Callable[[], object], docs: int) -> float:
    """Best of 3 runs of ``run``, CPU microseconds of this process per document."""
    run()
    times = []
    for _ in range(3):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times) / docs * 1e6


def corpus_speed(docs: int) -> None:
    import duckdb
    import pyarrow.compute as pc

    from corpus import cached_corpus, shards

    files = ", ".join(f"'{p}'" for p in shards(cached_corpus(docs)))
    texts = (
        duckdb.sql(
            f"select text from read_json([{files}], format='newline_delimited', compression='zstd')"
            f" limit {docs}"
        )
        .fetchnumpy()["text"]
        .tolist()
    )
    array = pa.array(texts, pa.string())
    # Absent before the scan existed: the bench also measures the code of older commits.
    scan = getattr(pii, "CANDIDATE_PATTERN_RE2", None)
    kept = pc.sum(pc.match_substring_regex(array, scan)).as_py() if scan else len(texts)
    fast = cpu_us_per_doc(lambda: redact_pii(array), len(texts))
    slow = cpu_us_per_doc(lambda: [redact_text(t) for t in texts], len(texts))
    rows = [dict(zip(FIELDS, redact_text(t), strict=True)) for t in texts]
    same = sum(a == b for a, b in zip(redact_pii(array).to_pylist(), rows, strict=True))
    mb = array.nbytes / 1e6
    print(f"\nbench corpus: {len(texts):,} documents, {mb:.1f} MB; load {os.getloadavg()[0]:.1f}")
    print(f"the scan keeps {kept:,} documents ({kept / len(texts):.1%}) for the passes")
    print(f"redact_pii                  {fast:8.1f} CPU us/doc {1e6 / fast:>10,.0f} docs/s")
    print(f"redact_text on every text   {slow:8.1f} CPU us/doc {1e6 / slow:>10,.0f} docs/s")
    print(f"same rows: {same:,}/{len(texts):,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20, help="web redactions to print")
    parser.add_argument("--all", action="store_true", help="print every web redaction")
    parser.add_argument("--corpus-docs", type=int, default=10_000, help="bench corpus size")
    args = parser.parse_args()
    if args.corpus_docs:
        corpus_speed(args.corpus_docs)
    gold_scores()
    web_samples(args.samples, args.all)


if __name__ == "__main__":
    main()
