"""Two ingests and a dbt build started at the same time, on SQLite and on PostgreSQL: they take
turns at the writer lock (each waits for it) and no commit is lost."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from lakemix import catalog
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import BIN, ROOT, WEB, dbt


def raw_rows(settings: Settings) -> dict[str, int]:
    table = catalog(settings).load_table("raw.documents")
    sources = table.scan(selected_fields=("source",)).to_arrow().column("source").to_pylist()
    return {s: sources.count(s) for s in sorted(set(sources))}


def test_two_ingests_and_a_build_at_once(any_lakehouse: Settings, tmp_path: Path) -> None:
    first = ingest([WEB / "dolma_cc_en_head"], source="head", fmt="jsonl")
    dbt("build", tmp=tmp_path)
    env = {
        **os.environ,
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "DBT_LOG_PATH": str(tmp_path / "logs"),
        "LAKEMIX_WAIT": "600",  # dbt's way to wait for the writer lock
    }
    ingest_cmd = [
        *(str(BIN / "lakemix"), "ingest", "--format", "jsonl", "--no-progress", "--wait", "600")
    ]
    commands = {
        "ingest oscar2201": [*ingest_cmd, str(WEB / "oscar2201"), "--source", "oscar2201"],
        "ingest dolma": [*ingest_cmd, str(WEB / "dolma_cc2019"), "--source", "dolma_cc2019"],
        "dbt build": [str(BIN / "dbt"), "build", "--project-dir", str(ROOT)],
    }
    procs = {
        name: subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for name, cmd in commands.items()
    }
    outputs = {name: proc.communicate(timeout=600)[0] for name, proc in procs.items()}
    for name, proc in procs.items():
        assert proc.returncode == 0, f"{name} failed:\n{outputs[name][-3000:]}"

    # Every commit landed: the two concurrent ingests' rows and their ledger entries.
    rows = raw_rows(any_lakehouse)
    assert rows["head"] == first.total("documents")
    assert rows["oscar2201"] == 63 and rows["dolma_cc2019"] == 697
    table = catalog(any_lakehouse).load_table("raw.documents")
    sources = [
        (s.summary.additional_properties if s.summary else {}).get("lakemix.source")
        for s in table.metadata.snapshots
    ]
    assert sorted(filter(None, sources)) == ["dolma_cc2019", "head", "oscar2201"]

    # A build after them sees everything, and its accounting test (raw = clean + rejected) holds.
    after = dbt("build", tmp=tmp_path)
    assert "ERROR=0" in after.stdout and "SKIP=0" in after.stdout
