"""A threshold change re-runs only the filtering: signals are never recomputed."""

from __future__ import annotations

from pathlib import Path

from lakemix import catalog, duck
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import BIN, WEB, dbt, run

SCORED = ("intermediate.int_documents_language_scored", "intermediate.int_documents_quality_scored")


def snapshots(settings: Settings) -> dict[str, int | None]:
    cat = catalog(settings)
    names = (*SCORED, "intermediate.int_documents_quality_filtered")
    out = {}
    for name in names:
        snap = cat.load_table(name).current_snapshot()
        out[name] = snap.snapshot_id if snap else None
    return out


def clean_count(settings: Settings) -> int:
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    row = conn.execute("select count(*) from marts.fct_clean_documents").fetchone()
    conn.close()
    return int(row[0]) if row else 0


def test_switching_filters_recomputes_no_signal(lakehouse: Settings, tmp_path: Path) -> None:
    ingest([WEB / "dolma_cc2019"], source="dolma_cc2019", fmt="jsonl")
    dbt("build", tmp=tmp_path)
    before, kept_before = snapshots(lakehouse), clean_count(lakehouse)

    dbt("build", "--vars", "{lakemix_filter_families: [floor]}", tmp=tmp_path)
    after, kept_after = snapshots(lakehouse), clean_count(lakehouse)
    for name in SCORED:
        assert after[name] == before[name], f"{name} was rewritten"
    filtered = "intermediate.int_documents_quality_filtered"
    assert after[filtered] != before[filtered]
    assert kept_after > kept_before  # fewer filter families keep more documents


def test_a_threshold_out_of_range_fails_the_build(
    lakehouse: Settings, project: Path, tmp_path: Path
) -> None:
    seeds = project / "seeds" / "quality_thresholds.csv"
    seeds.write_text(seeds.read_text() + "de,bad_fraction,short_line_fraction,<=,1.5,fineweb\n")
    calibrated = project / "seeds" / "calibrated_thresholds.csv"
    header = calibrated.read_text().split("\n", 1)[0]
    calibrated.write_text(f"{header}\nfr,gopher_min_alpha_word_fraction,-0.1,2,test,9,2026-01-01\n")
    args = ["--project-dir", str(project), "--profiles-dir", str(project)]
    env = {"DBT_TARGET_PATH": str(tmp_path / "target"), "DBT_LOG_PATH": str(tmp_path / "logs")}
    run([str(BIN / "dbt"), "seed", *args], extra_env=env)
    proc = run(
        [str(BIN / "dbt"), "test", "--select", "assert_quality_thresholds_in_range", *args],
        extra_env=env,
        check=False,
    )
    assert proc.returncode != 0 and "Got 2 results" in proc.stdout, proc.stdout[-2000:]
