"""bench/faults_concurrency: N concurrent writers, random SIGKILLs; nothing lost or doubled.

Usage: .venv/bin/python bench/faults_concurrency.py [--writers 4] [--rounds 5] [--seed 1]

Each round starts ``--writers`` processes at once on one lakehouse: ``lakemix ingest --wait`` of
overlapping folders (every file is in two folders; content new in every round) and one
``lakemix gc --grace 0 --wait``; each process is SIGKILLed with probability 1/3 at a random
moment of its expected run. After the rounds every ingest is run once more to completion (a
killed ingest is finished by its rerun), then ``lakemix verify --deep`` checks every file and the
accounting compares ``raw.documents`` with the files: rows lost (a file's record missing) and rows
doubled (a record twice). Goal: verify clean, 0 lost, 0 doubled. Builds and releases are not in
the mix here (a dbt build takes minutes on this machine); bench/faults.py kills those alone.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LAKEMIX = str(BIN / "lakemix")
FILES = 8
LINES = 400
FOLDERS = {"a": range(0, 4), "b": range(2, 6), "c": range(4, 8), "d": (0, 3, 5, 7)}


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKEMIX_")}
    return {**env, "LAKEMIX_HOME": str(home), "DO_NOT_TRACK": "1"}


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


def ingest_cmd(folder: Path) -> list[str]:
    return [LAKEMIX, "ingest", str(folder), "--source", "bench", "--no-progress", "--wait", "300"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="lakemix-bench-concurrency-"))
    home = work / "lakehouse"
    env = environment(home)
    expected: set[str] = set()
    runs = kills = 0
    started = time.perf_counter()
    try:
        every: list[Path] = []
        for round_ in range(args.rounds):
            folders, ids = corpus(work / "in", round_)
            expected |= ids
            every.extend(folders.values())
            cmds = [ingest_cmd(f) for f in list(folders.values())[: args.writers - 1]]
            cmds.append([LAKEMIX, "gc", "--grace", "0", "--wait", "300"])
            procs = [
                subprocess.Popen(
                    c, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                for c in cmds
            ]
            runs += len(procs)
            doomed = {p.pid: rng.uniform(1.0, 12.0) for p in procs if rng.random() < 1 / 3}
            t0 = time.monotonic()
            while any(p.poll() is None for p in procs):
                for p in procs:
                    at = doomed.get(p.pid)
                    if at is not None and p.poll() is None and time.monotonic() - t0 >= at:
                        p.send_signal(signal.SIGKILL)
                        kills += 1
                        doomed.pop(p.pid)
                time.sleep(0.05)
        for folder in every:  # finish what the kills interrupted
            subprocess.run(ingest_cmd(folder), cwd=ROOT, env=env, check=True, capture_output=True)
        verify = subprocess.run(
            [LAKEMIX, "verify", "--deep"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        sys.path.insert(0, str(ROOT / "python"))
        from lakemix import catalog
        from lakemix.settings import Settings

        table = catalog(Settings.from_env(env)).load_table("raw.documents")
        meta = table.scan(selected_fields=("document_id",)).to_arrow()
        counts = Counter(meta.column("document_id").to_pylist())
        lost = len(expected) - len(counts)
        doubled = sum(n - 1 for n in counts.values() if n > 1)
        print(
            f"load average {os.getloadavg()[0]:.2f} (2 shared cores); "
            f"{time.perf_counter() - started:.0f} s"
        )
        print(
            f"{'writers':>7} {'rounds':>6} {'runs':>5} {'kills':>5} {'rows':>7} {'lost':>5} "
            f"{'doubled':>7}  verify --deep"
        )
        print(
            f"{args.writers:>7} {args.rounds:>6} {runs:>5} {kills:>5} {len(expected):>7} "
            f"{lost:>5} {doubled:>7}  {'clean' if verify.returncode == 0 else 'BROKEN'}"
        )
        if verify.returncode != 0:
            print(verify.stdout[-2000:])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
