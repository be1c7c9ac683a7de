"""The rejection-drift test: a filter that changes behaviour on released documents fails the
build (and so blocks a release) unless its configuration changed or the limit is raised."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import BIN, UNREVIEWED, WEB, run

DRIFT_TEST = "assert_rejection_rates_near_last_release"
FILTERED = Path("models/intermediate/cleaning/int_documents_quality_filtered.sql")


def build(project: Path, *args: str, check: bool = True) -> str:
    where = ["--project-dir", str(project), "--profiles-dir", str(project)]
    proc = run([str(BIN / "dbt"), "build", *args, *where], check=check)
    return proc.stdout


def test_drift_blocks_a_release_unless_explained(lakehouse: Settings, project: Path) -> None:
    runner = CliRunner()
    ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
    build(project)
    for args in (
        ["mix", "build", "demo_unimax"],
        ["release", "demo_unimax", "--tag", "v1", *UNREVIEWED],
    ):
        done = runner.invoke(main, args)
        assert done.exit_code == 0, done.output
    select = ["-s", "int_documents_quality_filtered", DRIFT_TEST]

    # A broken filter: the quality model's rule now rejects every document (a rule the unit
    # test of the model does not pin, so the model still builds).
    model = project / FILTERED
    original = model.read_text()
    check = "'not ' ~ lakemix.threshold_passed("
    assert check in original
    model.write_text(
        original.replace(
            check,
            "\"(candidate.rule = 'model_min_quality_score'\""
            " ~ ' and ' ~ value ~ ' <= 1) or ' ~ " + check,
        )
    )
    failed = build(project, *select, check=False)
    assert f"Failure in test {DRIFT_TEST}" in failed, failed[-3000:]
    refused = runner.invoke(main, ["release", "demo_unimax", "--tag", "v2"])
    assert refused.exit_code == 1 and DRIFT_TEST in refused.output, refused.output
    # A larger allowance lets it pass.
    build(project, *select, "--vars", "{lakemix_rejection_drift_points: 100}")

    # The same rate change made by the configuration is explained, so it passes: a threshold
    # changed in quality_thresholds, or a calibrated one (every English document now fails
    # floor_min_words).
    model.write_text(original)
    calibrated = project / "seeds" / "calibrated_thresholds.csv"
    header = calibrated.read_text().split("\n", 1)[0]
    calibrated.write_text(f"{header}\nen,floor_min_words,1000000,1,test,20,2026-01-01\n")
    seeds = project / "seeds" / "quality_thresholds.csv"
    seeds.write_text(
        seeds.read_text().replace(
            "model_min_quality_score,quality_score,>=,0.5,",
            "model_min_quality_score,quality_score,>=,1.1,",
        )
    )
    build(project, "-s", "quality_thresholds", "calibrated_thresholds", *select)
    shown = run(
        [
            str(BIN / "dbt"),
            "show",
            "-q",
            "-s",
            DRIFT_TEST,
            "--vars",
            "{lakemix_rejection_drift_points: -1}",
            "--limit",
            "100",
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project),
        ]
    ).stdout
    assert "model_min_quality_score" not in shown and "floor_max_words" in shown
    assert "floor_min_words" not in shown
