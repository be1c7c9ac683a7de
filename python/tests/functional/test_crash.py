"""kill -9 in the middle of an ingest: the catalog stays readable, a rerun converges."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lakemix import catalog, duck
from lakemix.settings import Settings
from tests.conftest import BIN, ROOT, load_bench

# bench/faults.py kills the same stages many times: one corpus writer, one mart fingerprint.
faults = load_bench("faults")
write_corpus, mart_contents = faults.write_corpus, faults.mart_contents


def ids(settings: Settings) -> tuple[list[str], list[str]]:
    """document_ids and quarantine ids, sorted; reading every table proves the catalog is sound."""
    cat = catalog(settings)
    conn = duck.connect(settings=settings)
    out = []
    for name, key in (("raw.documents", "document_id"), ("raw.quarantine", "quarantine_id")):
        if not cat.table_exists(name):  # killed before the first commit created it
            out.append([])
            continue
        table = cat.load_table(name)
        if table.current_snapshot() is None:
            out.append([])
            continue
        sql = f"select {key} from iceberg_scan('{table.metadata_location}') order by 1"
        out.append([r[0] for r in conn.execute(sql).fetchall()])
    return out[0], out[1]


def ingest_cmd(path: Path) -> list[str]:
    return [str(BIN / "lakemix"), "ingest", str(path), "--source", "crash", "--no-progress"]


def test_kill_9_during_ingest_then_rerun_converges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, 60_000)

    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "reference"))
    subprocess.run(ingest_cmd(corpus), cwd=ROOT, check=True, capture_output=True)
    expected = ids(Settings.from_env())
    assert len(expected[0]) > 59_000 and len(expected[1]) == 61

    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "crashed"))
    settings = Settings.from_env()
    rng = random.Random(int(os.environ.get("LAKEMIX_CRASH_SEED", "1")))
    killed = 0
    for _ in range(4):
        proc = subprocess.Popen(
            ingest_cmd(corpus), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.5, 2.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        proc.wait()
        documents, quarantined = ids(settings)  # readable after every kill
        assert len(documents) == len(set(documents)) and len(quarantined) == len(set(quarantined))
        assert documents in ([], expected[0])  # all or nothing: one atomic commit
    assert killed >= 1

    rerun = subprocess.run(ingest_cmd(corpus), cwd=ROOT, check=True, capture_output=True, text=True)
    assert ids(settings) == expected
    if "already ingested" not in rerun.stdout:
        assert "59,939 ingested" in rerun.stdout


def test_kill_9_during_dbt_build_then_rerun_converges(lakehouse: Settings, tmp_path: Path) -> None:
    corpus, more = tmp_path / "corpus.jsonl", tmp_path / "more.jsonl"
    write_corpus(corpus, 300)
    write_corpus(more, 150, "more")
    env = {
        **os.environ,
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "DBT_LOG_PATH": str(tmp_path / "logs"),
    }
    build = [str(BIN / "dbt"), "build", "--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]

    # The reference: the same files built once, uninterrupted, in another lakehouse.
    reference_env = {**env, "LAKEMIX_HOME": str(tmp_path / "reference")}
    for path in (corpus, more):
        subprocess.run(ingest_cmd(path), cwd=ROOT, env=reference_env, check=True)
    subprocess.run(build, cwd=ROOT, env=reference_env, check=True, capture_output=True)
    expected = mart_contents(tmp_path / "reference")

    # Here: a build, more data, then builds killed part-way (the incremental models have new
    # rows to append), then one that finishes.
    subprocess.run(ingest_cmd(corpus), cwd=ROOT, env=env, check=True)
    start = time.perf_counter()
    subprocess.run(build, cwd=ROOT, env=env, check=True, capture_output=True)
    duration = time.perf_counter() - start
    subprocess.run(ingest_cmd(more), cwd=ROOT, env=env, check=True)
    rng = random.Random(11)
    for _ in range(2):
        proc = subprocess.Popen(build, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.4, 0.9) * duration)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        ids(lakehouse)  # the catalog opens and the raw tables read after every kill
    subprocess.run(build, cwd=ROOT, env=env, check=True, capture_output=True)
    assert mart_contents(lakehouse.home) == expected
