"""bench/faults_gate: what may be released, what a tag may be, what a copy may touch.

Usage: .venv/bin/python bench/faults_gate.py [--kills 4] [--seed 1]

Each scenario runs the commands a user (or a crash) would, on a small lakehouse of real Leipzig
sentences, and counts what must stay zero:

- a release after a state no passing ``dbt build`` stands behind: a build killed just after it
  committed ``fct_clean_documents`` and a ``lakemix mix build`` after it; an ingest after the
  build; a ``dbt run`` (no tests); a build whose test failed and a mix build after it;
- a release tagged ``main``, all digits or a date, and whether ingest and ``dbt build`` still
  work after the attempt;
- releases SIGKILLed at random points: tags left without a manifest row that a reader takes for a
  version (``sql --at``), and those ``gc`` leaves;
- a copied lakehouse: files of the original changed by commands run in the copy, before and
  after ``lakemix relocate``, and whether the copy then reads the release as the original does.

Goal: every count 0, every "after" command working.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _faults() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_faults", ROOT / "bench" / "faults.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_faults"] = module
    spec.loader.exec_module(module)
    return module


F = _faults()
LAKEMIX, DBT, UNREVIEWED = F.LAKEMIX, F.DBT, F.UNREVIEWED


def attempt(cmd: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=ROOT, env=F.environment(home), capture_output=True, text=True, check=False
    )


def released(home: Path, tag: str) -> bool:
    """Whether ``release demo_unimax --tag tag`` succeeds (after a mix build, as a user would)."""
    attempt([LAKEMIX, "mix", "build", "demo_unimax"], home)
    return (
        attempt([LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", tag], home).returncode
        == 0
    )


def clean_invocation(home: Path) -> str | None:
    from lakemix import catalog

    snapshot = (
        catalog(F.settings_of(home)).load_table("marts.fct_clean_documents").current_snapshot()
    )
    return (snapshot.summary or {}).get("lakemix.dbt_invocation_id") if snapshot else None


def unreleasable(work: Path) -> list[tuple[str, str]]:
    """Each state that no passing build stands behind, then a release attempt."""
    home = work / "gate"
    base, more = work / "gate-a.jsonl", work / "gate-b.jsonl"
    F.write_corpus(base, 400, "ga")
    F.run([LAKEMIX, "ingest", str(base), "--source", "a"], home)
    F.run(DBT, home)
    rows = [("a passing build (control)", "released" if released(home, "ok") else "REFUSED")]

    for n, name in enumerate(("build killed after fct_clean_documents", "ingest after the build",
                              "dbt run (no tests)")):  # fmt: skip
        F.write_corpus(more, 100, f"gb{n}")
        F.run([LAKEMIX, "ingest", str(more), "--source", f"b{n}"], home)
        if n == 0:
            before = clean_invocation(home)
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            proc = subprocess.Popen(DBT, cwd=ROOT, env=F.environment(home), **quiet)  # type: ignore[call-overload]
            while proc.poll() is None and clean_invocation(home) == before:
                time.sleep(0.2)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        elif n == 2:
            attempt([DBT[0], "run", *DBT[2:]], home)
        rows.append((name, "RELEASED" if released(home, f"bad{n}") else "refused"))
        F.run(DBT, home)  # back to a passing build for the next scenario

    project = work / "project"  # the project with one test that fails
    project.mkdir()
    for part in ("dbt_project.yml", "profiles.yml", "models", "macros", "tests", "seeds",
                 "mixes", "snapshots", "analyses"):  # fmt: skip
        source = ROOT / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / part)
    (project / "tests" / "assert_bench_gate_fails.sql").write_text("select 1 as failure\n")
    attempt([DBT[0], "build", "--project-dir", str(project), "--profiles-dir", str(project)], home)
    rows.append(
        ("failed test, then mix build", "RELEASED" if released(home, "bad3") else "refused")
    )
    return rows


def reserved(work: Path) -> list[tuple[str, str]]:
    home = work / "gate"  # built by unreleasable(): the last build failed, so build first
    F.run(DBT, home)
    rows = []
    for tag in ("main", "12345", "2026-12-01"):
        done = attempt([LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", tag], home)
        why = (done.stderr or done.stdout).strip().splitlines()[-1][:70]
        rows.append((f"tag {tag!r}", "RELEASED" if done.returncode == 0 else f"refused: {why}"))
    F.write_corpus(work / "gate-c.jsonl", 50, "gc")
    ok = attempt([LAKEMIX, "ingest", str(work / "gate-c.jsonl"), "--source", "c"], home)
    built = attempt(DBT, home)
    rows.append(
        ("ingest and build after", "work" if not (ok.returncode or built.returncode) else "BROKEN")
    )
    return rows


def ghosts(work: Path, kills: int, rng: random.Random) -> list[tuple[str, str]]:
    from lakemix import catalog
    from lakemix.versions.refs import ghost_tags

    home = work / "gate"
    attempt([LAKEMIX, "mix", "build", "demo_unimax"], home)
    start = time.perf_counter()
    attempt([LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", "timed"], home)
    duration = time.perf_counter() - start
    readable = left = landed = 0
    for n in range(kills):
        tag = f"killed-{n}"
        proc = subprocess.Popen([LAKEMIX, "release", "demo_unimax", *UNREVIEWED, "--tag", tag],
                                cwd=ROOT, env=F.environment(home), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0.3, 1.0) * duration)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            landed += 1
        proc.wait()
        if tag in ghost_tags(catalog(F.settings_of(home))):
            left += 1
            query = attempt([LAKEMIX, "sql", "select 1", "--at", tag], home)
            readable += query.returncode == 0
    attempt([LAKEMIX, "gc", "--grace", "0"], home)
    after = len(ghost_tags(catalog(F.settings_of(home))))
    return [
        (f"{kills} releases killed ({landed} mid-run)", f"{left} left ghost tags"),
        ("ghost tags read as a version", str(readable)),
        ("ghost tags after gc", str(after)),
    ]


def copied(work: Path) -> list[tuple[str, str]]:
    original = work / "gate"
    copy = work / "gate-copy"
    shutil.copytree(original, copy, symlinks=True)

    def state() -> dict[str, int]:
        return {str(p): p.stat().st_mtime_ns for p in (original / "warehouse").rglob("*")}

    before = state()
    extra = work / "gate-d.jsonl"
    F.write_corpus(extra, 50, "gd")
    refused = attempt([LAKEMIX, "ingest", str(extra), "--source", "d"], copy)
    touched = sum(1 for k, v in state().items() if before.get(k) != v)
    rows = [("ingest into the copy", f"{'refused' if refused.returncode else 'RAN'}; "
             f"{touched} files of the original changed")]  # fmt: skip
    moved = attempt([LAKEMIX, "relocate"], copy)
    query = "select count(*), sum(token_count) from marts.mix_demo_unimax"
    same = (attempt([LAKEMIX, "sql", query, "--at", "ok"], copy).stdout
            == attempt([LAKEMIX, "sql", query, "--at", "ok"], original).stdout)  # fmt: skip
    for cmd in ([LAKEMIX, "ingest", str(extra), "--source", "d"], DBT):
        attempt(cmd, copy)
    touched = sum(1 for k, v in state().items() if before.get(k) != v)
    rows.append((f"relocate ({'ok' if moved.returncode == 0 else 'FAILED'}), ingest, build",
                 f"release reads {'the same' if same else 'DIFFERENTLY'}; "
                 f"{touched} files of the original changed"))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lakemix-bench-gate-"))
    try:
        print(f"load average {os.getloadavg()[0]:.2f} (2 shared cores); work in {work}")
        rng = random.Random(args.seed)
        for title, rows in (
            ("state before the release", unreleasable(work)),
            ("reserved tag", reserved(work)),
            ("killed releases", ghosts(work, args.kills, rng)),
            ("copied lakehouse", copied(work)),
        ):
            print(f"\n{title:<44} outcome")
            for name, outcome in rows:
                print(f"{name:<44} {outcome}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
