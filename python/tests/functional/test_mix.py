"""lakemix mix plan / build on a real fixture corpus: shares, epochs, determinism, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix import duck
from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import WEB, dbt


def mix_rows(settings: Settings, name: str) -> list[tuple[object, ...]]:
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    return conn.execute(f"select * from marts.mix_{name} order by document_id").fetchall()


def test_plan_and_build_mixes(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    ingest([WEB / "dolma_cc2019"], source="dolma_cc2019", fmt="jsonl")
    ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
    dbt("build", tmp=tmp_path)
    runner = CliRunner()

    plan = runner.invoke(main, ["mix", "plan", "demo_unimax"])
    assert plan.exit_code == 0, plan.output
    assert "mix demo_unimax: unimax (max epochs 4.0)" in plan.output
    assert "en " in plan.output

    built = runner.invoke(main, ["mix", "build", "demo_unimax"])
    assert built.exit_code == 0, built.output
    first = mix_rows(lakehouse, "demo_unimax")
    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    summary = conn.execute(
        "select max(realized_epochs), sum(realized_share), count(*) "
        "from marts.mix_demo_unimax_languages"
    ).fetchone()
    conn.close()
    assert summary is not None and summary[0] <= 4 and summary[1] == pytest.approx(1)
    assert {row[-1] for row in first} == {"train", "validation"}

    again = runner.invoke(main, ["mix", "build", "demo_unimax"])
    assert again.exit_code == 0, again.output
    assert mix_rows(lakehouse, "demo_unimax") == first  # a pure function of documents and seed

    missing = runner.invoke(main, ["mix", "plan", "no_such_mix"])
    assert missing.exit_code == 1
    assert "no mix named 'no_such_mix'" in missing.output and "demo_unimax" in missing.output
