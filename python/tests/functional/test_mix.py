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


def test_a_mix_keeps_the_best_scored_share_of_each_language(
    lakehouse: Settings, project: Path, tmp_path: Path
) -> None:
    ingest([WEB / "dolma_cc2019"], source="dolma_cc2019", fmt="jsonl")
    dbt("build", tmp=tmp_path)
    (project / "mixes" / "best_half.yml").write_text(
        "name: best_half\ntoken_budget: 100000\nlanguages: all\n"
        "strategy: {kind: unimax, max_epochs: 1}\nseed: 3\n"
        "min_quality: {quality_top_fraction: 0.5}\n"
    )
    built = CliRunner().invoke(main, ["mix", "build", "best_half"])
    assert built.exit_code == 0, built.output
    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    floors = dict(
        conn.execute(
            "select language, any_value(min_quality_score) from meta.mix_plans "
            "where mix_name = 'best_half' group by 1"
        ).fetchall()
    )
    expected = dict(
        conn.execute(
            "select language, quantile_disc(quality_score, 0.5) from marts.fct_clean_documents "
            "group by 1"
        ).fetchall()
    )
    assert floors and all(floors[lang] == expected[lang] for lang in floors)
    below = conn.execute(
        "select count(*) from marts.mix_best_half as m inner join marts.fct_clean_documents "
        "as d using (document_id) inner join meta.mix_plans as p on p.mix_name = 'best_half' "
        "and p.language = d.language and p.source_id = d.source_id "
        "where d.quality_score < p.min_quality_score"
    ).fetchone()
    assert below == (0,)
    english = conn.execute(
        "select (select count(distinct document_id) from marts.mix_best_half as m inner join "
        "marts.fct_clean_documents using (document_id) where m.language = 'en'), "
        "(select count(*) from marts.fct_clean_documents where language = 'en')"
    ).fetchone()
    assert english is not None and 0 < english[0] <= english[1] / 2 + 1
