"""bench/ingest: MB/s and peak RSS of ``lakemix ingest`` on a 1 GB JSONL file, beside pyarrow.

Usage: .venv/bin/python bench/ingest.py [--gigabytes 1.0]

The file is built deterministically from real text (Leipzig sentences in 75 languages and the
web documents of ../shared/corpora) and cached in bench/out/. Each reader runs in its own
process; peak RSS is that process's maximum resident set size (getrusage). The references are
pyarrow's JSON readers on the same file: ``read_json`` (the whole file into one table, all
cores) and ``open_json`` (streaming, batch by batch).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
OUT = ROOT / "bench" / "out"
BIN = Path(sys.executable).parent


def sentences_by_language() -> dict[str, list[str]]:
    root = CORPORA / "langid" / "lingua_leipzig"
    return {
        d.name: [s for s in (d / "sentences.txt").read_text().split("\n") if s]
        for d in sorted(root.iterdir())
        if (d / "sentences.txt").is_file()
    }


def build_file(path: Path, size: int, seed: int = 0) -> None:
    """JSONL of documents (10-80 real sentences of one language) until ``size`` bytes."""
    rng = random.Random(seed)
    corpus = sentences_by_language()
    languages = sorted(corpus)
    tmp = path.with_suffix(".partial")
    written = n = 0
    with tmp.open("wb") as f:
        while written < size:
            lang = rng.choice(languages)
            pool = corpus[lang]
            paragraphs = [
                " ".join(rng.choice(pool) for _ in range(rng.randint(2, 8)))
                for _ in range(rng.randint(2, 10))
            ]
            record = {
                "id": f"bench-{seed}-{n}",
                "text": "\n".join(paragraphs),
                "url": f"https://example.{lang}/page/{n}",
                "metadata": {"language": lang, "n": n},
            }
            line = orjson.dumps(record) + b"\n"
            f.write(line)
            written += len(line)
            n += 1
    tmp.rename(path)


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """(seconds, peak RSS bytes, stdout) of one child process, which prints ``rss=<bytes>``."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.decode()[-2000:]}")
    out = proc.stdout.decode()
    rss = next(int(line[4:]) for line in reversed(out.splitlines()) if line.startswith("rss="))
    return seconds, rss, out


RSS_TAIL = (
    "import resource; print('rss=%d' % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))"
)


def run_lakemix(path: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "LAKEMIX_HOME": home}
        code = (
            "import sys; from lakemix.ingest import ingest; "
            f"r = ingest([{str(path)!r}], source='bench', progress=False); "
            "print('documents=%d' % r.total('documents')); " + RSS_TAIL
        )
        seconds, rss, out = measure([str(BIN / "python"), "-c", code], env)
    assert "documents=" in out, out
    return seconds, rss


def run_pyarrow(path: Path, streaming: bool) -> tuple[float, int]:
    if streaming:
        body = (
            f"import pyarrow.json as pj; n = sum(b.num_rows for b in pj.open_json({str(path)!r})); "
        )
    else:
        body = f"import pyarrow.json as pj; n = pj.read_json({str(path)!r}).num_rows; "
    seconds, rss, _ = measure([str(BIN / "python"), "-c", body + RSS_TAIL])
    return seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    args = parser.parse_args()
    size = int(args.gigabytes * (1 << 30))
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"ingest-{size}.jsonl"
    if not path.exists():
        print(f"building {path} ...", file=sys.stderr)
        build_file(path, size)
    mb = path.stat().st_size / 1e6
    rows = [
        ("lakemix ingest (1 core, zstd Parquet, Iceberg commit)", *run_lakemix(path)),
        ("pyarrow.json.open_json (streaming)", *run_pyarrow(path, streaming=True)),
        ("pyarrow.json.read_json (whole file, all cores)", *run_pyarrow(path, streaming=False)),
    ]
    base = rows[0][1]
    print(f"file: {path.name}, {mb:,.0f} MB")
    print(
        f"{'reader':<56} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'lakemix time ratio':>19}"
    )
    for name, seconds, rss in rows:
        ratio = base / seconds
        print(f"{name:<56} {seconds:>8.1f} {mb / seconds:>8.1f} {rss / 1e6:>12.0f} {ratio:>18.2f}x")


if __name__ == "__main__":
    main()
