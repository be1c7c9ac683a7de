"""bench/dedup: lakemix's dedup models against datatrove's MinHash pipeline, end to end.

Usage: .venv/bin/python bench/dedup.py [--docs 100000 [1000000 ...]] [--seed 0] [--cpus 0,1]
       [--incremental-max-docs 100000] [--datatrove-python PYTHON] [--work bench/out/dedup-work]
       [--keep]
       .venv/bin/python bench/dedup.py --incremental-only --docs 1000000 [--repeat 2]
       [--work bench/out/dedup-work] [--keep]

Corpora: ``bench/corpus.py`` builds (``build_corpus(out, docs=N, seed)``), cached in
``bench/out/corpus-<N>``, with their ground truth of exact and near duplicates.

lakemix runs in a fresh lakehouse per run (``LAKEMIX_HOME`` under ``--work``): ``lakemix ingest
<shards> --source bench --format jsonl``, ``dbt seed``, then the models upstream of
deduplication (``dbt run --select +int_documents_deduplicated --exclude
path:models/intermediate/deduplication``: staging, language ID, quality signals and filter) and
the dedup models alone (``dbt run --select path:models/intermediate/deduplication``:
int_documents_minhashed, int_content_pairs_verified, int_duplicate_edges,
int_documents_deduplicated), each with ``--vars '{lakemix_filter_families: []}'`` so that every
document reaches dedup. The dedup figures are those of the second ``dbt run`` (wall clock, dbt's
start-up included). Clusters are read from ``intermediate.int_documents_deduplicated``; a
lakemix ``document_id`` is mapped back to the corpus ``id`` by recomputing it
(``lakemix.ingest.run.document_id("bench", id, ...)``).

datatrove 0.10.1 (its own virtualenv, bench/_datatrove.py) runs FineWeb's four stages with
``LocalPipelineExecutor`` on the same documents: a JSONL reader + MinhashDedupSignature (one task
per CPU), MinhashDedupBuckets (14 tasks), MinhashDedupCluster (``save_cluster_id``), the reader +
MinhashDedupFilter + a writer of the kept ids (plain ``json``: datatrove's JsonlReader and
JsonlWriter need orjson, which its virtualenv lacks); ``MinhashConfig`` 5-grams, 14 buckets x 8
hashes, 64-bit xxhash, no verification of candidates. Its clusters come from the ``.clusters``
and ``.remove`` files. Above 100,000 documents it is not run (1M takes about 1.5 h on this
machine); 10x its 100k time is printed instead, marked as an extrapolation.

Both sides are pinned (``taskset``) to the same ``--cpus``; DuckDB gets one thread and datatrove
one worker per CPU. Before timing, a tiny run of each side (300 documents) warms numba's cache,
spaCy and the page cache. Peak RSS is the larger of the kernel's maximum for one process
(``wait4``) and the sampled sum over the process tree (every 0.1 s; datatrove's workers); the
samples falling inside a model's execution (dbt's run_results.json) give its largest RSS. CPU
seconds (user + system over the process tree) are printed beside wall clock, as the machine may
be shared. A dbt run that fails because DuckDB spilled to disk and dbt-duckdb then sets
temp_directory again on a new cursor is rerun with ``--full-refresh`` and a copy of
profiles.yml that sets it once, at connect; the failure is printed as a NOTE.

Quality. Ground-truth pairs are ``(duplicate, original)`` of kind exact_duplicate and
near_duplicate; recall is the fraction of pairs placed in one cluster, per band of their
ground-truth Jaccard (word 5-grams of ``text.lower().split()``, bench/corpus.py). A cluster of
n documents removes n - 1; a removed document is *correct at t* when it is in the same
ground-truth family as the document its cluster keeps (one is a copy of the other, or both are
copies of one original: any edited copy counts, whatever its Jaccard), or when its Jaccard to
the kept document (same definition) is at least t (texts that really are duplicates though not
generated as such, e.g. identical noise). Precision at t = correct removals / all removals.

Incremental (corpora of at most ``--incremental-max-docs``, 100,000 by default): a fresh
lakehouse ingests the first 90% of the documents, runs both phases, ingests the last 10%, and
the second run of both phases is timed against the full run; its clusters must equal the full
run's (same partition; the kept document may differ only because the first 90% were ingested
earlier).

Incremental only (``--incremental-only``, any size; the way to measure it at 1M): the first
90% of the corpus is ingested and built through the upstream models in
``<work>/<docs>/incremental-only`` (the slow part: about 20-40 minutes at 1M here), and that
lakehouse is copied aside (``home.base``) and, with ``--keep``, kept: a later run with the same
``--work`` reuses it (delete the folder after changing the upstream models). From that copy, the
dedup models are run on the 90%, the last 10% is ingested and run through the upstream models,
and the lakehouse is copied aside again (``home.pre``, in place, because Iceberg metadata holds
absolute paths). Then, ``--repeat`` times: the incremental dedup run (timed), a
``--full-refresh`` of the dedup models in the same lakehouse (timed), their clusters compared
(they must be identical, kept documents included), and ``home.pre`` put back. The ratio is the
incremental run's wall clock over the full refresh's, each dbt's start-up included.

Figures are also written to ``bench/out/dedup-results.json`` (``dedup-incremental-results.json``
for ``--incremental-only``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from corpus import cached_corpus, shards, text_jaccard
from lakemix import duck
from lakemix.ingest.run import document_id
from lakemix.settings import Settings
from lakemix.udf.jaccard import jaccard as lakemix_jaccard
from lakemix.udf.minhash import BANDS, ROWS, minhash_bands

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
BIN = ROOT / ".venv" / "bin"
SOURCE = "bench"
NO_FILTERS = "{lakemix_filter_families: []}"
DEDUP_MODELS = "path:models/intermediate/deduplication"
UPSTREAM = "+int_documents_deduplicated"
TEMP_DIRECTORY_ERROR = "Cannot switch temporary directory"
WARMUP_DOCS = 300
INCREMENTAL_MAX_DOCS = 100_000
INCREMENTAL_TAIL = 0.10
DATATROVE_MAX_DOCS = 100_000
DATATROVE_1M_HOURS = 1.5
SAMPLE_SECONDS = 0.1
PAGE = os.sysconf("SC_PAGE_SIZE")
GIB = 1 << 30
THRESHOLDS = (0.8, 0.7)
NEAR_BINS = ((0.9, 1.0), (0.8, 0.9), (0.7, 0.8), (0.6, 0.7), (0.5, 0.6), (0.0, 0.5))
GOALS = {"recall": 0.9, "precision": 0.95, "ratio": 12.0, "rss_gib": 8.0, "incremental": 0.25}

DATATROVE_SCRIPT = r"""
import json, sys, time
from pathlib import Path
from datatrove.data import Document
from datatrove.executor.local import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (
    MinhashConfig, MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter,
    MinhashDedupSignature,
)
from datatrove.utils.hashing import HashConfig

inputs, work, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
files = len(list(inputs.glob("*.jsonl")))
config = MinhashConfig(
    n_grams=5, num_buckets=14, hashes_per_bucket=8, hash_config=HashConfig(precision=64)
)

# JsonlReader and JsonlWriter need orjson, which this virtualenv does not have: plain json.
# The workers get these functions pickled, without this script's globals: all is passed in.
def read(data, rank=0, world_size=1, folder=str(inputs)):
    import json
    from datatrove.data import Document

    with open(f"{folder}/{rank:05d}.jsonl", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            yield Document(text=record["text"], id=record["id"])

def write(data, rank=0, world_size=1, folder=str(work / "kept")):
    import os

    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/{rank:05d}.ids", "w", encoding="utf-8") as f:
        for doc in data:
            f.write(doc.id + "\n")
    yield from ()

signatures, buckets, remove = (str(work / x) for x in ("signatures", "buckets", "remove_ids"))
stages = [
    ("1 signatures", [read, MinhashDedupSignature(signatures, config=config)], files),
    ("2 buckets", [MinhashDedupBuckets(signatures, buckets, config=config)], config.num_buckets),
    ("3 cluster", [MinhashDedupCluster(buckets, remove, config=config, save_cluster_id=True)], 1),
    ("4 filter", [read, MinhashDedupFilter(remove), write], files),
]
seconds = {}
for name, pipeline, tasks in stages:
    started = time.perf_counter()
    LocalPipelineExecutor(
        pipeline, tasks=tasks, workers=min(workers, tasks), skip_completed=False,
        logging_dir=str(work / "logs" / name.split()[1]),
    ).run()
    seconds[name] = time.perf_counter() - started
print(json.dumps(seconds))
"""


# Processes: time and peak memory ------------------------------------------------------------------


class CommandFailed(RuntimeError):
    """A command that exited with an error, with what it had measured until then."""

    def __init__(self, message: str, measured: Measured) -> None:
        super().__init__(message)
        self.measured = measured


@dataclass
class Measured:
    """Wall-clock seconds, CPU seconds (user + system) and peak RSS (bytes) of one command."""

    seconds: float
    cpu_seconds: float
    peak_rss: int

    process_rss: int = 0  # the kernel's maximum for one process of the tree (wait4)
    # the largest sampled sum over the tree of resident memory that is no file's pages
    # (statm's resident less shared): what a process allocated, not files it maps
    peak_anonymous: int = 0

    def __post_init__(self) -> None:
        self.timeline: list[tuple[float, int, int]] = []  # (epoch s, tree RSS, anonymous)


TICK = os.sysconf("SC_CLK_TCK")


def tree_usage(root: int) -> dict[int, tuple[int, int, float]]:
    """(resident bytes, of which anonymous, CPU seconds so far) of ``root`` and each of its
    descendants, from /proc (anonymous: statm's resident less shared, the pages that belong to
    no file)."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry.name))
    usage, stack = {}, [root]
    while stack:
        pid = stack.pop()
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            pages = Path(f"/proc/{pid}/statm").read_text().split()
            rss, shared = int(pages[1]) * PAGE, int(pages[2]) * PAGE
            usage[pid] = (rss, rss - shared, (int(fields[11]) + int(fields[12])) / TICK)
        stack.extend(children.get(pid, ()))
    return usage


def run_measured(cmd: list[str], *, env: dict[str, str], cpus: str, log: Path) -> Measured:
    """Run ``cmd`` pinned to ``cpus`` (output to ``log``); raise with the log's tail on failure.

    Peak RSS: the larger of the kernel's maximum for one process (``wait4``) and the largest
    sampled sum over the process tree. CPU seconds: the larger of ``wait4``'s and the sum of
    the last sample of every process of the tree (workers that the root never waits for).
    """
    peak = peak_anonymous = 0
    cpu: dict[int, float] = {}
    timeline: list[tuple[float, int, int]] = []  # (epoch seconds, tree RSS, anonymous)
    done = threading.Event()
    started = time.perf_counter()
    with log.open("ab") as out:
        out.write(f"$ {' '.join(cmd)}\n".encode())
        out.flush()
        proc = subprocess.Popen(
            ["taskset", "-c", cpus, *cmd], cwd=ROOT, env=env, stdout=out, stderr=out
        )

        def sample() -> None:
            nonlocal peak, peak_anonymous
            while not done.wait(SAMPLE_SECONDS):
                usage = tree_usage(proc.pid)
                rss = sum(rss for rss, _, _ in usage.values())
                anonymous = sum(anonymous for _, anonymous, _ in usage.values())
                timeline.append((time.time(), rss, anonymous))
                peak, peak_anonymous = max(peak, rss), max(peak_anonymous, anonymous)
                cpu.update({pid: seconds for pid, (_, _, seconds) in usage.items()})

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        done.set()
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu_seconds = max(usage.ru_utime + usage.ru_stime, sum(cpu.values()))
    measured = Measured(
        seconds,
        cpu_seconds,
        max(peak, usage.ru_maxrss * 1024),
        usage.ru_maxrss * 1024,
        peak_anonymous,
    )
    measured.timeline = timeline  # not a field: not written to the results file
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-40:]
        message = f"{cmd[0]} {cmd[1]} failed ({proc.returncode}):\n" + "\n".join(tail)
        raise CommandFailed(message, measured)
    return measured


# The corpus ---------------------------------------------------------------------------------------


def lines(corpus: Path) -> Iterator[bytes]:
    """The JSON lines of every shard, in order."""
    return json_lines(shards(corpus))


def json_lines(paths: list[Path]) -> Iterator[bytes]:
    """The lines of JSONL files, zstd-compressed (``.zst``, as the corpus's shards) or not, in
    order."""
    for path in paths:
        with path.open("rb") as raw:
            if path.suffix == ".zst":
                yield from io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
            else:
                yield from raw


def node_name(unique_id: str) -> str:
    """A dbt node's name in the bench's figures: a model, seed or snapshot by its name, another
    node as ``kind:name`` (a data test without the hash dbt appends to long names, a unit test
    as ``model.test``)."""
    kind, _, *rest = unique_id.split(".")
    if kind in ("model", "seed", "snapshot"):
        return rest[0]
    return f"{kind}:{'.'.join(rest) if kind == 'unit_test' else rest[0]}"


@dataclass
class Truth:
    """Ground truth, by corpus position."""

    ids: list[str]
    kinds: np.ndarray
    family: np.ndarray  # position of the original (for a copy) or of the document itself
    pairs: np.ndarray  # (duplicate, original) positions
    pair_jaccard: np.ndarray
    pair_exact: np.ndarray

    @classmethod
    def load(cls, corpus: Path) -> Truth:
        ids = [orjson.loads(line)["id"] for line in lines(corpus)]
        index = {doc_id: i for i, doc_id in enumerate(ids)}
        table = pq.read_table(corpus / "ground_truth.parquet").to_pydict()
        kinds = np.empty(len(ids), dtype=object)
        family = np.arange(len(ids))
        pairs, pair_jaccard, pair_exact = [], [], []
        for doc_id, kind, original, value in zip(
            table["id"], table["kind"], table["original_id"], table["jaccard"], strict=True
        ):
            i = index[doc_id]
            kinds[i] = kind
            if kind in ("exact_duplicate", "near_duplicate") and original in index:
                family[i] = index[original]
                pairs.append((i, index[original]))
                pair_jaccard.append(1.0 if kind == "exact_duplicate" else float(value))
                pair_exact.append(kind == "exact_duplicate")
        for i in range(len(ids)):  # follow chains, in case a copy is ever made of a copy
            while family[family[i]] != family[i]:
                family[i] = family[family[i]]
        return cls(
            ids, kinds, family, np.array(pairs).reshape(-1, 2), np.array(pair_jaccard),
            np.array(pair_exact),
        )  # fmt: skip


def fetch_texts(corpus: Path, wanted: set[int]) -> dict[int, str]:
    """Texts of the documents at the ``wanted`` positions."""
    texts = {}
    for i, line in enumerate(lines(corpus)):
        if i in wanted:
            texts[i] = orjson.loads(line)["text"]
    return texts


# lakemix ------------------------------------------------------------------------------------------


@dataclass
class Phase:
    """One ``dbt run``: wall clock, peak RSS and dbt's execution time per model."""

    seconds: float
    cpu_seconds: float
    peak_rss: int
    models: dict[str, float]
    model_rss: dict[str, int] = field(default_factory=dict)  # largest RSS sampled in each
    process_rss: int = 0  # the kernel's maximum for one process (wait4)
    # largest anonymous memory sampled in each (Measured.peak_anonymous), and in the whole run
    model_anonymous: dict[str, int] = field(default_factory=dict)
    peak_anonymous: int = 0


class Lakehouse:
    """A fresh lakehouse under ``work`` and the commands that run on it."""

    def __init__(self, work: Path, *, cpus: str, reuse: bool = False) -> None:
        if not reuse:
            shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True, exist_ok=True)
        self.work, self.cpus, self.log = work, cpus, work / "commands.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LAKEMIX_", "DBT_"))}
        threads = str(len(cpus.split(",")))
        self.env = env | {
            "LAKEMIX_HOME": str(work / "home"),
            "LAKEMIX_DUCKDB_THREADS": threads,
            "LAKEMIX_THREADS": threads,
            "DO_NOT_TRACK": "1",
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_PROFILES_DIR": str(ROOT),
            "DBT_TARGET_PATH": str(work / "target"),
            "DBT_LOG_PATH": str(work / "logs"),
        }
        self.notes: list[str] = []
        # Every document reaches dedup; bench/pipeline.py sets None: the project's own vars.
        self.dbt_vars: str | None = NO_FILTERS

    def ingest(self, paths: list[Path]) -> Measured:
        cmd = [str(BIN / "lakemix"), "ingest", *map(str, paths), "--source", SOURCE]
        return run_measured(
            [*cmd, "--format", "jsonl", "--no-progress"], env=self.env, cpus=self.cpus,
            log=self.log,
        )  # fmt: skip

    def dbt(self, *args: str, retry: bool = True) -> Phase:
        """A dbt command; a run that fails on TEMP_DIRECTORY_ERROR is rerun (see patch_profile)."""
        try:
            measured = run_measured(
                [str(BIN / "dbt"), *args, *(["--vars", self.dbt_vars] if self.dbt_vars else [])],
                env=self.env, cpus=self.cpus, log=self.log,
            )  # fmt: skip
        except CommandFailed as failure:
            patched = self.env["DBT_PROFILES_DIR"] != str(ROOT)
            if TEMP_DIRECTORY_ERROR not in str(failure) or not retry or patched:
                raise
            self.notes.append(
                f"dbt {' '.join(args)} FAILED after {failure.measured.seconds:,.0f} s (peak RSS "
                f"{gib(failure.measured.peak_rss)}) with the project's profiles.yml: DuckDB "
                f"spilled to temp_directory, then dbt-duckdb opened a new cursor and SET "
                f"temp_directory again, which DuckDB refuses ('{TEMP_DIRECTORY_ERROR} after the "
                f"current one has been used'). Rerun with --full-refresh and a copy of "
                f"profiles.yml that sets temp_directory once, at connect (config_options); the "
                f"figures are the rerun's."
            )
            print(f"  lakemix: {self.notes[-1]}", flush=True)
            self.patch_profile()
            return self.dbt(*args, "--full-refresh")
        results = json.loads((self.work / "target" / "run_results.json").read_text())["results"]
        phase = Phase(measured.seconds, measured.cpu_seconds, measured.peak_rss, {})
        phase.process_rss = measured.process_rss
        phase.peak_anonymous = measured.peak_anonymous
        for result in results:
            name = node_name(result["unique_id"])
            phase.models[name] = result["execution_time"]
            for step in result["timing"]:
                if step["name"] == "execute":
                    begin, end = (
                        datetime.fromisoformat(step[k]).timestamp()
                        for k in ("started_at", "completed_at")
                    )
                    during = [(r, a) for t, r, a in measured.timeline if begin <= t <= end]
                    phase.model_rss[name] = max((r for r, _ in during), default=0)
                    phase.model_anonymous[name] = max((a for _, a in during), default=0)
        return phase

    def patch_profile(self) -> None:
        """Use a copy of profiles.yml with temp_directory in config_options, not settings.

        dbt-duckdb runs the ``settings`` on every new cursor, and DuckDB 1.5 refuses to set
        temp_directory (even to the same folder) once a query has spilled to it.
        """
        import yaml

        profiles = yaml.safe_load((ROOT / "profiles.yml").read_text())
        output = profiles["lakemix"]["outputs"]["duckdb"]
        output["config_options"]["temp_directory"] = output["settings"].pop("temp_directory")
        folder = self.work / "profiles"
        folder.mkdir(exist_ok=True)
        (folder / "profiles.yml").write_text(yaml.safe_dump(profiles, sort_keys=False))
        self.env["DBT_PROFILES_DIR"] = str(folder)

    def build(self, *, retry: bool = True) -> dict[str, Phase]:
        """The models upstream of deduplication, then the dedup models alone.

        Args:
            retry: Rerun from scratch a run that fails on TEMP_DIRECTORY_ERROR (not for a
                timed incremental run, whose figures a full refresh would replace).
        """
        upstream = self.dbt("run", "--select", UPSTREAM, "--exclude", DEDUP_MODELS, retry=retry)
        dedup = self.dbt("run", "--select", DEDUP_MODELS, retry=retry)
        return {"upstream": upstream, "dedup": dedup}

    def clusters(self, truth: Truth) -> tuple[np.ndarray, dict[int, str]]:
        """Position of the document each document's cluster keeps, and the texts as the models
        saw them (normalized: int_documents_language_scored) of the missed ground-truth pairs."""
        settings = Settings.from_env(self.env)
        conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
        try:
            rows = conn.execute(
                "select document_id, kept_document_id from intermediate.int_documents_deduplicated"
            ).fetchall()
            index = {document_id(SOURCE, x, "", 0): i for i, x in enumerate(truth.ids)}
            kept = np.full(len(truth.ids), -1)
            for doc, keeper in rows:
                kept[index[doc]] = index[keeper]
            if (kept < 0).any():
                raise RuntimeError(f"{int((kept < 0).sum())} documents missing from the clusters")
            wanted = [truth.ids[i] for i in set(missed_pairs(truth, kept).ravel().tolist())]
            texts = conn.execute(
                "select document_id, text from intermediate.int_documents_language_scored "
                "where list_contains(?, document_id)",
                [[document_id(SOURCE, x, "", 0) for x in wanted]],
            ).fetchall()
        finally:
            conn.close()
        return kept, {index[doc]: text for doc, text in texts}


@dataclass
class LakemixRun:
    ingest: Measured
    phases: dict[str, Phase]
    incremental: dict[str, Phase] | None = None
    incremental_equal: bool | None = None
    incremental_kept_differs: int | None = None
    notes: list[str] = field(default_factory=list)


def warm_up_lakemix(corpus: Path, work: Path, cpus: str) -> None:
    """A tiny ingest and dbt run: numba's cache, the dbt and DuckDB start-up, the page cache."""
    lake = Lakehouse(work / "warmup", cpus=cpus)
    head = lake.work / "warmup.jsonl"
    with head.open("wb") as f:
        for i, line in enumerate(lines(corpus)):
            if i == WARMUP_DOCS:
                break
            f.write(line)
    lake.ingest([head])
    lake.dbt("seed")
    lake.build()


def run_lakemix(
    corpus: Path, truth: Truth, work: Path, cpus: str, *, incremental_max_docs: int
) -> tuple[LakemixRun, np.ndarray, dict[int, str]]:
    """The full run (its clusters and normalized texts returned), then the incremental one."""
    docs = len(truth.ids)
    lake = Lakehouse(work / "full", cpus=cpus)
    ingest = lake.ingest(shards(corpus))
    lake.dbt("seed")
    print(f"  lakemix: ingest {ingest.seconds:.0f} s, dbt run ...", flush=True)
    result = LakemixRun(ingest, lake.build())
    result.notes += lake.notes
    kept, normalized = lake.clusters(truth)
    print(f"  lakemix: dedup models {result.phases['dedup'].seconds:.0f} s", flush=True)
    if docs > incremental_max_docs:
        return result, kept, normalized
    lake = Lakehouse(work / "incremental", cpus=cpus)
    head, tail = write_head_and_tail(corpus, lake.work, docs - round(docs * INCREMENTAL_TAIL))
    lake.ingest([head])
    lake.dbt("seed")
    lake.build()
    lake.ingest([tail])
    result.incremental = lake.build(retry=False)
    result.notes += [f"incremental lakehouse: {note}" for note in lake.notes]
    again, _ = lake.clusters(truth)
    result.incremental_equal = bool((partition(again) == partition(kept)).all())
    result.incremental_kept_differs = int((again != kept).sum())
    print(f"  lakemix: incremental {result.incremental['dedup'].seconds:.0f} s", flush=True)
    return result, kept, normalized


def write_head_and_tail(corpus: Path, work: Path, split: int) -> tuple[Path, Path]:
    """``work/head.jsonl`` (the first ``split`` documents) and ``work/tail.jsonl`` (the rest)."""
    head, tail = work / "head.jsonl", work / "tail.jsonl"
    with head.open("wb") as h, tail.open("wb") as t:
        for i, line in enumerate(lines(corpus)):
            (h if i < split else t).write(line)
    return head, tail


def partition(kept: np.ndarray) -> np.ndarray:
    """Canonical cluster label of every document: the smallest position in its cluster."""
    smallest: dict[int, int] = {}
    for i, k in enumerate(kept.tolist()):
        smallest.setdefault(k, i)
    return np.array([smallest[k] for k in kept.tolist()])


def _copy_home(lake: Lakehouse, source: str, target: str) -> None:
    """Replace ``<work>/<target>`` by a copy of ``<work>/<source>`` (``cp -a``: fast, exact).

    Then ``sync``: otherwise the kernel writes the copy (gigabytes at 1M) back to disk during
    the next, timed command.
    """
    shutil.rmtree(lake.work / target, ignore_errors=True)
    subprocess.run(["cp", "-a", str(lake.work / source), str(lake.work / target)], check=True)
    os.sync()


@dataclass
class IncrementalRun:
    """``--incremental-only``: the timed dedup runs, each incremental one then its full refresh."""

    docs: int
    head_dedup: Phase
    tail_upstream: Phase
    incremental: list[Phase] = field(default_factory=list)
    full: list[Phase] = field(default_factory=list)
    identical: list[bool] = field(default_factory=list)
    base_seconds: float | None = None  # building the 90% through upstream; None when reused
    notes: list[str] = field(default_factory=list)


def run_incremental_only(
    corpus: Path, truth: Truth, work: Path, cpus: str, *, repeat: int
) -> IncrementalRun:
    """The incremental dedup run against a full refresh, in one lakehouse (module docstring)."""
    docs = len(truth.ids)
    split = docs - round(docs * INCREMENTAL_TAIL)
    marker = work / "BASE"
    expected = f"{corpus.name} {split}\n"
    reuse = marker.is_file() and marker.read_text() == expected and (work / "home.base").is_dir()
    lake = Lakehouse(work, cpus=cpus, reuse=reuse)
    base_seconds = None
    if reuse:
        print(f"  lakemix: reusing {work / 'home.base'} ({split:,} documents built)", flush=True)
        _copy_home(lake, "home.base", "home")
    else:
        started = time.perf_counter()
        head, _ = write_head_and_tail(corpus, lake.work, split)
        lake.ingest([head])
        lake.dbt("seed")
        print(f"  lakemix: {split:,} documents through the upstream models ...", flush=True)
        lake.dbt("run", "--select", UPSTREAM, "--exclude", DEDUP_MODELS)
        _copy_home(lake, "home", "home.base")
        marker.write_text(expected)
        base_seconds = time.perf_counter() - started
    head_dedup = lake.dbt("run", "--select", DEDUP_MODELS)
    lake.ingest([lake.work / "tail.jsonl"])
    tail_upstream = lake.dbt("run", "--select", UPSTREAM, "--exclude", DEDUP_MODELS)
    _copy_home(lake, "home", "home.pre")
    result = IncrementalRun(docs, head_dedup, tail_upstream, base_seconds=base_seconds)
    for n in range(repeat):
        if n:
            _copy_home(lake, "home.pre", "home")
        result.incremental.append(lake.dbt("run", "--select", DEDUP_MODELS, retry=False))
        incremental, _ = lake.clusters(truth)
        result.full.append(lake.dbt("run", "--select", DEDUP_MODELS, "--full-refresh"))
        full, _ = lake.clusters(truth)
        result.identical.append(bool((incremental == full).all()))
        inc, ful = result.incremental[-1], result.full[-1]
        print(
            f"  lakemix: incremental {inc.seconds:.1f} s, full refresh {ful.seconds:.1f} s "
            f"({inc.seconds / ful.seconds:.1%}); clusters identical: {result.identical[-1]}",
            flush=True,
        )
    result.notes = lake.notes
    return result


def print_incremental_only(run: IncrementalRun) -> None:
    tail = round(run.docs * INCREMENTAL_TAIL)
    print(
        f"\nIncremental at {run.docs:,}: {run.docs - tail:,} documents built (dedup models "
        f"{run.head_dedup.seconds:,.1f} s), {tail:,} more ingested and through the upstream "
        f"models ({run.tail_upstream.seconds:,.1f} s); then the dedup models' incremental run "
        f"against a --full-refresh of them in the same lakehouse "
        f"(goal: incremental < {GOALS['incremental']:.0%} of full)"
    )
    models = [m for m in run.full[0].models if m.startswith("int_")] if run.full else []
    rows = []
    for n, (inc, full) in enumerate(zip(run.incremental, run.full, strict=True)):
        label = f"run {n + 1}"
        rows.append(
            [
                f"{label}: dbt run, wall / CPU s",
                f"{inc.seconds:,.1f} / {inc.cpu_seconds:,.1f}",
                f"{full.seconds:,.1f} / {full.cpu_seconds:,.1f}",
                f"{inc.seconds / full.seconds:.1%} / {inc.cpu_seconds / full.cpu_seconds:.1%}",
            ]
        )
        inside = (sum(p.models.get(m, 0) for m in models) for p in (inc, full))
        a, b = inside
        rows.append([f"{label}: the four models, s", f"{a:,.1f}", f"{b:,.1f}", f"{a / b:.1%}"])
        for m in models:
            x, y = inc.models.get(m, 0), full.models.get(m, 0)
            rows.append([f"  {m}", f"{x:,.1f}", f"{y:,.1f}", pct(x / y) if y else "-"])
        rows.append(
            [
                f"{label}: outside the models (start-up)",
                f"{inc.seconds - a:,.1f}",
                f"{full.seconds - b:,.1f}",
                "",
            ]
        )
    table(["lakemix", "incremental", "full refresh", "ratio"], rows)
    same = "yes" if run.identical and all(run.identical) else "NO"
    print(f"clusters (and kept documents) identical to the full refresh's: {same}")
    if run.base_seconds is not None:
        print(f"building the first {run.docs - tail:,} documents took {run.base_seconds:,.0f} s")


# datatrove ----------------------------------------------------------------------------------------


@dataclass
class DatatroveRun:
    stages: dict[str, float]
    seconds: float
    cpu_seconds: float
    peak_rss: int


def run_datatrove(
    corpus: Path, docs: int, work: Path, python: Path, cpus: str, limit: int | None = None
) -> tuple[DatatroveRun, np.ndarray]:
    """datatrove's four MinHash stages on the corpus (or its first ``limit`` documents)."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "input").mkdir(parents=True)
    count = min(docs, limit or docs)
    files = len(cpus.split(","))
    bounds = [count * r // files for r in range(files + 1)]
    positions: list[list[int]] = [[] for _ in range(files)]
    outs = [(work / "input" / f"{r:05d}.jsonl").open("wb") for r in range(files)]
    for i, line in enumerate(lines(corpus)):
        if i == count:
            break
        record = orjson.loads(line)
        if record["text"]:  # datatrove's reader skips documents without text
            r = int(np.searchsorted(bounds, i, side="right")) - 1
            positions[r].append(i)
            outs[r].write(orjson.dumps({"id": record["id"], "text": record["text"]}) + b"\n")
    for out in outs:
        out.close()
    log = work / "datatrove.log"
    cmd = [str(python), "-c", DATATROVE_SCRIPT, str(work / "input"), str(work), str(files)]
    measured = run_measured(cmd, env=dict(os.environ), cpus=cpus, log=log)
    stages = json.loads(log.read_text().strip().splitlines()[-1])
    kept = np.arange(count)
    members: dict[int, list[int]] = defaultdict(list)
    removed = set()
    for r in range(files):
        pos = np.array(positions[r])
        path = work / "remove_ids" / f"{r:06d}.remove"
        if path.is_file():
            removed.update(pos[np.fromfile(path, dtype="<u4")].tolist())
        path = work / "remove_ids" / f"{r:06d}.clusters"
        if path.is_file():
            pairs = np.fromfile(path, dtype="<u4").reshape(-1, 2)
            for doc, cluster in zip(pos[pairs[:, 0]].tolist(), pairs[:, 1].tolist(), strict=True):
                members[cluster].append(doc)
    for cluster in members.values():
        keepers = [d for d in cluster if d not in removed]
        if len(keepers) != 1:
            raise RuntimeError(f"datatrove cluster of {len(cluster)} keeps {len(keepers)}")
        kept[cluster] = keepers[0]
    written = sum(1 for p in (work / "kept").glob("*.ids") for _ in p.open("rb"))
    if written != count - len(removed):
        raise RuntimeError(f"datatrove kept {written}, expected {count - len(removed)}")
    return DatatroveRun(stages, measured.seconds, measured.cpu_seconds, measured.peak_rss), kept


# Quality ------------------------------------------------------------------------------------------


@dataclass
class Quality:
    """Recall per Jaccard band and precision of the removals, for one system."""

    name: str
    recall: dict[str, tuple[int, int]] = field(default_factory=dict)
    removed: int = 0
    same_family: int = 0
    similar: dict[float, int] = field(default_factory=dict)  # other family, Jaccard >= t
    false_kinds: Counter[str] = field(default_factory=Counter)
    false_examples: list[tuple[str, str, float]] = field(default_factory=list)
    missed: Counter[str] = field(default_factory=Counter)

    def precision(self, t: float) -> float:
        correct = self.same_family + self.similar[t]
        return correct / self.removed if self.removed else float("nan")

    def recall_at(self, label: str) -> float:
        hit, count = self.recall[label]
        return hit / count if count else float("nan")


def recall_rows(truth: Truth) -> list[tuple[str, np.ndarray]]:
    """(label, mask over the ground-truth pairs) for every band and the cumulative rows."""
    j, exact = truth.pair_jaccard, truth.pair_exact
    rows = [("exact duplicates (1.0)", exact)]
    for low, high in NEAR_BINS:
        rows.append((f"near {low:.1f}-{high:.1f}", ~exact & (j >= low) & (j < high)))
    for t in THRESHOLDS:
        rows.append((f"all pairs >= {t}", j >= t))
    return rows


def quality(
    name: str,
    kept: np.ndarray,
    truth: Truth,
    texts: dict[int, str],
    normalized: dict[int, str] | None = None,
) -> Quality:
    """Recall and precision of one system's clusters (``kept``: position kept per document).

    With ``normalized`` (lakemix's texts of the missed pairs), the misses are explained.
    """
    n = len(kept)
    q = Quality(name)
    inside = (truth.pairs < n).all(axis=1)
    pairs = truth.pairs[inside]
    together = kept[pairs[:, 0]] == kept[pairs[:, 1]]
    for label, mask in recall_rows(truth):
        mask = mask[inside]
        q.recall[label] = (int(together[mask].sum()), int(mask.sum()))
    removed = np.flatnonzero(kept != np.arange(n))
    q.removed = len(removed)
    family = truth.family[:n]
    same = family[removed] == family[kept[removed]]
    q.same_family = int(same.sum())
    q.similar = dict.fromkeys(THRESHOLDS, 0)
    for i in removed[~same].tolist():
        k = int(kept[i])
        value = _corpus_jaccard(texts[i], texts[k])
        for t in THRESHOLDS:
            q.similar[t] += value >= t
        if value < max(THRESHOLDS):
            q.false_kinds[f"{truth.kinds[i]} ~ {truth.kinds[k]}"] += 1
            if len(q.false_examples) < 5:
                q.false_examples.append((truth.ids[i], truth.ids[k], value))
    for a, b in missed_pairs(truth, kept).tolist():
        why = _why_missed(normalized[a], normalized[b]) if normalized else "not clustered"
        q.missed[why] += 1
    return q


def missed_pairs(truth: Truth, kept: np.ndarray) -> np.ndarray:
    """Ground-truth pairs at Jaccard >= 0.8 left in two clusters."""
    inside = (truth.pairs < len(kept)).all(axis=1)
    pairs = truth.pairs[inside]
    missed = kept[pairs[:, 0]] != kept[pairs[:, 1]]
    return pairs[missed & (truth.pair_jaccard[inside] >= max(THRESHOLDS))]


def _corpus_jaccard(a: str, b: str) -> float:
    return float(text_jaccard(a, b))


def _why_missed(a: str, b: str) -> str:
    """Why lakemix left a pair apart: no shared LSH band key, or its own Jaccard too low.

    ``a`` and ``b`` are the normalized texts the models saw; lakemix's words are runs of
    letters, marks and digits, the corpus's are ``str.split()`` pieces, so their Jaccards differ.
    """
    keys = minhash_bands(pa.array([a, b], type=pa.string())).to_pylist()
    if not set(keys[0] or ()) & set(keys[1] or ()):
        return "no shared band key (LSH miss)"
    if lakemix_jaccard(a, b) < max(THRESHOLDS):
        return f"shared key, but lakemix's Jaccard < {max(THRESHOLDS)}"
    return f"shared key and lakemix's Jaccard >= {max(THRESHOLDS)}, yet apart (bug?)"


def texts_needed(truth: Truth, kepts: list[np.ndarray]) -> set[int]:
    """Documents whose text the quality figures need: off-family removals, missed pairs."""
    wanted: set[int] = set()
    for kept in kepts:
        n = len(kept)
        removed = np.flatnonzero(kept != np.arange(n))
        other = removed[truth.family[removed] != truth.family[kept[removed]]]
        wanted.update(other.tolist(), kept[other].tolist())
        wanted.update(missed_pairs(truth, kept).ravel().tolist())
    return wanted


# Printing -----------------------------------------------------------------------------------------


def gib(n: int) -> str:
    return f"{n / GIB:.2f} GiB"


def _gib_or_dash(n: int) -> str:
    """``n`` bytes in GiB, or a dash when nothing was sampled (a model shorter than a sample)."""
    return f"{n / GIB:4.1f} GiB" if n else "   -    "


def pct(x: float) -> str:
    return "-" if x != x else f"{x:.1%}"


def table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]
    line = "  ".join(
        f"{h:<{widths[0]}}" if c == 0 else f"{h:>{widths[c]}}" for c, h in enumerate(header)
    )
    print(line)
    print("-" * len(line))
    for row in rows:
        print(
            "  ".join(
                f"{v:<{widths[0]}}" if c == 0 else f"{v:>{widths[c]}}" for c, v in enumerate(row)
            )
        )


def print_quality(docs: int, truth: Truth, reports: list[Quality]) -> None:
    names = [q.name for q in reports]
    print(f"\nQuality at {docs:,} documents: recall (pairs placed in one cluster)")
    rows = []
    for label, mask in recall_rows(truth):
        j = truth.pair_jaccard[mask]
        expected = float(np.mean(1 - (1 - j**ROWS) ** BANDS)) if len(j) else float("nan")
        cells = [f"{q.recall[label][0]:,} ({pct(q.recall_at(label))})" for q in reports]
        rows.append([label, f"{int(mask.sum()):,}", *cells, pct(expected)])
    table(["ground-truth pairs", "pairs", *names, "LSH P(candidate)"], rows)

    print("\nPrecision of the removals (n - 1 per cluster of n)")
    rows = [["documents removed", *(f"{q.removed:,}" for q in reports)]]
    rows.append(["  same family as the kept one", *(f"{q.same_family:,}" for q in reports)])
    for t in THRESHOLDS:
        rows.append([f"  other family, Jaccard >= {t}", *(f"{q.similar[t]:,}" for q in reports)])
    for t in THRESHOLDS:
        rows.append([f"precision at {t}", *(pct(q.precision(t)) for q in reports)])
    table(["", *names], rows)

    print("\nSide by side (goals: lakemix recall >= 0.9 and precision >= 0.95 at 0.8)")
    rows = []
    for t in THRESHOLDS:
        rows.append(
            [f"recall at >= {t}", *(pct(q.recall_at(f"all pairs >= {t}")) for q in reports)]
        )
        rows.append([f"precision at {t}", *(pct(q.precision(t)) for q in reports)])
    table(["", *names], rows)
    for q in reports:
        if q.missed:
            why = ", ".join(f"{k}: {v:,}" for k, v in q.missed.most_common())
            print(f"{q.name}: missed pairs at >= {max(THRESHOLDS)}: {why}")
        if q.false_kinds:
            kinds = ", ".join(f"{k} {v:,}" for k, v in q.false_kinds.most_common())
            print(f"{q.name}: false removals (removed ~ kept kind): {kinds}")
            for a, b, value in q.false_examples[:3]:
                print(f"    e.g. {a} removed, {b} kept, Jaccard {value:.2f}")


def print_scale(results: dict[int, dict[str, Any]]) -> None:
    print(
        "\nScale: the dedup models (lakemix: the second dbt run, without ingest and upstream "
        "models; datatrove: its four stages). wall s / CPU s (user + system, all processes)"
    )
    rows = []
    for docs, r in sorted(results.items()):
        dedup = r["lakemix"].phases["dedup"]
        upstream = r["lakemix"].phases["upstream"]
        dt = r.get("datatrove")
        if dt is not None:
            cells = [
                f"{dt.seconds:,.1f} / {dt.cpu_seconds:,.1f}",
                f"{docs / dt.seconds:,.0f}",
                gib(dt.peak_rss),
            ]
        elif "datatrove_100k" in r:
            est = r["datatrove_100k"].seconds * docs / 100_000
            cells = [f"~{est:,.0f} (10x 100k, extrapolated)", "not run", "-"]
        else:
            cells = ["not run", "-", "-"]
        rows.append(
            [
                f"{docs:,}" + (" *" if r["lakemix"].notes else ""),
                f"{dedup.seconds:,.1f} / {dedup.cpu_seconds:,.1f}",
                f"{docs / dedup.seconds:,.0f}",
                gib(dedup.peak_rss),
                f"{upstream.seconds:,.1f} / {gib(upstream.peak_rss)}",
                *cells,
            ]
        )
    table(
        ["documents", "lakemix dedup s", "docs/s", "peak RSS", "upstream s / RSS",
         "datatrove s", "docs/s", "peak RSS"],
        rows,
    )  # fmt: skip
    if any(r["lakemix"].notes for r in results.values()):
        print("* a dbt run failed with the project's profiles.yml and was rerun: see NOTE above")
    sizes = sorted(results)
    for small, large in itertools.pairwise(sizes):
        a = results[small]["lakemix"].phases["dedup"]
        b = results[large]["lakemix"].phases["dedup"]
        print(
            f"lakemix dedup {large:,}/{small:,} ({large / small:.0f}x documents): time ratio "
            f"{b.seconds / a.seconds:.1f} wall, {b.cpu_seconds / a.cpu_seconds:.1f} CPU "
            f"(goal < {GOALS['ratio']:.0f} for 1M/100k); peak RSS at {large:,} {gib(b.peak_rss)} "
            f"(goal < {GOALS['rss_gib']:.0f} GiB)"
        )
    print("\nlakemix per model: dbt execution time and the largest RSS sampled while it ran")
    models = list(  # in the order dbt ran them
        dict.fromkeys(
            m
            for phase in ("upstream", "dedup")
            for r in results.values()
            for m in r["lakemix"].phases[phase].models
        )
    )
    header = [f"{d:,}" for d in sizes]
    incremental = [d for d in sizes if results[d]["lakemix"].incremental]
    header += [f"{d:,} incremental" for d in incremental]
    runs = [results[d]["lakemix"].phases for d in sizes]
    runs += [results[d]["lakemix"].incremental for d in incremental]
    rows = []
    for m in models:
        phase = "dedup" if any(m in r["dedup"].models for r in runs) else "upstream"
        cells = (
            f"{r[phase].models.get(m, 0):,.1f} s {_gib_or_dash(r[phase].model_rss.get(m, 0))}"
            for r in runs
        )
        rows.append([f"{m} ({phase})", *cells])
    for phase in ("upstream", "dedup"):
        wall = (f"{r[phase].seconds:,.1f} s {r[phase].peak_rss / GIB:4.1f} GiB" for r in runs)
        rows.append([f"{phase} dbt run: wall clock, peak RSS", *wall])
        outside = (f"{r[phase].seconds - sum(r[phase].models.values()):,.1f} s" for r in runs)
        rows.append(["  outside the models (dbt start-up, parse, views)", *outside])
    table(["model", *header], rows)
    for docs in sizes:
        dt = results[docs].get("datatrove")
        if dt is not None:
            stages = ", ".join(f"{k} {v:,.1f} s" for k, v in dt.stages.items())
            print(f"datatrove stages at {docs:,}: {stages}")


def print_incremental(docs: int, run: LakemixRun) -> None:
    assert run.incremental is not None
    tail = round(docs * INCREMENTAL_TAIL)
    print(
        f"\nIncremental at {docs:,}: {docs - tail:,} documents built, then {tail:,} more "
        f"ingested and the models rerun (goal: dedup < {GOALS['incremental']:.0%} of full)"
    )
    rows = []
    phases = [(f"{name} models", [name]) for name in ("dedup", "upstream")]
    for label, names in [*phases, ("both", ["dedup", "upstream"])]:
        full = [run.phases[n] for n in names]
        inc = [run.incremental[n] for n in names]
        wall = (sum(p.seconds for p in full), sum(p.seconds for p in inc))
        cpu = (sum(p.cpu_seconds for p in full), sum(p.cpu_seconds for p in inc))
        rows.append(
            [
                label,
                f"{wall[0]:,.1f} / {cpu[0]:,.1f}",
                f"{wall[1]:,.1f} / {cpu[1]:,.1f}",
                pct(wall[1] / wall[0]),
                pct(cpu[1] / cpu[0]),
            ]
        )
    table(["lakemix", "full wall / CPU s", "incremental", "wall ratio", "CPU ratio"], rows)
    print(
        f"clusters equal to the full run's: {'yes' if run.incremental_equal else 'NO'} "
        f"(kept document differs for {run.incremental_kept_differs:,} documents: the first "
        f"{docs - tail:,} were ingested earlier, and a cluster keeps its earliest ingested)"
    )
    print("datatrove: no incremental mode that gives the same clusters; it reruns everything.")


def plain(value: Any) -> Any:
    """``value`` as JSON-ready dicts and lists (``asdict`` would mangle the Counters)."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


# Main ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[100_000], help="corpus sizes")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--cpus", default="0,1", help="CPUs both sides are pinned to")
    parser.add_argument(
        "--datatrove-python",
        type=Path,
        help="datatrove's interpreter (default: bench/out/venv-datatrove, created if missing)",
    )
    parser.add_argument(
        "--incremental-max-docs",
        type=int,
        default=INCREMENTAL_MAX_DOCS,
        help=f"run the incremental case up to this corpus size (default {INCREMENTAL_MAX_DOCS:,})",
    )
    parser.add_argument(
        "--incremental-only",
        action="store_true",
        help="only the incremental case, at every --docs size, against a --full-refresh in the "
        "same lakehouse; with --keep its 90%% base is kept in --work and reused",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="--incremental-only: timed pairs of runs (default 1)"
    )
    parser.add_argument("--work", type=Path, default=OUT / "dedup-work", help="scratch folder")
    parser.add_argument("--keep", action="store_true", help="keep the lakehouses in --work")
    args = parser.parse_args(argv)
    if args.incremental_only:
        incremental_only(args)
        return

    if args.datatrove_python is None:
        from _datatrove import VENV, ensure_venv

        try:
            args.datatrove_python = ensure_venv()
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"datatrove: cannot create {VENV} ({error})")
            args.datatrove_python = VENV / "bin" / "python"
    have_datatrove = args.datatrove_python.is_file()
    print(
        f"bench/dedup: CPUs {args.cpus}, load average {os.getloadavg()[0]:.2f}; "
        f"datatrove: {args.datatrove_python if have_datatrove else 'not found, skipped'}",
        flush=True,
    )
    corpora = {docs: cached_corpus(docs, args.seed) for docs in sorted(args.docs)}
    first = corpora[min(corpora)]
    started = time.perf_counter()
    warm_up_lakemix(first, args.work, args.cpus)
    if have_datatrove:
        run_datatrove(
            first, WARMUP_DOCS, args.work / "datatrove-warmup", args.datatrove_python, args.cpus
        )
    print(f"warm-up: {time.perf_counter() - started:.0f} s", flush=True)

    results: dict[int, dict[str, Any]] = {}
    for docs, corpus in corpora.items():
        print(f"\n{docs:,} documents ({corpus}):", flush=True)
        truth = Truth.load(corpus)
        work = args.work / str(docs)
        run, lakemix_kept, normalized = run_lakemix(
            corpus, truth, work, args.cpus, incremental_max_docs=args.incremental_max_docs
        )
        results[docs] = {"lakemix": run}
        kepts = [lakemix_kept]
        if have_datatrove and docs <= DATATROVE_MAX_DOCS:
            print("  datatrove ...", flush=True)
            dt, dt_kept = run_datatrove(
                corpus, docs, work / "datatrove", args.datatrove_python, args.cpus
            )
            results[docs]["datatrove"] = dt
            kepts.append(dt_kept)
            print(f"  datatrove: {dt.seconds:.0f} s", flush=True)
        elif 100_000 in results and "datatrove" in results[100_000]:
            results[docs]["datatrove_100k"] = results[100_000]["datatrove"]
        texts = fetch_texts(corpus, texts_needed(truth, kepts))
        reports = [quality("lakemix", lakemix_kept, truth, texts, normalized)]
        if len(kepts) > 1:
            reports.append(quality("datatrove", kepts[1], truth, texts))
        results[docs]["quality"] = reports
        print_quality(docs, truth, reports)
        if run.incremental:
            print_incremental(docs, run)
        for note in run.notes:
            print(f"NOTE lakemix at {docs:,}: {note}")
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_scale(results)
    if any(d > DATATROVE_MAX_DOCS for d in results):
        print(
            f"datatrove is not run above {DATATROVE_MAX_DOCS:,} documents (1M takes about "
            f"{DATATROVE_1M_HOURS} h here); the extrapolated figure is 10x its 100k time."
        )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    record = plain(results)
    (OUT / "dedup-results.json").write_text(json.dumps(record, indent=2, default=str) + "\n")
    if not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)


def incremental_only(args: argparse.Namespace) -> None:
    """``--incremental-only``: see the module docstring."""
    print(
        f"bench/dedup --incremental-only: CPUs {args.cpus}, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results = {}
    for docs in sorted(args.docs):
        corpus = cached_corpus(docs, args.seed)
        print(f"\n{docs:,} documents ({corpus}):", flush=True)
        truth = Truth.load(corpus)
        work = args.work / str(docs) / "incremental-only"
        run = run_incremental_only(corpus, truth, work, args.cpus, repeat=args.repeat)
        results[docs] = run
        print_incremental_only(run)
        for note in run.notes:
            print(f"NOTE lakemix at {docs:,}: {note}")
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:  # the base is what is reused; the rest is rebuilt from it
            for name in ("home", "home.pre"):
                shutil.rmtree(work / name, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    record = plain(results)
    (OUT / "dedup-incremental-results.json").write_text(
        json.dumps(record, indent=2, default=str) + "\n"
    )


if __name__ == "__main__":
    main()
