"""bench/token_store: a loader's reads of a token store, mapped as lakemix maps it and plainly.

Usage: .venv/bin/python bench/token_store.py [--docs 1100000] [--batches 2000]
       [--seq-len 2048] [--batch-size 8] [--memory-cap 1G] [--cpu 1] [--seed 0]

The store: the first ``--docs`` documents of the bench corpus (``bench/corpus.py``), tokenized
with cl100k and written as ``build_store`` writes a release's store (``lakemix.loader.store.
write_store``, 2,048 documents a record batch), in ``bench/out/token-store-<docs>.arrow``
(written once). The reads are a loader's first ``--batches`` batches of an epoch: every
document once in an order shuffled by ``--seed``, packed into batches of ``--batch-size`` x
``--seq-len`` tokens (plus the next batch's first token, a label), each batch's pieces read
with ``TokenStore.gather`` and their document ids with ``document_ids``, as the materializer
reads them. Each way runs in a fresh process after the store's pages are dropped from the page
cache (``POSIX_FADV_DONTNEED``):

* lakemix: the store mapped with ``MADV_RANDOM`` (``lakemix.mapped.random_access``), each
  batch's pages asked for together (``MADV_WILLNEED``), as ``MixLoader`` opens it;
* reference: lakemix before the change, ``TokenStore(path, sequential=True)`` (what an export
  still opens): a plain ``pyarrow.memory_map``, nothing asked for; each page fault also reads
  the pages around it (``read_ahead_kb`` of the disk).

Per way: seconds to open the store and read the per-document columns a loader reads first
(keys, repeats, lengths), then wall and CPU seconds of the batches, tokens per second, bytes read
from disk (``/proc/self/io``), peak RSS, and without a cap the tokens per second of the same
batches read again with their pages cached (warm); the batches' tokens and ids are checked equal
between the two ways (a checksum). With ``--memory-cap`` (root only) each process runs in a memory
cgroup of that size (page cache included; cgroup v1 or v2): a store larger than the memory left
for the page cache, as a pre-training mix is.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from corpus import cached_corpus
from dedup import json_lines
from text_store import drop_cached, join_cgroup, read_ahead_kb, read_bytes

if TYPE_CHECKING:
    from lakemix.loader.reader import TokenStore

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
ENCODING = "cl100k"
WAYS = ("lakemix", "reference")


def build_store(docs: int) -> Path:
    """The token store of the first ``docs`` bench documents (written once, then reused)."""
    path = OUT / f"token-store-{docs}.arrow"
    if not path.is_file():
        from lakemix.loader.store import write_store

        began = time.perf_counter()
        write_store(path, _documents(docs), ENCODING, tag="bench", split="train")
        print(f"  store written in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return path


def _documents(docs: int) -> Iterator[pa.RecordBatch]:
    """The first ``docs`` bench documents, 2,048 a batch as a release's store is built."""
    import orjson

    from lakemix.loader.store import BATCH_ROWS

    rows = []
    corpus = cached_corpus(docs)
    for i, line in enumerate(json_lines(sorted(corpus.glob("part-*.jsonl*")))):
        if i == docs:
            break
        record = orjson.loads(line)
        rows.append({"document_id": record["id"], "language": record.get("language", ""),
                     "repeat_count": 1, "text": record["text"]})  # fmt: skip
        if len(rows) == BATCH_ROWS:
            yield pa.RecordBatch.from_pylist(rows)
            rows = []
        if i % 100_000 == 0:
            print(f"  tokenized {i:,} documents", file=sys.stderr, flush=True)
    if rows:
        yield pa.RecordBatch.from_pylist(rows)


def batches(lengths: np.ndarray, count: int, tokens: int, seed: int) -> list[np.ndarray]:
    """The pieces (row, start, stop) of an epoch's first ``count`` batches of ``tokens``
    tokens (and the next one, a label): every document once, in a shuffled order."""
    order = np.random.default_rng(seed).permutation(len(lengths))
    ends = np.cumsum(lengths[order])
    starts = ends - lengths[order]
    plans = []
    for b in range(count):
        low, high = b * tokens, (b + 1) * tokens + 1
        first = int(np.searchsorted(ends, low, side="right"))
        last = int(np.searchsorted(starts, high, side="left"))
        if first >= len(order):
            break
        rows = order[first:last]
        begin = np.maximum(low - starts[first:last], 0)
        stop = np.minimum(high - starts[first:last], lengths[rows])
        plans.append(np.stack([rows, begin, stop], axis=1))
    return plans


def read(opened: TokenStore, plans: list[np.ndarray]) -> tuple[int, int]:
    """Each batch's tokens and document ids, as the materializer reads them; (tokens, crc)."""
    crc, total = 0, 0
    for plan in plans:
        rows, starts, stops = plan[:, 0], plan[:, 1], plan[:, 2]
        out = np.empty(int((stops - starts).sum()), dtype=np.int64)
        opened.gather(rows, starts, stops, out)
        crc = zlib.crc32(out.tobytes(), crc)
        crc = zlib.crc32("".join(opened.document_ids(rows.tolist())).encode(), crc)
        total += len(out)
    return total, crc


def child(way: str, store: Path, count: int, tokens: int, seed: int, cap: str | None) -> None:
    """Read the batches one way; print ``open_s seconds cpu_seconds read_bytes tokens crc
    peak_rss warm_seconds`` (the same batches again, their pages cached; 0 under a cap)."""
    if cap:
        join_cgroup(cap)
    from lakemix.loader.reader import TokenStore

    began, read_before = time.perf_counter(), read_bytes()
    opened = TokenStore(store, sequential=way == "reference")
    lengths = opened.lengths
    _ = opened.keys, opened.repeats  # what a loader's shuffle reads first
    open_s = time.perf_counter() - began
    plans = batches(lengths, count, tokens, seed)
    began, cpu = time.perf_counter(), time.process_time()
    total, crc = read(opened, plans)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    read_total = read_bytes() - read_before
    warm = 0.0
    if not cap:  # the pages stay cached: what reading costs once the disk is out of it
        began = time.perf_counter()
        read(opened, plans)
        warm = time.perf_counter() - began
    print(open_s, seconds, cpu, read_total, total, crc, peak, warm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_100_000)
    parser.add_argument("--batches", type=int, default=2_000)
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--memory-cap", help="run each way in a memory cgroup (root), e.g. 1G")
    parser.add_argument("--cpu", default="1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    tokens = args.seq_len * args.batch_size
    store = build_store(args.docs)
    if args.child:
        child(args.child, store, args.batches, tokens, args.seed, args.memory_cap)
        return
    print(
        f"store {store}: {store.stat().st_size / 1e9:.2f} GB; {args.batches:,} batches of "
        f"{args.batch_size} x {args.seq_len} tokens; memory cap {args.memory_cap or 'none'}; "
        f"read_ahead_kb {read_ahead_kb(store)}"
    )
    header = f"{'way':10} {'open s':>7} {'wall s':>8} {'CPU s':>7} {'Mtok/s':>7} {'read GB':>8}"
    print(f"{header} {'peak RSS':>9} {'warm Mtok/s':>11}")
    results = {}
    for way in WAYS:
        drop_cached(store)
        cmd = [sys.executable, __file__, "--child", way, "--docs", str(args.docs)]
        cmd += ["--batches", str(args.batches), "--seq-len", str(args.seq_len)]
        cmd += ["--batch-size", str(args.batch_size), "--seed", str(args.seed)]
        cmd += ["--memory-cap", args.memory_cap] if args.memory_cap else []
        env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
        out = subprocess.run(
            ["taskset", "-c", args.cpu, *cmd], env=env, check=True, capture_output=True, text=True
        ).stdout.split()
        open_s, seconds, cpu = float(out[0]), float(out[1]), float(out[2])
        read, total, crc, peak = int(out[3]), int(out[4]), int(out[5]), int(out[6])
        warm = float(out[7])
        results[way] = (seconds, read, total, crc)
        figures = f"{open_s:7.1f} {seconds:8.1f} {cpu:7.1f} {total / seconds / 1e6:7.2f}"
        hot = f"{total / warm / 1e6:11.2f}" if warm else f"{'-':>11}"
        print(f"{way:10} {figures} {read / 1e9:8.2f} {peak / 2**30:7.2f} GiB {hot}")
    (ref_s, ref_read, *ref_tokens), (own_s, own_read, *own_tokens) = (
        results["reference"],
        results["lakemix"],
    )
    if ref_tokens != own_tokens:
        raise SystemExit(f"the two ways read different tokens: {ref_tokens} != {own_tokens}")
    fewer = ref_read / max(own_read, 1)
    print(f"lakemix / reference: {ref_s / own_s:.1f}x faster, {fewer:.1f}x fewer bytes read")


if __name__ == "__main__":
    main()
