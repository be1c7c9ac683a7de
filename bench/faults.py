"""bench/faults: kill every writing stage at random points, and feed ingest hostile files.

Usage: .venv/bin/python bench/faults.py [--trials 3] [--seed 1]

Kills: for each stage (``lakemix ingest``, ``dbt build``, ``lakemix release``) a reference is made
once, uninterrupted, in its own temporary lakehouse; then each trial starts the stage in the
trial lakehouse, SIGKILLs it after a random fraction (0.1-1.0) of the reference's duration,
checks that the catalog opens and every table reads, reruns the stage to completion and compares
the result with the reference: the raw document and quarantine ids (ingest), what the marts say
about every document (dbt build: ids, languages, tokens, text hashes, rules, clusters), the
checksum and snapshot ids (release). A trial "landed" when the process was still running at
its kill. Goal: every trial converges.

Hostile input: files made here (invalid UTF-8, UTF-16 with and without BOM, truncated gzip and
zstd, wrong JSON types, 5,000-deep nesting, a 200 MB single line, NUL bytes, empty and zero-byte
files, a directory where a file is expected, a symlink loop, a Parquet file with another schema)
go through one ``lakemix ingest`` each; the table gives each file's outcome (documents, quarantined
records, or the command's error), the quarantine reason, and the ingest's peak RSS. Then three
scenarios, each counted as rows lost and doubled once it is over: a file ingested while a writer
still appends to it, then again when complete; a folder with a file and a folder the ingest may
not read (as root: without the capabilities that ignore permissions), a FIFO and a symlink loop,
then again when readable; two homes on one catalog ingesting one folder at once (what they print
must add up to what was committed).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
LAKEMIX = str(BIN / "lakemix")
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
DBT = [str(BIN / "dbt"), "build", "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKEMIX_")}
    return {
        **env,
        "LAKEMIX_HOME": str(home),
        "DBT_TARGET_PATH": str(home / "target"),
        "DBT_LOG_PATH": str(home / "logs"),
        "DO_NOT_TRACK": "1",
    }


def settings_of(home: Path) -> Any:
    from lakemix.settings import Settings

    return Settings.from_env({"LAKEMIX_HOME": str(home)})


def run(cmd: list[str], home: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=environment(home), check=True, capture_output=True)
    return time.perf_counter() - start


def write_corpus(path: Path, documents: int, prefix: str = "doc") -> None:
    """Real Leipzig sentences grouped into documents ``<prefix>-<n>``, a broken line every 997."""
    import orjson

    pool = (CORPORA / "langid" / "lingua_leipzig" / "de" / "sentences.txt").read_text().split("\n")
    rng = random.Random(7)
    with path.open("wb") as f:
        for n in range(documents):
            if n % 997 == 0:
                f.write(b'{"id": "broken-%d", "text": \n' % n)
                continue
            text = " ".join(rng.choice(pool) for _ in range(40))
            f.write(orjson.dumps({"id": f"{prefix}-{n}", "text": text}) + b"\n")


def readable(home: Path) -> None:
    """Open the catalog and read one row of every table (raises if anything is broken)."""
    from lakemix import catalog

    cat = catalog(settings_of(home))
    for namespace in cat.list_namespaces():
        for ident in cat.list_tables(namespace):
            table = cat.load_table(ident)
            if table.current_snapshot() is not None:
                table.scan(limit=1).to_arrow()


def raw_ids(home: Path) -> tuple[list[str], list[str]]:
    from lakemix import catalog

    cat = catalog(settings_of(home))
    out = []
    for name, key in (("raw.documents", "document_id"), ("raw.quarantine", "quarantine_id")):
        table = cat.load_table(name)
        out.append(sorted(table.scan(selected_fields=(key,)).to_arrow().column(key).to_pylist()))
    return out[0], out[1]


def mart_contents(home: Path) -> dict[str, list[tuple[Any, ...]]]:
    """What the marts say about each document (no timestamps), sorted: comparable across runs."""
    from lakemix import duck

    settings = settings_of(home)
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    queries = {
        "clean": "select document_id, language, token_count, duplicate_cluster_size, md5(text) "
        "from marts.fct_clean_documents",
        "rejected": "select document_id, failed_rule_names, duplicate_of_document_id "
        "from marts.fct_document_rejections",
        "clusters": "select cluster_id, cluster_size, kept_document_id "
        "from marts.dim_duplicate_clusters",
    }
    try:
        return {k: sorted(conn.execute(q).fetchall()) for k, q in queries.items()}
    finally:
        conn.close()


def release_of(home: Path, tag: str) -> tuple[str, dict[str, int]]:
    from lakemix.versions import get_release

    manifest = get_release(tag, settings_of(home))
    return manifest.checksum, {k: v.snapshot_id for k, v in manifest.snapshots.items()}


def kill_trials(
    stage: str,
    cmd: list[str],
    home: Path,
    duration: float,
    result: Callable[[], Any],
    expected: Any,
    *,
    trials: int,
    rng: random.Random,
    before: Callable[[], None] = lambda: None,
) -> tuple[str, int, int, int]:
    landed = converged = 0
    for _ in range(trials):
        before()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=environment(home), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0.1, 1.0) * duration)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            landed += 1
        proc.wait()
        readable(home)
        run(cmd, home)
        converged += result() == expected
    return stage, trials, landed, converged


def kills(work: Path, trials: int, seed: int) -> list[tuple[str, int, int, int]]:
    rng = random.Random(seed)
    corpus = work / "corpus.jsonl"
    write_corpus(corpus, 20_000, "doc")
    rows = []

    # ingest: each trial ingests into a fresh lakehouse; the rerun must equal the reference.
    reference = work / "ingest-reference"
    duration = run([LAKEMIX, "ingest", str(corpus), "--source", "faults"], reference)
    expected = raw_ids(reference)
    trial_home = work / "ingest-trial"
    rows.append(
        kill_trials(
            "lakemix ingest",
            [LAKEMIX, "ingest", str(corpus), "--source", "faults"],
            trial_home,
            duration,
            lambda: raw_ids(trial_home),
            expected,
            trials=trials,
            rng=rng,
            before=lambda: shutil.rmtree(trial_home, ignore_errors=True),
        )
    )

    # dbt build: the trial lakehouse gets more data before each trial, so incremental models
    # have rows to append when the kill lands; the reference gets the same data.
    small = work / "small.jsonl"
    write_corpus(small, 400, "small")
    build_home, build_reference = work / "build-trial", work / "build-reference"
    for home in (build_home, build_reference):
        run([LAKEMIX, "ingest", str(small), "--source", "faults"], home)
    run(DBT, build_home)
    run(DBT, build_reference)
    batches = []
    for n in range(trials):
        batch = work / f"batch-{n}.jsonl"
        write_corpus(batch, 100, f"batch{n}")
        batches.append(batch)
    landed = converged = 0
    for batch in batches:
        for home in (build_home, build_reference):
            run([LAKEMIX, "ingest", str(batch), "--source", "faults"], home)
        incremental = run(DBT, build_reference)  # the kill window: a build with new rows
        stage = kill_trials(
            "dbt build", DBT, build_home, incremental, lambda: mart_contents(build_home),
            mart_contents(build_reference), trials=1, rng=rng,
        )  # fmt: skip
        landed += stage[2]
        converged += stage[3]
    rows.append(("dbt build", trials, landed, converged))

    # release: each trial releases a new tag; it must equal the uninterrupted release.
    run([LAKEMIX, "mix", "build", "demo_unimax"], build_home)
    duration = run(
        [LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", "reference"], build_home
    )
    expected = release_of(build_home, "reference")
    landed = converged = 0
    for n in range(trials):
        tag = f"trial-{n}"
        command = [LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", tag]
        stage = kill_trials(
            "lakemix release", command, build_home,
            duration, lambda tag=tag: release_of(build_home, tag), expected, trials=1, rng=rng,
        )  # fmt: skip
        landed += stage[2]
        converged += stage[3]
    rows.append(("lakemix release", trials, landed, converged))
    return rows


def hostile_files(folder: Path) -> list[Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    folder.mkdir()
    lines = b"".join(b'{"id": "r%d", "text": "row %d"}\n' % (i, i) for i in range(50_000))
    files: dict[str, bytes | None] = {
        "invalid_utf8.jsonl": b'{"id": "a", "text": "bad \xff\xfe bytes"}\n',
        "utf16_bom.jsonl": '{"id": "b", "text": "w\u00f6rld"}\n'.encode("utf-16"),
        "utf16_le_no_bom.jsonl": '{"id": "c", "text": "w\u00f6rld"}\n'.encode("utf-16-le"),
        "truncated.jsonl.gz": gzip.compress(lines)[:50_000],
        "truncated.jsonl.zst": zstandard.ZstdCompressor().compress(lines)[:20_000],
        "wrong_types.jsonl": b'{"id": 5, "text": 12}\n{"id": ["x"], "text": {"y": 1}}\n',
        "deep_nesting.jsonl": b'{"id": "d", "text": "t", "m": '
        + b'{"a":' * 5000
        + b"1"
        + b"}" * 5000
        + b"}\n",
        "nul_bytes.jsonl": b'{"text": "a\\u0000b"}\n\x00\x00\x00\n',
        "empty_lines.jsonl": b"\n\n\n",
        "zero_bytes.jsonl": b"",
        "single_line_200MB.jsonl": None,  # written below, streamed
    }
    for name, data in files.items():
        if data is not None:
            (folder / name).write_bytes(data)
    with (folder / "single_line_200MB.jsonl").open("w") as f:
        f.write('{"id": "huge", "text": "')
        for _ in range(200):
            f.write("a" * (1 << 20))
        f.write('"}\n')
    (folder / "directory.jsonl").mkdir()
    (folder / "loop_a.jsonl").symlink_to(folder / "loop_b.jsonl")
    (folder / "loop_b.jsonl").symlink_to(folder / "loop_a.jsonl")
    pq.write_table(pa.table({"foo": [1, 2], "bar": ["x", "y"]}), folder / "other_schema.parquet")
    return sorted(folder.iterdir())


# `lakemix ingest FILE --source hostile` in a child that reports its own peak RSS: VmHWM of its
# own memory map (ru_maxrss survives exec on Linux, so it would include this process's size).
MEASURED_INGEST = """
import re, sys
from pathlib import Path
from lakemix.cli import main
try:
    main(["ingest", sys.argv[1], "--source", "hostile", "--no-progress"])
finally:
    kb = re.search(r"VmHWM:\\s+(\\d+)", Path("/proc/self/status").read_text()).group(1)
    print(f"peak_rss_kb={kb}", file=sys.stderr)
"""


def count(conn: Any, table: Any, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` with ``{table}`` read from the Iceberg table; no rows before its first commit."""
    if table.current_snapshot() is None:
        return []
    rows: list[tuple[Any, ...]] = conn.execute(
        sql.format(table=f"iceberg_scan('{table.metadata_location}')")
    ).fetchall()
    return rows


def hostile(work: Path) -> list[tuple[str, str, str, float]]:
    """Each hostile file through its own ``lakemix ingest``: outcome, reasons, peak RSS (MB)."""
    from lakemix import catalog, duck

    rows = []
    for path in hostile_files(work / "hostile"):
        home = work / f"hostile-{path.name}"
        proc = subprocess.run(
            [sys.executable, "-c", MEASURED_INGEST, str(path)],
            cwd=ROOT, env=environment(home), capture_output=True, text=True,
        )  # fmt: skip
        error, _, peak = proc.stderr.rpartition("peak_rss_kb=")
        rss = int(peak) / 1024
        if proc.returncode != 0:
            rows.append((path.name, "refused", error.strip().splitlines()[-1][:110], rss))
            continue
        settings = settings_of(home)
        cat, conn = catalog(settings), duck.connect(settings=settings)
        documents = count(conn, cat.load_table("raw.documents"), "select count(*) from {table}")
        quarantine = cat.load_table("raw.quarantine")
        reasons = count(
            conn, quarantine, "select reason, count(*) from {table} group by 1 order by 1"
        )
        conn.close()
        quarantined = sum(n for _, n in reasons)
        outcome = f"{documents[0][0] if documents else 0} documents, {quarantined} quarantined"
        reason = "; ".join(r for r, _ in reasons)
        rows.append((path.name, outcome, reason[:110] or "-", rss))
    return rows


def _texts(env: dict[str, str]) -> list[str]:
    """Every text in raw.documents of the lakehouse ``env`` names."""
    from lakemix import catalog
    from lakemix.settings import Settings

    table = catalog(Settings.from_env(env)).load_table("raw.documents")
    return table.scan(selected_fields=("text",)).to_arrow().column("text").to_pylist()


def _counted(expected: set[str], got: list[str]) -> str:
    return f"{len(expected - set(got))} lost, {len(got) - len(set(got))} doubled"


def _ingest(path: Path, env: dict[str, str], *, drop_read_permission: bool = False) -> Any:
    """``lakemix ingest PATH`` in ``env``; with ``drop_read_permission``, as root without the
    capabilities that let root read every file (file permissions bind it as any user)."""
    cmd = [LAKEMIX, "ingest", str(path), "--source", "hostile", "--no-progress"]
    if drop_read_permission and os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        cmd = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", *cmd]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)


def _said(out: Any, name: str | None = None) -> str:
    """What one ``lakemix ingest`` said: the status and note of file ``name``, else its count
    of ingested rows and of "not read" lines; its error, or a traceback."""
    if "Traceback" in out.stderr or out.returncode:
        return f"exit {out.returncode}: {out.stderr.strip().splitlines()[-1][:70]}"
    if name is not None:
        line = next((s for s in out.stdout.splitlines() if name in s), "")
        return " ".join(line.split()[1:])[:90]
    ingested = re.search(r"([\d,]+) ingested", out.stdout)
    return f"{ingested.group(1) if ingested else '?'} ingested, " + (
        f"{out.stdout.count(' not read ')} not read"
    )


def _growing(work: Path) -> tuple[str, str, str]:
    """A file a writer is still appending to, ingested; then again once it is complete."""
    import orjson

    path, home = work / "growing.jsonl", work / "hostile-growing"
    texts = [f"growing {n} " + "x" * 150 for n in range(60_000)]
    lines = [orjson.dumps({"text": text}) for text in texts]

    def write() -> None:
        with path.open("ab") as f:
            for start in range(0, len(lines), 300):  # 200 appends over 4 s or more
                f.write(b"\n".join(lines[start : start + 300]) + b"\n")
                f.flush()
                time.sleep(0.02)

    path.touch()
    writer = threading.Thread(target=write)
    writer.start()
    during = _ingest(path, environment(home))
    writer.join()
    after = _ingest(path, environment(home))
    counted = _counted(set(texts), _texts(environment(home)))
    return "file still written", counted, f"during: {_said(during, path.name)}; then {_said(after)}"


def _unreadable(work: Path) -> tuple[str, str, str]:
    """A folder with a file and a folder it may not read, a FIFO, a symlink loop and a link
    to a device beside a good file; then again, everything readable."""
    import orjson

    folder, home = work / "unreadable", work / "hostile-unreadable"
    (folder / "locked").mkdir(parents=True)
    texts = set()
    for name in ("good.jsonl", "secret.jsonl", "locked/inner.jsonl"):
        text = [f"{name} {n}" for n in range(100)]
        (folder / name).write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n" for t in text))
        texts.update(text)
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "loop_a.jsonl").symlink_to(folder / "loop_b.jsonl")
    (folder / "loop_b.jsonl").symlink_to(folder / "loop_a.jsonl")
    (folder / "secret.jsonl").chmod(0)
    (folder / "locked").chmod(0)
    first = _ingest(folder, environment(home), drop_read_permission=True)
    (folder / "secret.jsonl").chmod(0o644)
    (folder / "locked").chmod(0o755)
    again = _ingest(folder, environment(home))
    counted = _counted(texts, _texts(environment(home)))
    return "unreadable entries", counted, f"locked: {_said(first)}; then {_said(again)}"


def _two_homes(work: Path) -> tuple[str, str, str]:
    """Two homes on one catalog and warehouse ingesting the same folder at once: the sum of
    what they print must be what was committed."""
    import orjson

    folder = work / "shared-folder"
    folder.mkdir()
    texts = set()
    for part in range(3):
        text = [f"part {part} record {n}" for n in range(1_000)]
        (folder / f"part-{part}.jsonl").write_bytes(
            b"".join(orjson.dumps({"text": t}) + b"\n" for t in text)
        )
        texts.update(text)
    shared = {
        "LAKEMIX_CATALOG_URI": f"sqlite:///{work / 'shared-catalog.db'}?timeout=60",
        "LAKEMIX_WAREHOUSE": str(work / "shared-warehouse"),
    }
    envs = [{**environment(work / f"home-{n}"), **shared} for n in (1, 2)]
    # The catalog's own tables first: two processes creating them at once on a new SQLite
    # file is another race (the loser cannot open the catalog), not this one.
    warm = work / "shared-warm.jsonl"
    warm.write_bytes(b'{"text": "warm"}\n')
    _ingest(warm, envs[0])
    texts.add("warm")
    cmd = [LAKEMIX, "ingest", str(folder), "--source", "hostile", "--no-progress"]
    procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
             for env in envs]  # fmt: skip
    printed, raced = [], 0
    for proc in procs:
        out = proc.communicate()[0]
        found = re.search(r"([\d,]+) ingested", out)
        printed.append(int(found.group(1).replace(",", "")) if found else -1)
        raced += out.count("ingested by a concurrent ingest")
    got = _texts(envs[0])
    said = f"printed {printed[0]:,} + {printed[1]:,}, committed {len(got) - 1:,}" + (
        f" ({raced} files read by both)" if raced else ""
    )
    return "two homes, 1 catalog", _counted(texts, got), said


def hostile_scenarios(work: Path) -> list[tuple[str, str, str]]:
    """Files that change or cannot be read, and a race between two homes: rows lost and
    doubled once each is over, and what the commands said."""
    return [_growing(work), _unreadable(work), _two_homes(work)]


KILL_BETWEEN_COMMITS = """
import os, sys
from lakemix.ingest import remove
real, done = remove.commit_with_retry, []
def commit_then_die(*args, **kwargs):
    if done:
        os._exit(137)
    done.append(real(*args, **kwargs))
    return done[-1]
remove.commit_with_retry = commit_then_die
remove.remove_ingest(sys.argv[1])
"""


def _damage(path: Path, how: str) -> None:
    import pyarrow.parquet as pq

    good = path.read_bytes()
    if how == "lost":
        path.unlink()
    elif how == "truncated":
        path.write_bytes(good[: len(good) // 2])
    else:  # "mid-file": the text column's pages of the first row group zeroed, footer intact
        meta = pq.ParquetFile(path).metadata.row_group(0)
        chunk = next(meta.column(i) for i in range(meta.num_columns)
                     if meta.column(i).path_in_schema == "text")  # fmt: skip
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        size = chunk.total_compressed_size
        path.write_bytes(good[:start] + bytes(size) + good[start + size :])


def _lost_doubled(expected: tuple[list[str], list[str]], got: tuple[list[str], list[str]]) -> str:
    lost = sum(len(set(e) - set(g)) for e, g in zip(expected, got, strict=True))
    doubled = sum(len(g) - len(set(g)) for g in got)
    extra = sum(len(set(g) - set(e)) for e, g in zip(expected, got, strict=True))
    return f"{lost} lost, {doubled} doubled" + (f", {extra} unknown" if extra else "")


def repairs(work: Path) -> list[tuple[str, str, str]]:
    """A damaged raw file taken out with ``ingest-remove`` and its source ingested again; a
    removal killed between its two commits, the files ingested meanwhile, the removal rerun.
    Each ends with the raw ids compared with the lakehouse before the fault."""
    from lakemix import catalog
    from lakemix.iceberg import local_path
    from lakemix.ingest.history import list_ingests

    first, second = work / "repair-a.jsonl", work / "repair-b.jsonl"
    write_corpus(first, 3_000, "ra")
    write_corpus(second, 1_000, "rb")
    rows = []
    for how in ("lost", "truncated", "mid-file", "removal killed"):
        home = work / f"repair-{how.replace(' ', '-')}"
        for path, source in ((first, "a"), (second, "b")):
            run([LAKEMIX, "ingest", str(path), "--source", source], home)
        expected = raw_ids(home)
        cat = catalog(settings_of(home))
        ingest_id = next(r.ingest_id for r in list_ingests(cat) if r.source == "a")
        env = environment(home)
        if how == "removal killed":
            killed = subprocess.run([sys.executable, "-c", KILL_BETWEEN_COMMITS, ingest_id],
                                    cwd=ROOT, env=env, capture_output=True)  # fmt: skip
            run([LAKEMIX, "ingest", str(first), "--source", "a"], home)  # meanwhile
            found = "killed between commits" if killed.returncode == 137 else "NOT KILLED"
        else:
            files = cat.load_table("raw.documents").scan().plan_files()
            damaged = next(Path(local_path(t.file.file_path)) for t in files
                           if ingest_id in t.file.file_path)  # fmt: skip
            _damage(damaged, how)
            plain = subprocess.run([LAKEMIX, "verify"], cwd=ROOT, env=env, capture_output=True)
            deep = subprocess.run([LAKEMIX, "verify", "--deep"], cwd=ROOT, env=env,
                                  capture_output=True, text=True)  # fmt: skip
            advice = f"`lakemix ingest-remove {ingest_id}`" in deep.stdout
            found = f"plain {'found' if plain.returncode else 'passed'}, deep " + (
                "found, advice ok" if deep.returncode and advice else "MISSED"
            )
        removed = subprocess.run([LAKEMIX, "ingest-remove", ingest_id], cwd=ROOT, env=env,
                                 capture_output=True, text=True)  # fmt: skip
        if removed.returncode:
            rows.append((how, found, f"ingest-remove failed: {removed.stderr.strip()[-90:]}"))
            continue
        run([LAKEMIX, "ingest", str(first), "--source", "a"], home)
        rows.append((how, found, _lost_doubled(expected, raw_ids(home))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lakemix-bench-faults-"))
    try:
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} (2 shared cores); work in {work}")
        print(f"\n{'stage':<16} {'trials':>6} {'killed mid-run':>14} {'converged':>9}")
        for stage, trials, landed, converged in kills(work, args.trials, args.seed):
            print(f"{stage:<16} {trials:>6} {landed:>14} {converged:>9}")
        print(f"\n{'raw fault':<16} {'verify':<40} rows after repair and re-ingest")
        for how, found, outcome in repairs(work):
            print(f"{how:<16} {found:<40} {outcome}")
        print(f"\n{'file':<26} {'peak RSS':>9}  outcome / quarantine reason")
        for name, outcome, reason, rss in hostile(work):
            print(f"{name:<26} {rss:>6.0f} MB  {outcome}")
            print(f"{'':<38}{reason}")
        print(f"\n{'scenario':<22} {'rows once it is over':<22} what the commands said")
        for scenario, counted, said in hostile_scenarios(work):
            print(f"{scenario:<22} {counted:<22} {said}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
