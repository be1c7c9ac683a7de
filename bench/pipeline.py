"""bench/pipeline: the whole lakemix pipeline, full and then +10%, beside datatrove's FineWeb chain.

Usage: .venv/bin/python bench/pipeline.py [--docs 100000] [--seed 0] [--cpus 0,1]
       [--work bench/out/pipeline-work] [--datatrove-python PYTHON] [--skip-datatrove]
       [--memory-limit 2GB]

Corpus: ``bench/corpus.py``'s deterministic corpus of ``docs + docs // 10`` documents (cached in
``bench/out/corpus-<n>``): the first ``docs`` are the full build, the last tenth arrives after it
(ingested from the corpus's zstd shards when ``docs`` is a multiple of their 50,000 documents).

lakemix, pinned to the first of ``--cpus`` with LAKEMIX_THREADS=1 (and one DuckDB thread), in a
fresh lakehouse (``LAKEMIX_HOME`` under ``--work``), the project's default vars: ``lakemix
ingest`` of the first ``docs`` documents, ``dbt seed``, ``dbt build`` (every model and test;
per-node seconds from dbt's run_results.json), ``lakemix mix build demo_unimax``, ``lakemix
release demo_unimax``; then ``lakemix ingest`` of the new tenth, ``dbt build``, ``mix build`` and
``release`` again (the daily case). A 300-document run of the same steps first warms numba's
cache, dbt and the page cache. Each step's wall seconds, CPU seconds (user + system over the
process tree) and peak RSS (bench/dedup.py's ``run_measured``: the larger of the kernel's
maximum for one process and the sampled sum over the tree); for each build, also the largest
sampled anonymous memory (RSS less the pages of mapped files, which the kernel takes back when
memory is short: Tantivy's index files, the text store).

datatrove 0.10.1 (bench/out/venv-datatrove, bench/_datatrove.py), at the same time, pinned to
the second of ``--cpus``, on the same first ``docs`` documents: its four quality filters in
FineWeb's order (GopherRepetitionFilter, GopherQualityFilter, C4QualityFilter as FineWeb ran it,
FineWebQualityFilter; the seed's '*' thresholds; a dropped document skips the later filters),
then its 4-stage MinHash (bench/dedup.py's ``run_datatrove``: signatures, buckets, clusters,
filter) on all of them, as the issue measured it. datatrove has no incremental mode: it reruns.

Printed: each step full and +10%, the nodes that cost most in each build, the incremental ratio
(+10% ``dbt build`` / full ``dbt build``; also with ingest, mix and release) and lakemix's whole
pipeline against datatrove's chain in docs/s (wall, and per CPU second: both use one core, but
the machine may be shared). Figures also go to ``bench/out/pipeline-results-<docs>.json``, the
full round's as soon as it is done.
``--skip-datatrove``: lakemix's side alone (at 1M documents, its memory and scale).
``--memory-limit``: DuckDB's limit for lakemix (``LAKEMIX_MEMORY_LIMIT``; the profile's 2GB by
default): whether the peak follows the setting rather than the corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from _datatrove import FILTER_IMPORTS, FILTERS, ensure_venv, thresholds
from corpus import cached_corpus, shards
from dedup import (
    BIN,
    OUT,
    Lakehouse,
    Measured,
    Phase,
    gib,
    json_lines,
    run_datatrove,
    run_measured,
    write_head_and_tail,
)

MIX = "demo_unimax"
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
WARMUP_DOCS = 300
TOP = 8
GOALS = {"incremental": 0.15, "datatrove": 15.0}

# Runs in bench/out/venv-datatrove: argv = docs.jsonl thresholds.json
FILTER_CHAIN = (
    FILTER_IMPORTS
    + r"""
from datatrove.data import Document
path = sys.argv[1]
"""
    + FILTERS
    + r"""
def reader():  # JsonlReader would need orjson, which datatrove's pins lack
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            yield Document(text=record["text"], id=record["id"])

started = time.perf_counter()
data = reader()
for name in ("gopher_repetition", "gopher_quality", "c4", "fineweb"):
    data = filters[name](data, 0, 1)
kept = sum(1 for _ in data)
print(json.dumps({"kept": kept, "seconds": time.perf_counter() - started}))
"""
)


@dataclass
class Step:
    """One command of the pipeline: wall and CPU seconds, peak RSS in bytes."""

    seconds: float
    cpu_seconds: float
    peak_rss: int
    nodes: dict[str, float] = field(default_factory=dict)  # dbt build: seconds per model/test
    # dbt build: the largest RSS of the process tree sampled while each model executed
    node_rss: dict[str, int] = field(default_factory=dict)
    process_rss: int = 0  # the kernel's maximum for one process (wait4): no sampling gaps
    # the largest sampled memory of the tree that maps no file (RSS less Tantivy's index files,
    # the text store and libraries mapped in): the whole step's, and each model's
    peak_anonymous: int = 0
    node_anonymous: dict[str, int] = field(default_factory=dict)


def step(measured: Measured | Phase) -> Step:
    phase = isinstance(measured, Phase)
    return Step(
        measured.seconds,
        measured.cpu_seconds,
        measured.peak_rss,
        dict(measured.models) if phase else {},
        dict(measured.model_rss) if phase else {},
        measured.process_rss,
        measured.peak_anonymous,
        dict(measured.model_anonymous) if phase else {},
    )


def pipeline_round(lake: Lakehouse, data: list[Path], tag: str, *, first: bool) -> dict[str, Step]:
    """ingest, (seed,) dbt build, mix build, release: one day of the pipeline."""
    lakemix = str(BIN / "lakemix")
    steps = {"ingest": step(lake.ingest(data))}
    if first:
        steps["dbt seed"] = step(lake.dbt("seed"))
    steps["dbt build"] = step(lake.dbt("build", retry=first))
    for name, cmd in (
        ("mix build", [lakemix, "mix", "build", MIX]),
        ("release", [lakemix, "release", MIX, "--tag", tag, *UNREVIEWED]),
    ):
        steps[name] = step(run_measured(cmd, env=lake.env, cpus=lake.cpus, log=lake.log))
    return steps


def head_and_tail(corpus: Path, work: Path, docs: int) -> tuple[list[Path], list[Path]]:
    """The files of the first ``docs`` documents and of the rest: the corpus's own shards when
    ``docs`` falls between two (ingested as they are, zstd-compressed: a copy would take 13 GB
    of JSONL at 5M documents), else ``work/head.jsonl`` and ``work/tail.jsonl``."""
    manifest = json.loads((corpus / "manifest.json").read_text())
    counts = {shard["file"]: shard["docs"] for shard in manifest["shards"]}
    files, seen = shards(corpus), 0
    for i, path in enumerate(files):
        if seen == docs:
            return files[:i], files[i:]
        seen += counts[path.name]
    head, tail = write_head_and_tail(corpus, work, docs)
    return [head], [tail]


def run_lakemix(
    base: list[Path],
    new: list[Path],
    work: Path,
    cpu: str,
    memory_limit: str | None = None,
    on_full: Callable[[dict[str, Step]], None] | None = None,
) -> dict[str, dict[str, Step]]:
    """The full round on ``base``, then the +10% round on ``new``, in one lakehouse
    (``on_full`` gets the full round's figures as soon as they are in)."""
    limit = {"LAKEMIX_MEMORY_LIMIT": memory_limit} if memory_limit else {}
    warm = Lakehouse(work / "warmup", cpus=cpu)
    warm.dbt_vars = None
    warm.env |= limit
    head = warm.work / "head.jsonl"
    with head.open("wb") as f:
        for i, line in enumerate(json_lines(base)):
            if i == WARMUP_DOCS:
                break
            f.write(line)
    pipeline_round(warm, [head], "warmup", first=True)
    lake = Lakehouse(work / "lakemix", cpus=cpu)
    lake.dbt_vars = None
    lake.env |= limit
    full = pipeline_round(lake, base, "full", first=True)
    print(f"  lakemix full: {sum(s.seconds for s in full.values()):,.0f} s", flush=True)
    if on_full is not None:
        on_full(full)
    more = pipeline_round(lake, new, "plus10", first=False)
    print(f"  lakemix +10%: {sum(s.seconds for s in more.values()):,.0f} s", flush=True)
    return {"full": full, "+10%": more}


def run_datatrove_chain(
    python: Path, corpus: Path, base: list[Path], docs: int, work: Path, cpu: str
) -> dict[str, Any]:
    """datatrove's four quality filters, then its 4-stage MinHash, on the base documents."""
    work.mkdir(parents=True, exist_ok=True)
    plain = work / "docs.jsonl"
    with plain.open("wb") as out:
        for line in json_lines(base):
            record = orjson.loads(line)
            out.write(orjson.dumps({"id": record["id"], "text": record["text"]}) + b"\n")
    limits = work / "thresholds.json"
    limits.write_text(json.dumps(thresholds()))
    log = work / "filters.log"
    cmd = [str(python), "-c", FILTER_CHAIN, str(plain), str(limits)]
    filters = run_measured(cmd, env=dict(os.environ), cpus=cpu, log=log)
    kept = json.loads(log.read_text().strip().splitlines()[-1])["kept"]
    print(f"  datatrove filters: {filters.seconds:,.0f} s, kept {kept:,}", flush=True)
    minhash, _ = run_datatrove(corpus, docs, work / "minhash", python, cpu, limit=docs)
    print(f"  datatrove MinHash: {minhash.seconds:,.0f} s", flush=True)
    return {
        "filters": Step(filters.seconds, filters.cpu_seconds, filters.peak_rss),
        "minhash": Step(minhash.seconds, minhash.cpu_seconds, minhash.peak_rss),
        "minhash_stages": minhash.stages,
        "filters_kept": kept,
    }


def table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        cells = zip(row, widths, strict=True)
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(cells)))


def total(steps: dict[str, Step]) -> Step:
    return Step(
        sum(s.seconds for s in steps.values()),
        sum(s.cpu_seconds for s in steps.values()),
        max(s.peak_rss for s in steps.values()),
    )


def report(docs: int, lakemix: dict[str, dict[str, Step]], dt: dict[str, Any] | None) -> None:
    full, more = lakemix["full"], lakemix["+10%"]
    print(f"\n{docs:,} documents, then {docs // 10:,} new; load {os.getloadavg()[0]:.1f}")
    rows = []
    for name in full:
        after = more.get(name)
        rows.append(
            [
                name,
                f"{full[name].seconds:,.1f}",
                f"{full[name].cpu_seconds:,.1f}",
                f"{after.seconds:,.1f}" if after else "-",
                f"{after.cpu_seconds:,.1f}" if after else "-",
                gib(full[name].peak_rss),
                gib(after.peak_rss) if after else "-",
            ]
        )
    whole, again = total(full), total(more)
    rows.append(
        [
            "whole pipeline",
            f"{whole.seconds:,.1f}",
            f"{whole.cpu_seconds:,.1f}",
            f"{again.seconds:,.1f}",
            f"{again.cpu_seconds:,.1f}",
            gib(whole.peak_rss),
            gib(again.peak_rss),
        ]
    )
    header = ["lakemix step", "full s", "CPU s", "+10% s", "CPU s", "peak RSS", "+10% RSS"]
    table(header, rows)
    for label, build in (("full", full), ("+10%", more)):
        nodes = sorted(build["dbt build"].nodes.items(), key=lambda kv: -kv[1])
        tests = sum(s for n, s in nodes if n.startswith(("test:", "unit_test:")))
        shown = ", ".join(f"{n} {s:.1f}" for n, s in nodes[:TOP])
        print(f"{label} dbt build, costliest nodes (s): {shown}; all tests {tests:.1f}")
        largest = sorted(build["dbt build"].node_rss.items(), key=lambda kv: -kv[1])[:TOP]
        shown = ", ".join(f"{n} {gib(rss)}" for n, rss in largest)
        print(
            f"{label} dbt build, largest sampled RSS of the process tree while a model ran: "
            f"{shown}; the largest one process reached (wait4): "
            f"{gib(build['dbt build'].process_rss)}"
        )
        anonymous = build["dbt build"].node_anonymous
        largest = sorted(anonymous.items(), key=lambda kv: -kv[1])[:TOP]
        shown = ", ".join(f"{n} {gib(size)}" for n, size in largest)
        print(
            f"{label} dbt build, of which anonymous (no file's pages), largest sampled: {shown}; "
            f"the build's {gib(build['dbt build'].peak_anonymous)}"
        )
    ratio = more["dbt build"].seconds / full["dbt build"].seconds
    cpu_ratio = more["dbt build"].cpu_seconds / full["dbt build"].cpu_seconds
    print(
        f"incremental: +10% dbt build / full dbt build = {ratio:.1%} wall, {cpu_ratio:.1%} CPU "
        f"(goal <= {GOALS['incremental']:.0%}); whole pipeline {again.seconds / whole.seconds:.1%}"
    )
    if dt is None:
        return
    chain = Step(
        dt["filters"].seconds + dt["minhash"].seconds,
        dt["filters"].cpu_seconds + dt["minhash"].cpu_seconds,
        max(dt["filters"].peak_rss, dt["minhash"].peak_rss),
    )
    rows = [
        [
            name,
            f"{s.seconds:,.1f}",
            f"{s.cpu_seconds:,.1f}",
            f"{docs / s.seconds:,.1f}",
            gib(s.peak_rss),
        ]
        for name, s in (
            ("datatrove 4 quality filters", dt["filters"]),
            ("datatrove 4-stage MinHash", dt["minhash"]),
            ("datatrove chain", chain),
            ("lakemix whole pipeline (full)", whole),
        )
    ]
    print()
    table(["", "wall s", "CPU s", "docs/s", "peak RSS"], rows)
    print(
        f"lakemix / datatrove, docs/s per core: {chain.seconds / whole.seconds:.1f}x wall, "
        f"{chain.cpu_seconds / whole.cpu_seconds:.1f}x CPU (goal >= {GOALS['datatrove']:.0f}x); "
        f"without the search index {chain.seconds / (whole.seconds - search_seconds(full)):.1f}x "
        f"wall"
    )


def search_seconds(full: dict[str, Step]) -> float:
    return sum(s for n, s in full["dbt build"].nodes.items() if n.startswith("search_"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--docs", type=int, default=100_000, help="documents of the full build")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpus", default="0,1", help="lakemix's CPU,datatrove's CPU")
    parser.add_argument("--work", type=Path, default=OUT / "pipeline-work")
    parser.add_argument("--datatrove-python", type=Path, help="default: bench/out/venv-datatrove")
    parser.add_argument(
        "--skip-datatrove",
        action="store_true",
        help="lakemix's side only (its scale and memory: datatrove takes hours at 1M)",
    )
    parser.add_argument("--memory-limit", help="DuckDB's limit for lakemix (default: 2GB)")
    args = parser.parse_args(argv)
    cpu_lakemix, _, cpu_datatrove = args.cpus.partition(",")
    if not cpu_datatrove:
        raise SystemExit(f"--cpus needs two CPUs, one for each side, got {args.cpus!r}")
    corpus = cached_corpus(args.docs + args.docs // 10, args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    base, new = head_and_tail(corpus, args.work, args.docs)
    python = None if args.skip_datatrove else args.datatrove_python or ensure_venv()
    started = time.perf_counter()
    dt: dict[str, Any] = {}

    def datatrove_side() -> None:
        if python is None:
            return
        work = args.work / "datatrove"
        dt.update(run_datatrove_chain(python, corpus, base, args.docs, work, cpu_datatrove))

    # datatrove on its core while lakemix runs on the other: one run, the same machine state.
    thread = threading.Thread(target=datatrove_side)
    thread.start()
    print(f"lakemix: DuckDB memory limit {args.memory_limit or '2GB (the profile)'}", flush=True)
    lakemix = run_lakemix(
        base,
        new,
        args.work,
        cpu_lakemix,
        args.memory_limit,
        on_full=lambda full: save(args.docs, {"full": full}, {}),  # a run cut short keeps it
    )
    save(args.docs, lakemix, dt)
    if thread.is_alive():  # lakemix's side first, while datatrove runs on
        report(args.docs, lakemix, None)
    thread.join()
    print(f"both sides done in {time.perf_counter() - started:,.0f} s")
    report(args.docs, lakemix, dt or None)
    save(args.docs, lakemix, dt)


def save(docs: int, lakemix: dict[str, dict[str, Step]], dt: dict[str, Any]) -> None:
    """The figures so far to ``bench/out/pipeline-results-<docs>.json``."""
    results = {
        "docs": docs,
        "lakemix": {k: {n: asdict(s) for n, s in v.items()} for k, v in lakemix.items()},
        "datatrove": {k: asdict(v) if isinstance(v, Step) else v for k, v in dt.items()},
    }
    (OUT / f"pipeline-results-{docs}.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
