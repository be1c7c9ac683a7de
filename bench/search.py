"""bench/search: DuckDB fts against Tantivy (``tantivy`` on PyPI) as the full-text index.

Usage: .venv/bin/python bench/search.py [--docs 100000] [--corpus bench/out/corpus-100000]
       .venv/bin/python bench/search.py --lakehouse LAKEMIX_HOME

The first ``--docs`` documents of the bench corpus (``bench/corpus.py``, deterministic) are
written once to ``bench/out/search-<docs>.parquet``. Each engine then runs in its own process
(one thread each, so its peak RSS is its own): it indexes the first 90% of the documents
(build), then the last 10% (incremental add: DuckDB's fts index cannot be updated, so it is
rebuilt over the whole table, as ``dbt build`` does today; Tantivy adds a segment), and answers
each query of ``QUERIES`` once cold and five times warm (top 10 by BM25, the median warm
latency is printed). Index size: the DuckDB file (table and index) against the Tantivy folder
(its stored fields included, so both hold the text). Words: DuckDB fts as in lakemix's old
``create_search_index`` macro; Tantivy with ``lakemix.search.index.analyzer``.

``--lakehouse``: end to end on a built lakehouse, each query in a process of its own (its start
included, as a user types it): ``lakemix search QUERY --include-rejected`` (every document, from
the index ``dbt build`` keeps) beside a DuckDB process that opens a database holding the same
documents (``int_documents_language_scored``) with an fts index and runs the BM25 query (what
``lakemix search`` did before its Tantivy index). The DuckDB database is built once, beside the
lakehouse (``search_fts.duckdb``), and kept. Wall seconds and the peak RSS of each process
(GNU time: ``measured``) are printed per query, with the ratios.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ("human rights", "government", "climate change", "music festival", "Москва", "東京")
HEAP_BYTES = 128_000_000
# DuckDB fts as lakemix's old create_search_index macro made it, and its BM25 query.
FTS_INDEX = (
    "pragma create_fts_index('docs', 'document_id', 'text', stemmer = 'none', "
    r"stopwords = 'none', ignore = '[^\p{L}\p{N}]+', strip_accents = 1, lower = 1, "
    "overwrite = 1)"
)
FTS_SQL = (
    "select document_id, score from (select fts_main_docs.match_bm25(document_id, ?) "
    "as score, document_id from docs) where score is not null "
    "order by score desc, document_id limit 10"
)


def peak_rss_mb() -> float:
    """This process's peak resident set size, MB (VmHWM: since its exec, unlike ru_maxrss,
    which a child inherits from its parent on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU seconds of this process, every thread (figures stay fair on a shared machine)."""
    return time.process_time()


def prepare(corpus: Path, docs: int) -> Path:
    """``bench/out/search-<docs>.parquet``: id, text, language, source of the first docs."""
    import duckdb

    out = ROOT / "bench" / "out" / f"search-{docs}.parquet"
    if out.is_file():
        return out
    files = ", ".join(f"'{p}'" for p in sorted(corpus.glob("part-*.jsonl.zst")))
    duckdb.sql(
        f"copy (select id as document_id, text, language, source as source_id "
        f"from read_json([{files}], format='newline_delimited', compression='zstd') "
        f"limit {docs}) to '{out}' (format parquet)"
    )
    return out


def size_mb(path: Path) -> float:
    """Bytes under ``path`` (a file or a folder), MB."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


def timed_queries(run: object) -> dict[str, float]:
    """Cold (first) and median warm milliseconds of ``run(query)`` over QUERIES."""
    cold, warm = [], []
    for query in QUERIES:
        start = time.perf_counter()
        run(query)  # type: ignore[operator]
        cold.append((time.perf_counter() - start) * 1000)
        for _ in range(5):
            start = time.perf_counter()
            run(query)  # type: ignore[operator]
            warm.append((time.perf_counter() - start) * 1000)
    return {"query_first_ms": statistics.median(cold), "query_warm_ms": statistics.median(warm)}


def run_duckdb(parquet: Path, work: Path, base: int) -> dict[str, float]:
    """Build, add and query with DuckDB's fts extension."""
    from lakemix import duck

    path = work / "fts.duckdb"
    conn = duck.connect(path, extensions=("fts",))
    conn.execute("set threads = 1")
    index = FTS_INDEX
    start, cpu = time.perf_counter(), cpu_s()
    conn.execute(f"create table docs as select * from '{parquet}' limit {base}")
    conn.execute(index)
    conn.execute("checkpoint")
    build, build_cpu = time.perf_counter() - start, cpu_s() - cpu
    start, cpu = time.perf_counter(), cpu_s()
    conn.execute(f"insert into docs select * from '{parquet}' offset {base}")
    conn.execute(index)
    conn.execute("checkpoint")
    add, add_cpu = time.perf_counter() - start, cpu_s() - cpu
    figures = timed_queries(lambda q: conn.execute(FTS_SQL, [q]).fetchall())
    conn.close()
    return {
        "build_s": build,
        "build_cpu_s": build_cpu,
        "add_s": add,
        "add_cpu_s": add_cpu,
        "size_mb": size_mb(path),
        **figures,
    }


def run_tantivy(parquet: Path, work: Path, base: int) -> dict[str, float]:
    """Build, add and query with Tantivy (lakemix's schema and analyzer)."""
    import pyarrow.parquet as pq
    import tantivy

    from lakemix.search.index import open_index

    path = work / "tantivy"
    index = open_index(path, create=True)
    reader = pq.ParquetFile(parquet)

    def add(rows: range) -> tuple[float, float]:
        start, cpu = time.perf_counter(), cpu_s()
        writer = index.writer(HEAP_BYTES, 1)
        seen = 0
        for batch in reader.iter_batches(batch_size=5_000):
            lo, hi = max(rows.start - seen, 0), min(rows.stop - seen, batch.num_rows)
            seen += batch.num_rows
            for row in batch.slice(lo, max(hi - lo, 0)).to_pylist():
                writer.add_document(
                    tantivy.Document(**{k: v for k, v in row.items() if v is not None})
                )
        writer.commit()
        writer.wait_merging_threads()
        return time.perf_counter() - start, cpu_s() - cpu

    build, build_cpu = add(range(0, base))
    added, add_cpu = add(range(base, reader.metadata.num_rows))
    index.reload()
    searcher = index.searcher()
    figures = timed_queries(  # ids and scores, like DuckDB's query
        lambda q: [
            (searcher.doc(address)["document_id"], score)
            for score, address in searcher.search(index.parse_query(q.lower(), ["text"]), 10).hits
        ]
    )
    return {
        "build_s": build,
        "build_cpu_s": build_cpu,
        "add_s": added,
        "add_cpu_s": add_cpu,
        "size_mb": size_mb(path),
        **figures,
    }


def fts_database(home: Path) -> Path:
    """``home/search_fts.duckdb``: every document's id and text with DuckDB's fts index (built
    once: 333 s for 1.1M documents; `free` showed 13 GB in use during it, other work included)."""
    from lakemix import duck, tables
    from lakemix.settings import Settings

    path = home / "search_fts.duckdb"
    if path.is_file():
        return path
    settings = Settings.from_env()
    parquet = home / "search_fts_documents.parquet"
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    try:
        conn.execute(
            f"copy (select document_id, text from {tables.LANGUAGE_SCORED}) to '{parquet}' "
            "(format parquet)"
        )
    finally:
        conn.close()
    print(f"building {path} (DuckDB fts over every document, once) ...", flush=True)
    start = time.perf_counter()
    building = path.with_suffix(".tmp")
    building.unlink(missing_ok=True)
    conn = duck.connect(building, extensions=("fts",))
    try:
        conn.execute(f"create table docs as select * from '{parquet}'")
        conn.execute(FTS_INDEX)
        conn.execute("checkpoint")
    finally:
        conn.close()
    building.rename(path)
    parquet.unlink()
    print(f"  built in {time.perf_counter() - start:.0f} s, {size_mb(path):,.0f} MB", flush=True)
    return path


def fts_query(database: Path, query: str) -> None:
    """One DuckDB fts query, as a process of its own runs it: open, query, print."""
    from lakemix import duck

    conn = duck.connect(database, read_only=True, extensions=("fts",))
    for document_id, score in conn.execute(FTS_SQL, [query]).fetchall():
        print(f"{score:.3f} {document_id}")
    conn.close()


def measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process, by GNU time: a child's ru_maxrss starts
    at its parent's (this process, which may have built the fts database), time's child's
    at time's few MB."""
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "time"
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", str(report), *cmd],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        if done.returncode:
            tail = done.stderr.decode(errors="replace")[-2000:]
            raise SystemExit(f"{' '.join(cmd)} failed:\n{tail}")
        wall, kb = report.read_text().split()[-2:]
    return float(wall), int(kb) / 1024


def end_to_end(home: Path) -> None:
    """``lakemix search`` against a DuckDB fts process on the documents of lakehouse ``home``."""
    import os

    os.environ["LAKEMIX_HOME"] = str(home)
    env = dict(os.environ)
    database = fts_database(home)
    lakemix = str(Path(sys.executable).parent / "lakemix")
    print(f"{home}: one process per query, end to end")
    print(f"{'query':16}{'lakemix s':>11}{'MB':>8}{'DuckDB fts s':>14}{'MB':>8}{'ratio':>8}")
    walls: list[tuple[float, float]] = []
    peaks: list[tuple[float, float]] = []
    for query in QUERIES:
        ours = measured([lakemix, "search", query, "--include-rejected"], env)
        fts = measured(
            [sys.executable, __file__, "--fts-query", query, "--fts-database", str(database)], env
        )
        walls.append((ours[0], fts[0]))
        peaks.append((ours[1], fts[1]))
        print(
            f"{query:16}{ours[0]:11.2f}{ours[1]:8.0f}{fts[0]:14.2f}{fts[1]:8.0f}"
            f"{fts[0] / ours[0]:7.1f}x"
        )
    ours_wall = statistics.median(w for w, _ in walls)
    fts_wall = statistics.median(w for _, w in walls)
    print(
        f"{'median':16}{ours_wall:11.2f}{max(p for p, _ in peaks):8.0f}{fts_wall:14.2f}"
        f"{max(p for _, p in peaks):8.0f}{fts_wall / ours_wall:7.1f}x  (MB: the largest)"
    )


def child(engine: str, parquet: Path, base: int) -> None:
    """Run one engine and print its figures as JSON."""
    rss_before = peak_rss_mb()
    with tempfile.TemporaryDirectory() as work:
        run = run_duckdb if engine == "duckdb" else run_tantivy
        figures = run(parquet, Path(work), base)
    print(json.dumps({**figures, "rss_start_mb": rss_before, "peak_rss_mb": peak_rss_mb()}))


def main(argv: list[str] | None = None) -> None:
    """Prepare the documents, run each engine in a process, print the figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--corpus", type=Path, default=ROOT / "bench" / "out" / "corpus-100000")
    parser.add_argument(
        "--lakehouse", type=Path, help="end to end on this built lakehouse (LAKEMIX_HOME)"
    )
    parser.add_argument("--engine", choices=("duckdb", "tantivy"), help=argparse.SUPPRESS)
    parser.add_argument("--parquet", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--fts-query", help=argparse.SUPPRESS)
    parser.add_argument("--fts-database", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fts_query is not None:
        fts_query(args.fts_database, args.fts_query)
        return
    if args.lakehouse is not None:
        end_to_end(args.lakehouse.resolve())
        return
    base = args.docs * 9 // 10
    if args.engine:
        child(args.engine, args.parquet, base)
        return
    parquet = prepare(args.corpus, args.docs)
    results = {}
    for engine in ("duckdb", "tantivy"):
        cmd = [
            sys.executable,
            __file__,
            "--engine",
            engine,
            "--parquet",
            str(parquet),
            "--docs",
            str(args.docs),
        ]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results[engine] = json.loads(out.strip().splitlines()[-1])
    print(f"{args.docs:,} documents; build {base:,}, then add {args.docs - base:,}; one thread")
    print(f"{'':24}{'DuckDB fts':>14}{'Tantivy':>14}")
    for key in results["duckdb"]:
        print(f"{key:24}{results['duckdb'][key]:14.2f}{results['tantivy'][key]:14.2f}")


if __name__ == "__main__":
    main()
