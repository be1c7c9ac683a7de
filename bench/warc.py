"""bench/warc: a web archive to clean documents, lakemix beside datatrove, one core each.

Usage: .venv/bin/python bench/warc.py [--repeats 5] [--cpus 0,1] [--work bench/out/warc-work]
       [--skip-datatrove]

The archive: every page of ../shared/corpora/html/trafilatura_eval, ``--repeats`` times (each
copy its own URL and a paragraph of its own, so copies are near duplicates, not exact ones), as
Common Crawl ships a WARC: a request and a response record per page, each record its own gzip
member (written with warcio, cached in bench/out).

lakemix: ``lakemix ingest`` of the archive, then ``dbt build`` (main-text extraction with the
default extractor, language ID, quality signals, the quality model and filters, exact and
MinHash dedup, PII, tokens), after a warm-up build on a few pages (numba's compiled kernels are
cached on disk; the first build of a machine compiles them). One core (taskset), one DuckDB
thread.

datatrove 0.10.1 (bench/out/venv-datatrove): ``WarcReader`` -> ``Trafilatura`` (its defaults,
as FineWeb ran it) -> Gopher repetition and quality, C4 and FineWeb filters with the thresholds
of the project's '*' rows, on the same archive, pinned to the other core at the same time. It
has no language ID here (its model downloads at run time) and no dedup in this chain: lakemix
does more work per page.

Printed: pages per CPU second of each side, and their ratio (goal: lakemix at least 10x).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import subprocess
import threading
from pathlib import Path
from urllib.parse import quote

from _datatrove import FILTER_IMPORTS, FILTERS, ensure_venv, thresholds
from dedup import BIN, OUT, Lakehouse, Measured, Phase, run_measured

PAGES = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "html" / "trafilatura_eval"
WARMUP_PAGES = 40
# What datatrove's WarcReader and Trafilatura import beyond datatrove[processing]: python-magic
# uses the system's libmagic; justext (trafilatura's) needs lxml's cleaner, a package of its own.
READER_PINS = (
    "warcio==1.8.2",
    "faust-cchardet==3.2.0",
    "python-magic==0.4.27",
    "lxml_html_clean==0.4.7",
)
GOAL = 10.0

# Runs in bench/out/venv-datatrove: argv = folder thresholds.json
DATATROVE = (
    FILTER_IMPORTS
    + r"""
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.readers import WarcReader
folder = sys.argv[1]
"""
    + FILTERS
    + r"""
data = WarcReader(folder, glob_pattern="*.warc.gz")(None, 0, 1)
data = Trafilatura()(data, 0, 1)
read = 0
def counted(items):
    global read
    for item in items:
        read += 1
        yield item
data = counted(data)
for name in ("gopher_repetition", "gopher_quality", "c4", "fineweb"):
    data = filters[name](data, 0, 1)
kept = sum(1 for _ in data)
if read == 0:
    sys.exit("datatrove extracted nothing: see the log above")
print(json.dumps({"extracted": read, "kept": kept}))
"""
)


def write_archive(path: Path, repeats: int, limit: int | None = None) -> int:
    """The archive of the pages, ``repeats`` times; returns the pages written."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    files = sorted((PAGES / "pages").glob("*.html.gz"))
    written = 0
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        writer = WARCWriter(f, gzip=True)
        for copy in range(repeats):
            for page in files:
                if limit is not None and written >= limit:
                    break
                html = gzip.decompress(page.read_bytes())
                if copy:  # a paragraph of its own: a near duplicate, not an exact one
                    html = html.replace(
                        b"</body>", f"<p>Copy {copy} of this page.</p></body>".encode(), 1
                    )
                name = quote(page.name.removesuffix(".html.gz"))
                url = f"https://bench.example/{copy}/{name}"
                request = writer.create_warc_record(
                    url, "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n")
                )
                writer.write_record(request)
                http = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
                )
                response = writer.create_warc_record(
                    url, "response", payload=io.BytesIO(html), http_headers=http
                )
                writer.write_record(response)
                written += 1
    tmp.rename(path)
    return written


def archive(repeats: int) -> tuple[Path, int]:
    folder = OUT / f"warc-{repeats}"
    path = folder / "crawl.warc.gz"
    count = folder / "pages.txt"
    if not path.is_file() or not count.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        count.write_text(str(write_archive(path, repeats)))
    return path, int(count.read_text())


def lakemix_side(path: Path, work: Path, cpu: str) -> tuple[Measured, Phase, int]:
    """Warm-up build, then ingest and build of the archive; returns both and the pages kept."""
    warm = Lakehouse(work / "warmup", cpus=cpu)
    warm.dbt_vars = None
    small = warm.work / "warm.warc.gz"
    write_archive(small, 1, limit=WARMUP_PAGES)
    ingest = [str(BIN / "lakemix"), "ingest", "--source", "crawl", "--format", "warc"]
    run_measured([*ingest, str(small), "--no-progress"], env=warm.env, cpus=cpu, log=warm.log)
    warm.dbt("seed")
    warm.dbt("build")
    lake = Lakehouse(work / "lakemix", cpus=cpu)
    lake.dbt_vars = None
    read = run_measured([*ingest, str(path), "--no-progress"], env=lake.env, cpus=cpu, log=lake.log)
    lake.dbt("seed")
    build = lake.dbt("build")
    query = "select count(*) from marts.fct_clean_documents"
    sql = [str(BIN / "lakemix"), "sql", "--format", "csv", query]
    kept = subprocess.run(sql, env=lake.env, capture_output=True, text=True, check=True)
    return read, build, int(kept.stdout.split()[-1])


def datatrove_side(path: Path, work: Path, cpu: str) -> tuple[Measured, dict[str, int]]:
    python = ensure_venv()
    check = [str(python), "-c", "import warcio, cchardet, magic, lxml_html_clean"]
    if subprocess.run(check, capture_output=True).returncode:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *READER_PINS], check=True)
    work.mkdir(parents=True, exist_ok=True)
    script = work / "chain.py"
    script.write_text(DATATROVE)
    limits = work / "thresholds.json"
    limits.write_text(json.dumps(thresholds()))
    log = work / "datatrove.log"
    log.unlink(missing_ok=True)
    measured = run_measured(
        [str(python), str(script), str(path.parent), str(limits)],
        env={"PATH": "/usr/bin:/bin", "HOME": str(work)}, cpus=cpu, log=log,
    )  # fmt: skip
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    return measured, json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpus", default="0,1", help="lakemix's CPU,datatrove's CPU")
    parser.add_argument("--work", type=Path, default=OUT / "warc-work")
    parser.add_argument("--skip-datatrove", action="store_true")
    args = parser.parse_args()
    cpu_lakemix, _, cpu_datatrove = args.cpus.partition(",")
    path, pages = archive(args.repeats)
    print(f"archive: {path} ({pages:,} pages, {path.stat().st_size / 2**20:,.0f} MiB)", flush=True)
    reference: dict[str, object] = {}

    def run_reference() -> None:
        reference["result"] = datatrove_side(path, args.work / "datatrove", cpu_datatrove)

    thread = threading.Thread(target=run_reference)
    if not args.skip_datatrove:
        thread.start()
    read, build, kept = lakemix_side(path, args.work, cpu_lakemix)
    cpu = read.cpu_seconds + build.cpu_seconds
    print(
        f"lakemix   ingest {read.cpu_seconds:,.1f} CPU s + dbt build {build.cpu_seconds:,.1f} "
        f"CPU s: {pages / cpu:,.1f} pages per CPU second, {kept:,} clean documents",
        flush=True,
    )
    if args.skip_datatrove:
        return
    thread.join()
    measured, counts = reference["result"]  # type: ignore[misc]
    print(
        f"datatrove WarcReader + Trafilatura + 4 filters {measured.cpu_seconds:,.1f} CPU s: "
        f"{pages / measured.cpu_seconds:,.1f} pages per CPU second, "
        f"{counts['extracted']:,} extracted, {counts['kept']:,} kept"
    )
    ratio = measured.cpu_seconds / cpu
    print(f"lakemix / datatrove, pages per CPU second: {ratio:.1f}x (goal >= {GOAL:.0f}x)")


if __name__ == "__main__":
    main()
