"""bench/faults_concurrency: N concurrent writers of mixed commands, random SIGKILLs; nothing
lost or doubled.

Usage: .venv/bin/python bench/faults_concurrency.py [--writers 6] [--rounds 2] [--seed 1]

Set-up: the two demo corpora ingested, built, mix demo_unimax built and released (``v0``), so
that builds and releases have something to do. Each round then starts ``--writers`` processes
on the lakehouse, in a random order, 0.3 s apart: ``lakemix ingest --wait`` of overlapping
folders (every file is in two folders; content new in every round), one ``dbt build`` and one
``lakemix release demo_unimax`` (both without waiting: refused at once while another writer
holds the lakehouse) and one ``lakemix gc --grace 0 --wait``; each process is SIGKILLed with
probability 1/3 at a random moment of its expected run. Every run ends done, killed, refused
by the writer lock (a clean refusal: one line naming the holder, nothing written) or failed
(printed). After the rounds every ingest is run once more to completion (a killed ingest is
finished by its rerun), a final ``dbt build`` must pass, ``lakemix verify --deep --all-tags``
checks every file, and the accounting compares ``raw.documents`` with the bench's files: rows
lost (a file's record missing) and rows doubled (a record twice). Goal: 0 failed, final build
passed, verify clean, 0 lost, 0 doubled.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LAKEMIX = str(BIN / "lakemix")
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora")) / "web"
DEMO_SOURCES = ("dolma_cc_en_head", "oscar2201")
MIX = "demo_unimax"
FILES = 8
LINES = 400
FOLDERS = {"a": range(0, 4), "b": range(2, 6), "c": range(4, 8), "d": (0, 3, 5, 7)}
# Seconds within which a kill may strike, per kind of writer (about its run here).
KILL_WITHIN = {"ingest": 12.0, "gc": 12.0, "build": 120.0, "release": 20.0}
BUSY = "is being written by"  # the writer lock's refusal (lakemix.writer)
OUTCOMES = ("done", "killed", "refused, clean", "failed")


@dataclass
class Writer:
    """One writer process of a round and what became of it."""

    kind: str
    cmd: list[str]
    proc: subprocess.Popen[str] | None = None
    kill_at: float | None = None
    killed: bool = False
    log: Path | None = None

    def outcome(self) -> str:
        assert self.proc is not None and self.log is not None
        if self.killed:
            return "killed"
        if self.proc.returncode == 0:
            return "done"
        return "refused, clean" if BUSY in self.log.read_text() else "failed"


@dataclass
class Tally:
    """Outcomes per kind of writer."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, writer: Writer) -> None:
        outcome = writer.outcome()
        self.counts[writer.kind, outcome] += 1
        if outcome == "failed" and writer.log is not None and writer.proc is not None:
            last = writer.log.read_text().strip().splitlines()[-1:] or ["(no output)"]
            code = writer.proc.returncode
            self.failures.append(f"{writer.kind} exit {code}: {last[0][:300]}")


def environment(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAKEMIX_", "DBT_"))}
    return {
        **env,
        "LAKEMIX_HOME": str(work / "lakehouse"),
        "DBT_TARGET_PATH": str(work / "target"),
        "DBT_LOG_PATH": str(work / "logs"),
        "DO_NOT_TRACK": "1",
    }


def corpus(root: Path, round_: int) -> tuple[dict[str, Path], set[str]]:
    """The folders of one round and the record ids they hold."""
    import orjson

    folders, ids = {}, set()
    for name, members in FOLDERS.items():
        folder = root / f"round{round_}" / name
        folder.mkdir(parents=True)
        for n in members:
            rows = []
            for i in range(LINES):
                record_id = f"r{round_}-f{n}-{i}"
                ids.add(record_id)
                rows.append(orjson.dumps({"id": record_id, "text": f"{record_id} " * 40}))
            (folder / f"part-{n}.jsonl").write_bytes(b"\n".join(rows) + b"\n")
        folders[name] = folder
    return folders, ids


def ingest_cmd(folder: Path, source: str = "bench") -> list[str]:
    return [LAKEMIX, "ingest", str(folder), "--source", source, "--no-progress", "--wait", "900"]


def build_cmd() -> list[str]:
    return [str(BIN / "dbt"), "build", "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]


def run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-3000:]}")
    return proc


def set_up(env: dict[str, str]) -> None:
    """The demo lakehouse, released as v0."""
    for source in DEMO_SOURCES:
        run([*ingest_cmd(CORPORA / source, source), "--format", "jsonl"], env)
    run(build_cmd(), env)
    run([LAKEMIX, "mix", "build", MIX], env)
    run([LAKEMIX, "release", MIX, "--tag", "v0", *UNREVIEWED], env)


def round_writers(folders: dict[str, Path], writers: int, round_: int) -> list[Writer]:
    """Ingests of ``writers - 3`` folders (at least one), a build, a release and a gc."""
    chosen = list(folders.values())[: max(1, writers - 3)]
    ingests = [Writer("ingest", ingest_cmd(folder)) for folder in chosen]
    return [
        *ingests,
        Writer("build", build_cmd()),
        Writer("release", [LAKEMIX, "release", MIX, "--tag", f"r{round_}", *UNREVIEWED]),
        Writer("gc", [LAKEMIX, "gc", "--grace", "0", "--wait", "900"]),
    ]


def run_round(writers: list[Writer], env: dict[str, str], logs: Path, rng: random.Random) -> None:
    """Start the writers in a random order, kill some, wait for the rest."""
    rng.shuffle(writers)
    t0 = time.monotonic()
    for n, writer in enumerate(writers):
        if rng.random() < 1 / 3:
            writer.kill_at = rng.uniform(1.0, KILL_WITHIN[writer.kind])
        writer.log = logs / f"{len(list(logs.iterdir()))}-{writer.kind}.log"
        with writer.log.open("w") as out:
            writer.proc = subprocess.Popen(
                writer.cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True
            )
        if n < len(writers) - 1:
            time.sleep(0.3)
    while any(w.proc is not None and w.proc.poll() is None for w in writers):
        for w in writers:
            assert w.proc is not None
            due = w.kill_at is not None and time.monotonic() - t0 >= w.kill_at
            if due and not w.killed and w.proc.poll() is None:
                w.proc.send_signal(signal.SIGKILL)
                w.proc.wait()
                w.killed = True
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="lakemix-bench-concurrency-"))
    env = environment(work)
    logs = work / "runs"
    logs.mkdir()
    expected: set[str] = set()
    tally = Tally()
    started = time.perf_counter()
    try:
        set_up(env)
        every: list[Path] = []
        for round_ in range(args.rounds):
            folders, ids = corpus(work / "in", round_)
            expected |= ids
            every.extend(folders.values())
            writers = round_writers(folders, args.writers, round_)
            run_round(writers, env, logs, rng)
            for writer in writers:
                tally.add(writer)
        for folder in every:  # finish what the kills interrupted
            run(ingest_cmd(folder), env)
        final = subprocess.run(build_cmd(), cwd=ROOT, env=env, capture_output=True, text=True)
        verify = subprocess.run(
            [LAKEMIX, "verify", "--deep", "--all-tags"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        report(args, tally, expected, env, final, verify, started)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(
    args: argparse.Namespace,
    tally: Tally,
    expected: set[str],
    env: dict[str, str],
    final: subprocess.CompletedProcess[str],
    verify: subprocess.CompletedProcess[str],
    started: float,
) -> None:
    """Print the runs per kind and outcome, then the accounting."""
    sys.path.insert(0, str(ROOT / "python"))
    from lakemix import catalog
    from lakemix.ingest.run import document_id
    from lakemix.settings import Settings

    table = catalog(Settings.from_env(env)).load_table("raw.documents")
    rows = table.scan(row_filter="source == 'bench'", selected_fields=("document_id",))
    counts = Counter(rows.to_arrow().column("document_id").to_pylist())
    wanted = {document_id("bench", record_id, "", 0) for record_id in expected}
    lost = len(wanted - counts.keys())
    doubled = sum(n - 1 for n in counts.values() if n > 1) + len(counts.keys() - wanted)
    print(
        f"load average {os.getloadavg()[0]:.2f} (2 shared cores); "
        f"{time.perf_counter() - started:.0f} s; writers {args.writers}, rounds {args.rounds}, "
        f"seed {args.seed}"
    )
    print(f"{'writer':<8} {'runs':>4} " + " ".join(f"{o:>14}" for o in OUTCOMES))
    for kind in KILL_WITHIN:
        n = [tally.counts[kind, o] for o in OUTCOMES]
        print(f"{kind:<8} {sum(n):>4} " + " ".join(f"{c:>14}" for c in n))
    total = [sum(tally.counts[k, o] for k in KILL_WITHIN) for o in OUTCOMES]
    print(f"{'all':<8} {sum(total):>4} " + " ".join(f"{c:>14}" for c in total))
    for failure in tally.failures:
        print(f"  failed: {failure}")
    print(
        f"rows {len(expected)}, lost {lost}, doubled {doubled}; final dbt build "
        f"{'passed' if final.returncode == 0 else 'FAILED'}; verify --deep --all-tags "
        f"{'clean' if verify.returncode == 0 else 'BROKEN'}"
    )
    if final.returncode != 0:
        print(final.stdout[-2000:])
    if verify.returncode != 0:
        print(verify.stdout[-2000:])


if __name__ == "__main__":
    main()
