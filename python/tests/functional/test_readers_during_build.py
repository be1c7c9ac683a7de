"""Readers keep working while a `dbt build` holds a built lakehouse: sql, search, the loader
and the report read the catalog, the warehouse and the index, never the locked DuckDB file."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import duckdb
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.loader import MixLoader
from lakemix.search.sql import connect as search_sql
from lakemix.settings import Settings
from lakemix.versions import get_release
from lakemix.writer import holder
from tests.conftest import ROOT, dbt_command, lakehouse_in


def _duckdb_locked(settings: Settings) -> bool:
    try:
        duckdb.connect(str(settings.duckdb_path), read_only=True).close()
    except duckdb.IOException as exc:
        assert "lock" in str(exc), exc
        return True
    return False


def _catalog_quiet(settings: Settings) -> bool:
    """No write transaction open on the SQLite catalog (the stopped build is between commits)."""
    path = settings.catalog_uri.removeprefix("sqlite:///").split("?")[0]
    conn = sqlite3.connect(path, timeout=0.1)
    try:
        conn.execute("begin immediate")
        conn.rollback()
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _pause_mid_build(build: subprocess.Popen[str], settings: Settings) -> None:
    """Wait until the build holds the writer lock and DuckDB's file lock, then stop it (SIGSTOP)
    at a moment no catalog commit is half-done: it stays mid-build while the readers run."""
    deadline = time.monotonic() + 300
    while True:
        assert build.poll() is None, "dbt build ended before it held the DuckDB file"
        assert time.monotonic() < deadline, "dbt build never locked the DuckDB file"
        held = holder(settings)
        if held is not None and held["pid"] == build.pid and _duckdb_locked(settings):
            os.kill(build.pid, signal.SIGSTOP)
            if _catalog_quiet(settings):
                return
            os.kill(build.pid, signal.SIGCONT)
        time.sleep(0.2)


def test_sql_search_loader_and_report_answer_in_the_middle_of_a_dbt_build(
    demo_release: Path, tmp_path: Path
) -> None:
    home = demo_release / "lakehouse"
    backup = tmp_path / "backup"
    shutil.copytree(home, backup, symlinks=True)
    build: subprocess.Popen[str] | None = None
    try:
        with lakehouse_in(demo_release) as settings:
            cmd, extra = dbt_command("build", tmp=tmp_path)
            build = subprocess.Popen(
                cmd,
                cwd=ROOT,
                env={**os.environ, **extra},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _pause_mid_build(build, settings)
            runner = CliRunner()

            sql = runner.invoke(
                main, ["sql", "select count(*) as n from marts.fct_clean_documents"]
            )
            assert sql.exit_code == 0, sql.output
            found = runner.invoke(main, ["search", "the", "--limit", "3"])
            assert found.exit_code == 0 and found.output.strip(), found.output
            conn = search_sql(settings)  # the SQL entry point: a private session meanwhile
            try:
                (hits,) = conn.execute(
                    "select count(*) from search.match_documents('the')"
                ).fetchone() or (0,)
                (clean,) = conn.execute(
                    "select count(*) from marts.fct_clean_documents"
                ).fetchone() or (0,)
            finally:
                conn.close()
            assert hits > 0 and clean > 0
            loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=64, batch_size=4, seed=5)
            train = [s for s in get_release("v1").stats if s.split == "train"]
            tokens = sum(int(b["cu_seqlens"][-1]) for b in loader)
            assert tokens == sum(s.tokens + s.samples for s in train)
            out = tmp_path / "report.html"
            report = runner.invoke(main, ["report", "--output", str(out)])
            assert report.exit_code == 0, report.output
            assert out.stat().st_size > 10_000

            # They ran while the build held the lakehouse, not after it.
            assert build.poll() is None and _duckdb_locked(settings)
            assert holder(settings) is not None
    finally:
        if build is not None:
            build.kill()  # stopped processes die on SIGKILL too; the copy restores the rest
            build.wait(timeout=60)
        shutil.rmtree(home)
        shutil.copytree(backup, home, symlinks=True)  # the shared lakehouse as it was
