"""bench/mix: time to plan and to materialize a training mix, against the cleaning layer's time.

Usage: .venv/bin/python bench/mix.py [--docs 100000] [--seed 0] [--keep]

Corpus: ``bench/corpus.py`` (``build_corpus(out, docs=N, seed)``), cached in
``bench/out/corpus-<N>``. Lakehouse: a fresh temporary ``LAKEMIX_HOME`` (other ``LAKEMIX_*``
variables cleared; DuckDB gets its default 2 threads), ``DO_NOT_TRACK=1``, ``DBT_TARGET_PATH``
and ``DBT_LOG_PATH`` inside it, every command run from the project root:

1. ``lakemix ingest <shards> --source bench --format jsonl`` (timed, not in the ratios);
2. ``dbt build --select +int_documents_quality_filtered --indirect-selection cautious``: the
   cleaning layer (staging, language ID, quality signals, filter, their seeds and tests), the
   reference of every ratio below. ``cautious`` keeps out the one test that also reads the marts
   (assert_every_document_clean_or_rejected), which would fail before they exist;
3. ``dbt build --exclude +int_documents_quality_filtered --indirect-selection cautious``: the
   rest (dedup, PII, tokens, marts, and that test). Steps 2 and 3 select every node once.

Then two mixes over all languages, a token budget of half the clean tokens (cl100k), seed 17,
validation_fraction 0.01: temperature sampling (alpha 0.3) and UniMax (at most 4 epochs). Their
YAML files go to a ``mixes/`` folder inside the temporary lakehouse (never the project's
``mixes/``, which ``lakemix mix`` reads), and they go through the Python API that ``lakemix mix
build`` uses: *plan* = ``available_tokens`` + ``make_plan`` (what ``lakemix mix plan`` does,
without the process start-up); *materialize* = ``write_plan`` (one Iceberg commit to
meta.mix_plans) + ``build`` (``dbt build --select stg_meta__mix_plans+`` with the var
lakemix_mix: marts.mix_<name>, marts.mix_<name>_languages and their tests). Each is printed in
seconds and as a fraction of the cleaning layer's wall time in this run (goal: under 20%).

The realized-against-target table of each mix is read from marts.mix_<name>_languages through
``lakemix.duck.connect(<home>/lakemix.duckdb, read_only=True)``; |diff| is |realized share -
feasible share| in percentage points, and "grain" is the share one copy of the language's
largest clean document takes (documents are atomic; the dbt test allows the larger of 0.5
points and that).

The machine has 2 shared cores and other jobs may run: compare the ratios, which are measured
in the same invocation, rather than the seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from corpus import cached_corpus

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
BIN = Path(sys.executable).parent
SEED = 17
GOAL = 0.20
CLEANING = "+int_documents_quality_filtered"


@dataclass
class Step:
    """Wall seconds of one command and dbt's per-node execution times, if any."""

    seconds: float
    nodes: dict[str, float]


@contextlib.contextmanager
def output_to(log: Path) -> Iterator[None]:
    """Send this process's (and its children's) stdout and stderr to ``log``."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with log.open("ab") as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


class Lakehouse:
    """A temporary LAKEMIX_HOME, made this process's environment (``build`` reads os.environ)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.log = home / "commands.log"
        for key in [k for k in os.environ if k.startswith("LAKEMIX_")]:
            del os.environ[key]
        os.environ.update(
            {
                "LAKEMIX_HOME": str(home),
                "DO_NOT_TRACK": "1",
                "DBT_TARGET_PATH": str(home / "target"),
                "DBT_LOG_PATH": str(home / "logs"),
            }
        )
        os.chdir(ROOT)  # project_root(): dbt_project.yml

    def fail(self, what: str) -> SystemExit:
        tail = self.log.read_text(errors="replace")[-4000:]
        return SystemExit(f"{what} failed; the end of {self.log}:\n{tail}")

    def run(self, *cmd: str) -> float:
        with self.log.open("ab") as log:
            log.write(f"\n$ {' '.join(cmd)}\n".encode())
            log.flush()
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=log, check=False)
            seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise self.fail(" ".join(cmd))
        return seconds

    def nodes(self) -> dict[str, float]:
        """execution_time of each node of the last dbt invocation (run_results.json)."""
        results = json.loads((self.home / "target" / "run_results.json").read_text())
        return {r["unique_id"]: r["execution_time"] for r in results["results"]}

    def ingest(self, corpus: Path) -> float:
        files = [str(p) for p in sorted(corpus.glob("part-*.jsonl.zst"))]
        return self.run(
            str(BIN / "lakemix"), "ingest", *files, "--source", "bench", "--format", "jsonl",
            "--no-progress",
        )  # fmt: skip

    def dbt_build(self, *args: str) -> Step:
        seconds = self.run(str(BIN / "dbt"), "build", "--indirect-selection", "cautious", *args)
        return Step(seconds, self.nodes())

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        from lakemix import duck

        conn = duck.connect(self.home / "lakemix.duckdb", read_only=True)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()  # before dbt writes to the file again


def mix_definitions(budget: int) -> list[dict[str, Any]]:
    common = {
        "token_budget": budget,
        "languages": "all",
        "validation_fraction": 0.01,
        "seed": SEED,
        "tokenizer": "cl100k",
    }
    return [
        {
            "name": "bench_temperature",
            "description": "bench/mix.py: temperature sampling, alpha 0.3, half the clean tokens",
            "strategy": {"kind": "temperature", "alpha": 0.3},
            **common,
        },
        {
            "name": "bench_unimax",
            "description": "bench/mix.py: UniMax, at most 4 epochs, half the clean tokens",
            "strategy": {"kind": "unimax", "max_epochs": 4},
            **common,
        },
    ]


@dataclass
class MixRun:
    name: str
    strategy: str
    plan: float  # available_tokens + make_plan
    write: float  # write_plan
    build: float  # build (dbt)
    build_nodes: dict[str, float]
    planned_tokens: float
    rows: list[tuple[Any, ...]]

    @property
    def materialize(self) -> float:
        return self.write + self.build


def run_mix(house: Lakehouse, raw: dict[str, Any], folder: Path) -> MixRun:
    from lakemix.mix.lakehouse import available_tokens, build, write_plan
    from lakemix.mix.plan import make_plan
    from lakemix.mix.spec import parse

    path = folder / f"{raw['name']}.yml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    spec = parse(yaml.safe_load(path.read_text()), str(path))

    start = time.perf_counter()
    plan = make_plan(spec, available_tokens(spec))
    planned = time.perf_counter()
    write_plan(plan)
    written = time.perf_counter()
    with house.log.open("ab") as log:
        log.write(f"\n$ lakemix.mix.lakehouse.build({spec.name})\n".encode())
    with output_to(house.log):
        code = build(spec)
    built = time.perf_counter()
    if code != 0:
        raise house.fail(f"build of mix {spec.name} (dbt exit {code})")

    rows = house.query(
        f"""
        select language, available_tokens, target_share, feasible_share, realized_share,
               abs(realized_share - feasible_share), realized_epochs, sampled_tokens,
               granularity_share, validation_tokens
        from marts.mix_{spec.name}_languages
        order by sampled_tokens desc, language
        """
    )
    return MixRun(
        name=spec.name,
        strategy=raw["strategy"]["kind"]
        + (f", alpha {spec.alpha}" if spec.alpha is not None else "")
        + (f", max epochs {spec.max_epochs:g}" if spec.max_epochs is not None else ""),
        plan=planned - start,
        write=written - planned,
        build=built - written,
        build_nodes=house.nodes(),
        planned_tokens=sum(p.sampled_tokens for p in plan.languages),
        rows=rows,
    )


def models_seconds(nodes: dict[str, float]) -> float:
    return sum(s for uid, s in nodes.items() if uid.startswith("model."))


def report_mix(m: MixRun, cleaning: float, budget: int) -> None:
    print(f"\n== mix {m.name}: {m.strategy}, budget {budget:,} cl100k tokens, seed {SEED}")
    print(
        f"plan (available_tokens + make_plan): {m.plan:6.2f} s = {m.plan / cleaning:6.1%} of the"
        " cleaning layer"
    )
    print(
        f"materialize (write_plan + build):    {m.materialize:6.2f} s = "
        f"{m.materialize / cleaning:6.1%} of the cleaning layer"
        f"  [write_plan {m.write:.2f} s; build {m.build:.2f} s wall, of which dbt models "
        f"{models_seconds(m.build_nodes):.2f} s and tests "
        f"{sum(s for u, s in m.build_nodes.items() if u.startswith('test.')):.2f} s]"
    )
    verdict = "meets" if max(m.plan, m.materialize) < GOAL * cleaning else "MISSES"
    print(f"plan and materialize each under {GOAL:.0%} of the cleaning layer: {verdict} the goal")

    header = (
        f"{'language':<9} {'available':>12} {'target':>8} {'feasible':>9} {'realized':>9}"
        f" {'|diff| pt':>10} {'epochs':>7} {'sampled':>12} {'grain pt':>9}"
    )
    print(header)
    for lang, available, target, feasible, realized, diff, epochs, sampled, grain, _ in m.rows:
        print(
            f"{lang:<9} {available:>12,.0f} {target:>8.2%} {feasible:>9.2%} {realized:>9.2%}"
            f" {diff * 100:>10.3f} {epochs:>7.2f} {sampled:>12,} {(grain or 0) * 100:>9.3f}"
        )
    diffs = [r[5] * 100 for r in m.rows]
    within = sum(d <= 0.5 for d in diffs)
    within_grain = sum(r[5] <= max(0.005, r[8] or 0) for r in m.rows)
    sampled = sum(r[7] for r in m.rows)
    validation = sum(r[9] for r in m.rows)
    worst = max(m.rows, key=lambda r: r[5])
    print(
        f"max |realized - feasible|: {max(diffs):.3f} points ({worst[0]}); "
        f"within 0.5 points: {within} of {len(m.rows)} languages; within max(0.5 points, grain): "
        f"{within_grain} of {len(m.rows)}"
    )
    print(
        f"sampled {sampled:,} tokens = {sampled / budget:.1%} of the budget "
        f"(plan {m.planned_tokens:,.0f}); validation {validation:,} tokens = "
        f"{validation / sampled:.2%} of the mix"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--keep", action="store_true", help="keep the temporary lakehouse")
    args = parser.parse_args()

    corpus = cached_corpus(args.docs, args.seed)
    manifest = json.loads((corpus / "manifest.json").read_text())
    text_mb = manifest["bytes"]["text_utf8"] / 1e6
    load = os.getloadavg()
    print(
        f"corpus {corpus.relative_to(ROOT)}: {args.docs:,} documents, {text_mb:,.0f} MB of text;"
        f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 shared cores)"
    )
    home = Path(tempfile.mkdtemp(prefix="lakemix-bench-mix-"))
    try:
        house = Lakehouse(home)
        ingest = house.ingest(corpus)
        print(f"lakemix ingest: {ingest:.1f} s ({args.docs / ingest:,.0f} docs/s; not in ratios)")
        cleaning = house.dbt_build("--select", CLEANING)
        print(
            f"cleaning layer  (dbt build --select {CLEANING}):  {cleaning.seconds:7.1f} s wall,"
            f" models {models_seconds(cleaning.nodes):.1f} s, {len(cleaning.nodes)} nodes"
        )
        rest = house.dbt_build("--exclude", CLEANING)
        print(
            f"dedup + marts   (dbt build --exclude {CLEANING}): {rest.seconds:7.1f} s wall,"
            f" models {models_seconds(rest.nodes):.1f} s, {len(rest.nodes)} nodes"
            f" = {rest.seconds / cleaning.seconds:.2f}x the cleaning layer"
        )
        ((clean_docs, clean_tokens, languages),) = house.query(
            "select count(*), sum(token_count), count(distinct language)"
            " from marts.fct_clean_documents"
        )
        budget = int(clean_tokens) // 2
        print(
            f"clean: {clean_docs:,} documents, {int(clean_tokens):,} cl100k tokens, "
            f"{languages} languages; mix budget {budget:,} tokens (half)"
        )
        folder = home / "mixes"
        folder.mkdir()
        runs = [run_mix(house, raw, folder) for raw in mix_definitions(budget)]
        for m in runs:
            report_mix(m, cleaning.seconds, budget)

        print(f"\n== summary, {args.docs:,} documents; cleaning layer {cleaning.seconds:.1f} s")
        print(f"{'mix':<20} {'plan s':>7} {'plan/clean':>11} {'mat. s':>7} {'mat./clean':>11}")
        for m in runs:
            print(
                f"{m.name:<20} {m.plan:>7.2f} {m.plan / cleaning.seconds:>11.1%}"
                f" {m.materialize:>7.2f} {m.materialize / cleaning.seconds:>11.1%}"
            )
        load = os.getloadavg()
        print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if args.keep:
            print(f"lakehouse kept in {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
