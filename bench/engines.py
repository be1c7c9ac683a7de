"""bench/engines: the same dbt project on DuckDB, Spark local[2] and a Spark standalone cluster.

Usage: .venv/bin/python bench/engines.py [--docs 100000] [--seed 0] [--keep]
       [--master spark://127.0.0.1:7077]

Corpus: ``bench/corpus.py`` (cached in ``bench/out/corpus-<N>``), ingested once into a fresh
temporary lakehouse. Then, each a command a user types:

1. DuckDB: ``dbt build`` and ``lakemix mix build demo_unimax``;
2. Spark: ``lakemix spark dbt build --full-refresh`` (every model recomputed from the raw
   table, into new snapshots of the same Iceberg tables) and
   ``lakemix mix build demo_unimax --engine spark``, on ``local[2]``;
3. with ``--master``, the same on the standalone cluster of ``scripts/spark-cluster.sh``
   (started first: a master and two workers of one core).

For each: wall seconds, CPU seconds, documents per CPU second, and peak memory, the largest sum
of the RSS of the command's whole process tree (dbt and DuckDB; or Python, the JVM and the
pandas-UDF workers), sampled every 0.2 s; on the cluster, the executor JVMs (and their Python
workers) count too, and "largest" is the largest one tree (the driver's, or one executor's).
CPU seconds are the user + system time of every process of those trees (each process's last
sample, so a process that lives under 0.2 s may be missed; the standalone master and worker
daemons are not counted). The costliest dbt nodes of each build (run_results.json) say which
stage limits it. Every build's fingerprints (clean set, clusters, mix checksum) must agree with
DuckDB's. Last, a sizing estimate for 1 TB and 10 TB of text from the measured CPU seconds per
document of the cluster (else of local[2]). The machine has 2 shared cores: compare the CPU
seconds and the ratios of one invocation, not the wall seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from corpus import cached_corpus
from mix import BIN, ROOT, Lakehouse

MIX = "demo_unimax"


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float
    peak_bytes: int
    largest_bytes: int  # the largest tree: the driver's, or one executor's
    nodes: dict[str, float]  # dbt's execution time of each node of the build


def node_name(unique_id: str) -> str:
    """A dbt node's name: a model's last part, a test's name (not the hash dbt ends it with)."""
    parts = unique_id.split(".")
    return parts[2] if parts[0] == "test" and len(parts) > 3 else parts[-1]


def tree_cpu(process: psutil.Process, seen: dict[int, float]) -> None:
    """Record the user + system seconds of every process of ``process``'s tree in ``seen``."""
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            times = member.cpu_times()
            seen[member.pid] = max(seen.get(member.pid, 0.0), times.user + times.system)


def tree_rss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


def executors() -> list[psutil.Process]:
    """The executor JVMs the standalone workers launched."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if "CoarseGrainedExecutorBackend" in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


def measured(house: Lakehouse, *commands: list[str], env: dict[str, str] | None = None) -> Run:
    """Run ``commands`` in turn (stopping the bench on a failure); time, CPU and peak tree RSS
    (with ``LAKEMIX_SPARK_MASTER`` in ``env``, the cluster's executors' trees added), and the
    node times of the first command (the dbt build)."""
    peak = largest = 0
    cpu: dict[int, float] = {}
    nodes: dict[str, float] = {}
    cluster = bool(env and not env.get("LAKEMIX_SPARK_MASTER", "local").startswith("local"))
    start = time.perf_counter()
    with house.log.open("ab") as log:
        for cmd in commands:
            log.write(f"\n$ {' '.join(cmd)}\n".encode())
            log.flush()
            proc = subprocess.Popen(
                cmd, cwd=ROOT, stdout=log, stderr=log, env={**os.environ, **(env or {})}
            )
            watched = psutil.Process(proc.pid)
            done = threading.Event()

            def sample(watched: psutil.Process = watched, done: threading.Event = done) -> None:
                nonlocal peak, largest
                while not done.wait(0.2):
                    try:
                        roots = [watched, *(executors() if cluster else [])]
                        sizes = [tree_rss(root) for root in roots]
                        for root in roots:
                            tree_cpu(root, cpu)
                        peak = max(peak, sum(sizes))
                        largest = max(largest, *sizes)
                    except psutil.Error:
                        return

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            code = proc.wait()
            done.set()
            sampler.join()
            if code != 0:
                raise house.fail(" ".join(cmd))
            if not nodes:
                nodes = house.nodes()
    return Run(time.perf_counter() - start, sum(cpu.values()), peak, largest, nodes)


def corpus_text_bytes() -> tuple[int, int]:
    """Raw documents and their UTF-8 text bytes."""
    from lakemix import duck
    from lakemix.catalog import catalog
    from lakemix.versions.refs import scan_at

    conn = duck.connect()
    try:
        scan = scan_at(catalog().load_table("raw.documents"), None)
        row = conn.execute(f"select count(*), sum(strlen(text)) from {scan}").fetchone()
    finally:
        conn.close()
    assert row is not None
    return int(row[0]), int(row[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--keep", action="store_true", help="keep the temporary lakehouse")
    parser.add_argument("--master", help="also build on this Spark standalone cluster")
    args = parser.parse_args()

    from lakemix.spark.parity import current_snapshots, fingerprint
    from lakemix.tables import CLEAN_DOCUMENTS, DUPLICATE_CLUSTERS, mix_table

    corpus = cached_corpus(args.docs, args.seed)
    load = os.getloadavg()
    print(
        f"corpus {corpus.relative_to(ROOT)}: {args.docs:,} documents; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 shared cores)"
    )
    home = Path(tempfile.mkdtemp(prefix="lakemix-bench-engines-"))
    tables = [CLEAN_DOCUMENTS, DUPLICATE_CLUSTERS, mix_table(MIX)]
    try:
        house = Lakehouse(home)
        print(f"lakemix ingest: {house.ingest(corpus):.1f} s (not measured below)")
        documents, text_bytes = corpus_text_bytes()
        lakemix = str(BIN / "lakemix")
        duck = measured(house, [str(BIN / "dbt"), "build"], [lakemix, "mix", "build", MIX])
        duck_print = fingerprint(current_snapshots(tables), mix=MIX)
        spark = measured(
            house,
            [lakemix, "spark", "dbt", "build", "--full-refresh"],
            [lakemix, "mix", "build", MIX, "--engine", "spark"],
        )
        spark_print = fingerprint(current_snapshots(tables), mix=MIX)
        differences = spark_print.differences(duck_print)
        runs = [("DuckDB", duck), ("Spark local[2]", spark)]
        if args.master:
            cluster = measured(
                house,
                [lakemix, "spark", "dbt", "build", "--full-refresh"],
                [lakemix, "mix", "build", MIX, "--engine", "spark"],
                env={"LAKEMIX_SPARK_MASTER": args.master},
            )
            cluster_differences = fingerprint(current_snapshots(tables), mix=MIX).differences(
                duck_print
            )
            differences += [f"{part} (cluster)" for part in cluster_differences]
            runs.append(("Spark cluster", cluster))

        load = os.getloadavg()
        print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        print(
            f"{'engine':<16} {'wall s':>9} {'CPU s':>9} {'docs/CPU s':>11} {'peak RSS':>10}"
            f" {'largest':>10}"
        )
        for name, run in runs:
            print(
                f"{name:<16} {run.seconds:9.1f} {run.cpu_seconds:9.1f} "
                f"{documents / run.cpu_seconds:11.1f} "
                f"{run.peak_bytes / 2**30:6.2f} GiB {run.largest_bytes / 2**30:6.2f} GiB"
            )
        for name, run in runs[1:]:
            print(
                f"{name} / DuckDB: {run.seconds / duck.seconds:.2f}x the wall time, "
                f"{run.cpu_seconds / duck.cpu_seconds:.2f}x the CPU, "
                f"{run.peak_bytes / duck.peak_bytes:.2f}x the peak memory"
            )
        for name, run in runs:
            total = sum(run.nodes.values())
            top = sorted(run.nodes.items(), key=lambda kv: -kv[1])[:5]
            print(
                f"{name}: costliest dbt nodes ({total:.0f} s of node time in all): "
                + ", ".join(f"{node_name(k)} {v:.0f} s ({v / total:.0%})" for k, v in top)
            )
        print(
            "fingerprints (clean set, clusters, mix checksum): "
            + ("identical" if not differences else f"DIFFER in {', '.join(differences)}")
        )

        name, basis = runs[-1]
        per_core = documents / basis.cpu_seconds
        bytes_per_doc = text_bytes / documents
        print(
            f"sizing from {name}'s {per_core:.1f} docs per CPU second, {bytes_per_doc:,.0f} B/doc:"
        )
        for terabytes in (1, 10):
            docs = terabytes * 1e12 / bytes_per_doc
            core_hours = docs / per_core / 3600
            print(
                f"  {terabytes:>2} TB = {docs / 1e6:,.0f} M docs: {core_hours:,.0f} core-hours;"
                f" in 24 h {core_hours / 24:,.0f} cores (e.g. {core_hours / 24 / 16:,.0f}"
                " executors of 16 cores)"
            )
        if differences:
            raise SystemExit(1)
    finally:
        if args.keep:
            print(f"kept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
