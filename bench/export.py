"""bench/export: lakemix export's throughput per format, beside the loader's ceiling and
Megatron's own preprocessing, on one release, in one run.

Usage: .venv/bin/python bench/export.py [--docs 100000] [--seed 0] [--shard-size 256MiB]

Release: the bench corpus (``bench/corpus.py``, cached in ``bench/out/corpus-<N>``) ingested,
built, mixed and released once into ``bench/out/export-lakehouse-<N>`` (kept for the next
run). The mix, ``bench_export``, takes every clean token: UniMax over all languages with the
clean tokens as its budget (at most 4 epochs), so small languages are repeated. Each row is
one run on the release's train split, in a fresh process, its wall seconds and peak RSS
(``wait4``); tokens are the split's token ids (every copy of a document the mix repeats, and
one end-of-text id each):

* ``lakemix export --format megatron``, first: with the loader's token store (the release
  tokenized once, ``lakemix.loader.store``) built by this run;
* the same once the store exists (only the ``.bin``/``.idx``/map writing);
* ``--format parquet`` and ``--format jsonl`` (text, no tokenizing; one row per document);
* the loader's ceiling: pyarrow reading the store's token column (``bench/loader.py``);
* Megatron-LM's ``tools/preprocess_data.py`` loop, one worker (the script is not in the
  ``megatron-core`` wheel; its loop is: read a JSON line, tokenize, ``add_document`` with the
  end-of-text id appended, ``finalize``), with Megatron-Core's ``IndexedDatasetBuilder`` and
  the release's tokenizer (quicktok), over this run's JSONL export;
* datatrove's ``DocumentTokenizer`` is not run: it loads a Hugging Face ``tokenizers`` file
  from the Hub, which is not reachable here.

The machine has 2 shared cores: compare the figures of one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson

from corpus import cached_corpus
from lakemix.loader.store import tokenizer_of
from lakemix.udf.tokens import ENCODINGS
from lakemix.versions.manifest import parse_manifest
from mix import BIN, ROOT, Lakehouse, run_mix

TAG = "bench-export-all"
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
MIX = "bench_export"
OUT = ROOT / "bench" / "out"
# Megatron's preprocessing, as tools/preprocess_data.py does it with one worker: a JSON line,
# its text tokenized, the end-of-text id appended, one document a sequence.
MEGATRON = """
import sys, time, orjson, torch, quicktok
from pathlib import Path
from megatron.core.datasets.indexed_dataset import DType, IndexedDatasetBuilder
folder, prefix, encoding = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
tokenizer = quicktok.get_encoding(encoding)
builder = IndexedDatasetBuilder(prefix + ".bin", dtype=DType.optimal_dtype(tokenizer.n_vocab))
tokens = documents = 0
for path in sorted(folder.glob("train-*.jsonl")):
    with path.open("rb") as lines:
        for line in lines:
            record = orjson.loads(line)
            ids = tokenizer.encode_ordinary(record["text"]) + [tokenizer.eot_token]
            for _ in range(record["repeat_count"]):
                builder.add_document(torch.IntTensor(ids), [len(ids)])
                tokens += len(ids)
                documents += 1
builder.finalize(prefix + ".idx")
print(orjson.dumps({"tokens": tokens, "documents": documents}).decode())
"""
CEILING = """
import sys, orjson
sys.path.insert(0, sys.argv[2])
from loader import ceiling
print(orjson.dumps({"tokens": sum(ceiling(sys.argv[1]))}).decode())
"""


def mix_everything(house: Lakehouse, home: Path) -> None:
    """Mix MIX: every clean token once (UniMax over all languages, at most 4 epochs: the
    budget is the clean tokens, so small languages are repeated and large ones sampled)."""
    import yaml

    from lakemix.mix.lakehouse import available_tokens
    from lakemix.mix.spec import parse

    raw = {
        "name": MIX,
        "description": "bench/export.py: UniMax over every language, budget = the clean tokens",
        "token_budget": 1,
        "languages": "all",
        "strategy": {"kind": "unimax", "max_epochs": 4},
        "validation_fraction": 0.01,
        "seed": 0,
        "tokenizer": "cl100k",
    }
    raw["token_budget"] = int(sum(available_tokens(parse(raw, "bench")).values()))
    folder = home / "mixes"
    folder.mkdir(exist_ok=True)
    (folder / f"{MIX}.yml").write_text(yaml.safe_dump(raw, sort_keys=False))
    run_mix(house, raw, folder)


def release_home(docs: int, seed: int) -> Path:
    """bench/out/export-lakehouse-<docs> with release TAG of MIX (built once)."""
    home = OUT / f"export-lakehouse-{docs}"
    if (home / "releases" / f"{TAG}.json").is_file():
        Lakehouse(home)
        return home
    built = home / "built"  # the corpus ingested and built: only the mix and release are left
    if not built.is_file():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
    house = Lakehouse(home)
    seconds = 0.0
    if not built.is_file():
        corpus = cached_corpus(docs, seed)
        print(f"building {home.relative_to(ROOT)} from {corpus.relative_to(ROOT)} (once) ...")
        seconds += house.ingest(corpus)
        seconds += house.run(str(BIN / "dbt"), "build")
        built.touch()
    start = time.perf_counter()
    mix_everything(house, home)
    seconds += time.perf_counter() - start
    seconds += house.run(str(BIN / "lakemix"), "release", MIX, "--tag", TAG, *UNREVIEWED)
    print(f"  ingest, build, mix build and release: {seconds:.0f} s")
    return home


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, stdout) of ``cmd`` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err.decode()[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, out.decode()


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--shard-size", default="256MiB")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    home = release_home(args.docs, args.seed)
    path = home / "releases" / f"{TAG}.json"
    manifest = parse_manifest(orjson.loads(path.read_bytes()), str(path))
    train = manifest.split_stats("train")
    documents = sum(s.documents for s in train)
    tokens = sum(s.tokens + s.samples for s in train)
    encoding = ENCODINGS[tokenizer_of(manifest)]  # quicktok's name
    load = os.getloadavg()
    print(
        f"release {TAG} of {MIX} on {args.docs:,} corpus documents: train split {documents:,} "
        f"documents, {tokens:,} tokens (copies and end-of-text ids included); load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 shared cores)"
    )
    exports = home / "exports"
    shutil.rmtree(exports, ignore_errors=True)
    shutil.rmtree(home / "loader", ignore_errors=True)  # the first megatron run tokenizes
    exports.mkdir()
    lakemix = str(BIN / "lakemix")
    print(f"\n| {'run':<56} | seconds | docs/s | M tokens/s | MB written | peak RSS MiB |")
    print(f"|{'-' * 58}|---|---|---|---|---|")

    def row(label: str, seconds: float, toks: int, written: int, rss: float) -> None:
        print(
            f"| {label:<56} | {seconds:7.1f} | {documents / seconds:8,.0f} "
            f"| {toks / seconds / 1e6:6.2f} | {written / 1e6:8,.1f} | {rss:8,.0f} |",
            flush=True,
        )

    runs = (
        ("megatron", "lakemix export megatron (tokenizes: builds the token store)"),
        ("megatron", "lakemix export megatron (token store built)"),
        ("parquet", "lakemix export parquet"),
        ("jsonl", "lakemix export jsonl"),
    )
    for number, (fmt, label) in enumerate(runs):
        out = exports / f"{number}-{fmt}"
        cmd = [lakemix, "export", TAG, "--format", fmt, "--shard-size", args.shard_size]
        seconds, rss, _ = timed([*cmd, "--no-progress", str(out)])
        row(label, seconds, tokens, folder_bytes(out), rss)
    store = next((home / "loader").glob(f"{TAG}-*-train-*.arrow"))
    code = [sys.executable, "-c", CEILING, str(store), str(ROOT / "bench")]
    seconds, rss, out = timed(code)
    # the store holds each document once: its tokens are the split's without the copies
    row(
        "loader ceiling: pyarrow reads the token store",
        seconds,
        orjson.loads(out)["tokens"],
        0,
        rss,
    )
    megatron = exports / "megatron-preprocess"
    megatron.mkdir()
    code = [
        sys.executable,
        "-c",
        MEGATRON,
        str(exports / "3-jsonl"),
        str(megatron / "train"),
        encoding,
    ]
    seconds, rss, out = timed(code)
    assert orjson.loads(out)["tokens"] == tokens, out
    row(
        "Megatron preprocess_data loop (1 worker, JSONL in)",
        seconds,
        tokens,
        folder_bytes(megatron),
        rss,
    )
    print(
        "\ndocs/s: the split's documents; M tokens/s: the split's tokens (copies included; the "
        "ceiling's store holds each document once). Wall time includes each command's "
        "start-up (imports, catalog, DuckDB's Iceberg extension). datatrove's DocumentTokenizer "
        "is not run: it needs a tokenizer file from the Hugging Face Hub."
    )


if __name__ == "__main__":
    sys.exit(main())
