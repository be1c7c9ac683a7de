"""One writer at a time, said plainly; readers keep working during a build."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.writer import holder
from tests.conftest import ROOT, dbt_command

HOLD = """
import sys, time
from lakemix.writer import writer
with writer("lakemix ingest (the holder)"):
    print("held", flush=True)
    time.sleep(float(sys.argv[1]))
"""


def _jsonl(folder: Path, name: str, lines: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [orjson.dumps({"id": f"{name}-{i}", "text": f"{name} {i} " * 30}) for i in range(lines)]
    path = folder / f"{name}.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


def _hold(seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_writer_is_told_who_holds_the_lakehouse_or_waits(
    lakehouse: Settings, tmp_path: Path
) -> None:
    data = _jsonl(tmp_path / "in", "docs", 5)
    runner = CliRunner()
    holding = _hold(3)
    try:
        refused = runner.invoke(main, ["ingest", str(data), "--source", "s", "--no-progress"])
        assert refused.exit_code == 1
        assert refused.output.count("\n") == 1, refused.output
        assert "`lakemix ingest (the holder)` (PID " + str(holding.pid) in refused.output
        assert "--wait SECONDS" in refused.output
        for args in (["ingest-remove", "abcdef"], ["gc"], ["release", "m", "--tag", "t"]):
            other = runner.invoke(main, args)
            assert other.exit_code == 1 and f"(PID {holding.pid}" in other.output, other.output
        # Readers are not writers.
        assert runner.invoke(main, ["ingests"]).exit_code == 0
        started = time.monotonic()
        waited = runner.invoke(
            main, ["ingest", str(data), "--source", "s", "--no-progress", "--wait", "60"]
        )
        assert waited.exit_code == 0, waited.output
        assert time.monotonic() - started > 1  # it waited for the holder to finish
    finally:
        holding.wait(timeout=30)
    assert holder(lakehouse) is None  # released: the next writer goes straight in


def test_a_killed_writer_leaves_no_lock(lakehouse: Settings) -> None:
    holding = _hold(600)
    assert holder(lakehouse) is not None
    holding.kill()
    holding.wait(timeout=30)
    assert holder(lakehouse) is None


def test_readers_work_and_writers_are_refused_during_a_dbt_build(
    lakehouse: Settings, tmp_path: Path
) -> None:
    ingest([_jsonl(tmp_path / "in", "first", 40)], source="first", progress=False)
    cmd, extra = dbt_command("build", tmp=tmp_path)
    build = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, **extra},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    runner = CliRunner()
    try:
        deadline = time.monotonic() + 120
        while (held := holder(lakehouse)) is None:
            assert build.poll() is None, "dbt build ended before it held the lakehouse"
            assert time.monotonic() < deadline, "dbt build never took the writer lock"
            time.sleep(0.2)
        assert held["pid"] == build.pid and "dbt build" in str(held["command"])
        second = _jsonl(tmp_path / "in2", "second", 10)
        refused = runner.invoke(main, ["ingest", str(second), "--source", "s2", "--no-progress"])
        assert refused.exit_code == 1
        assert f"dbt build --project-dir {ROOT}" in refused.output
        assert f"(PID {build.pid}" in refused.output
        # Readers, while dbt builds.
        sql = runner.invoke(main, ["sql", "select count(*) as n from raw.documents"])
        assert sql.exit_code == 0 and "40" in sql.output, sql.output
        assert runner.invoke(main, ["ingests"]).exit_code == 0
        assert runner.invoke(main, ["tables"]).exit_code == 0
        verify = runner.invoke(main, ["verify"])
        assert verify.exit_code == 0, verify.output
        assert build.poll() is None, "the readers ran after the build, not during it"
    finally:
        output = build.communicate(timeout=900)[0]
    assert build.returncode == 0, output[-3000:]
    assert holder(lakehouse) is None
