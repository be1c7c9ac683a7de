"""bench/text_store: random lookups in a text store, mapped as lakemix maps it and the plain way.

Usage: .venv/bin/python bench/text_store.py (--store DIR | --docs N) [--lookups 72115]
       [--memory-cap 2G] [--cpu 1] [--seed 0]

The store is a lakehouse's (``--store <LAKEMIX_HOME>/text_store``) or one written here from the
texts of the first ``--docs`` documents of the bench corpus (``bench/corpus.py``, in
``bench/out/text-store-<docs>``). ``--lookups`` content hashes picked at random among the
store's (seeded) are looked up with ``TextStore.lookup``, 2,048 at a time as DuckDB hands them
to ``lakemix_stored_text``, in a fresh process per way, each after the store's pages are dropped
from the page cache (``POSIX_FADV_DONTNEED``):

* lakemix: the segments mapped with ``MADV_RANDOM`` (``lakemix.mapped.random_access``), each
  lookup's pages asked for together (``MADV_WILLNEED``);
* reference: lakemix before c9e251b, the segments mapped with ``pyarrow.memory_map`` and nothing
  asked for: each page fault also reads the pages around it (the kernel's read-around:
  ``read_ahead_kb`` of the disk).

Per way: wall and CPU seconds, bytes read from disk (``/proc/self/io``), peak RSS. With
``--memory-cap`` (root only), each process runs in a memory cgroup of that size (page cache
included; cgroup v1 or v2), as a lakehouse larger than the memory left for the page cache does.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from corpus import cached_corpus
from dedup import json_lines

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
BATCH = 2_048  # DuckDB's vector: the rows of one call of lakemix_stored_text
WAYS = ("lakemix", "reference")


def build_store(docs: int) -> Path:
    """A store of the texts of the first ``docs`` bench documents (written once, then reused)."""
    import orjson

    from lakemix.text_store import TextStore

    root = OUT / f"text-store-{docs}"
    if root.is_dir() and any(root.glob("*.keys.npy")):
        return root
    writer, hashes, texts = TextStore(root).writer(replace=True), [], []
    corpus = cached_corpus(docs)
    for i, line in enumerate(json_lines(sorted(corpus.glob("part-*.jsonl*")))):
        if i == docs:
            break
        text = orjson.loads(line)["text"]
        hashes.append(hashlib.md5(text.encode()).hexdigest())
        texts.append(text)
        if len(texts) == BATCH:  # a segment's chunks as lakemix_store_text writes them
            writer.write(pa.array(hashes), pa.array(texts))
            hashes, texts = [], []
    if texts:
        writer.write(pa.array(hashes), pa.array(texts))
    writer.commit()
    return root


def pick_hashes(store: Path, lookups: int, seed: int) -> pa.Array:
    """``lookups`` content hashes of the store's texts, at random."""
    keys = np.concatenate([np.load(p)[:2] for p in sorted(store.glob("*.keys.npy"))], axis=1)
    rng = np.random.default_rng(seed)
    chosen = keys[:, rng.choice(keys.shape[1], size=min(lookups, keys.shape[1]), replace=False)]
    raw = np.ascontiguousarray(chosen.T.astype("<u8")).view(np.uint8).reshape(-1, 16)
    return pa.array([bytes(row).hex() for row in raw])


def drop_cached(store: Path) -> None:
    """Drop the pages of ``store`` (a file, or every file of a folder) from the page cache."""
    for path in [store] if store.is_file() else store.iterdir():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def join_cgroup(cap: str) -> None:
    """Put this process in a memory cgroup of ``cap`` bytes (``2G``), page cache included."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    limit = int(float(cap[:-1]) * units[cap[-1].upper()]) if cap[-1].isalpha() else int(cap)
    v1 = Path("/sys/fs/cgroup/memory")
    group = (v1 if v1.is_dir() else Path("/sys/fs/cgroup")) / "lakemix-bench-text-store"
    group.mkdir(exist_ok=True)
    (group / ("memory.limit_in_bytes" if v1.is_dir() else "memory.max")).write_text(str(limit))
    (group / "cgroup.procs").write_text(str(os.getpid()))


def read_ahead_kb(path: Path) -> str:
    """The read-ahead of the disk holding ``path`` (the most a fault reads around a page)."""
    device = os.stat(path).st_dev
    block = Path(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}")
    for queue in (block / "queue", block / ".." / "queue"):  # a disk, or a partition's disk
        if (queue / "read_ahead_kb").is_file():
            return (queue / "read_ahead_kb").read_text().strip()
    return "?"


def read_bytes() -> int:
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["read_bytes"])


def child(way: str, store: Path, hashes_file: Path, cap: str | None) -> None:
    """Look the hashes up one way; print ``seconds cpu_seconds read_bytes found peak_rss``."""
    if cap:
        join_cgroup(cap)
    import lakemix.text_store

    if way == "reference":  # lakemix before c9e251b: a plain map, no pages asked for
        lakemix.text_store.random_access = lambda path: pa.memory_map(str(path)).read_buffer()
        lakemix.text_store._prefetch = lambda arrays, rows: None
    hashes = pa.ipc.open_file(str(hashes_file)).read_all().column(0).combine_chunks()
    store_ = lakemix.text_store.TextStore(store)
    began, cpu, read = time.perf_counter(), time.process_time(), read_bytes()
    found = 0
    for start in range(0, len(hashes), BATCH):
        texts = store_.lookup(hashes.slice(start, BATCH))
        found += len(texts) - texts.null_count
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{seconds} {cpu} {read_bytes() - read} {found} {peak}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="a lakehouse's text_store folder")
    source.add_argument("--docs", type=int, help="build a store of this many bench documents")
    parser.add_argument("--lookups", type=int, default=72_115)
    parser.add_argument("--memory-cap", help="run each way in a memory cgroup (root), e.g. 2G")
    parser.add_argument("--cpu", default="1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    parser.add_argument("--hashes", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.store, args.hashes, args.memory_cap)
        return
    store = args.store or build_store(args.docs)
    size = sum(p.stat().st_size for p in store.glob("*.arrow"))
    hashes_file = OUT / "text-store-lookups.arrow"
    table = pa.table({"content_hash": pick_hashes(store, args.lookups, args.seed)})
    with pa.OSFile(str(hashes_file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    print(
        f"store {store}: {size / 1e9:.2f} GB of texts; {len(table):,} lookups; memory cap "
        f"{args.memory_cap or 'none'}; read_ahead_kb {read_ahead_kb(store)}"
    )
    print(f"{'way':10} {'wall s':>8} {'CPU s':>7} {'read GB':>8} {'found':>8} {'peak RSS':>9}")
    results = {}
    for way in WAYS:
        drop_cached(store)
        cmd = [sys.executable, __file__, "--child", way, "--store", str(store)]
        cmd += [
            "--hashes",
            str(hashes_file),
            *(["--memory-cap", args.memory_cap] if args.memory_cap else []),
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
        out = subprocess.run(
            ["taskset", "-c", args.cpu, *cmd], env=env, check=True, capture_output=True, text=True
        ).stdout.split()
        seconds, cpu, read, found, peak = (
            float(out[0]),
            float(out[1]),
            int(out[2]),
            int(out[3]),
            int(out[4]),
        )
        results[way] = (seconds, read)
        figures = f"{seconds:8.1f} {cpu:7.1f} {read / 1e9:8.2f} {found:8,} {peak / 2**30:7.2f}"
        print(f"{way:10} {figures} GiB")
    (ref_s, ref_read), (own_s, own_read) = results["reference"], results["lakemix"]
    fewer = ref_read / max(own_read, 1)
    print(f"lakemix / reference: {ref_s / own_s:.1f}x faster, {fewer:.0f}x fewer bytes read")


if __name__ == "__main__":
    main()
