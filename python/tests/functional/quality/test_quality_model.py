"""End to end: review verdicts -> a model trained on them -> every document re-scored -> the mix
changes, and its release records the new model."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.settings import Settings
from lakemix.udf.quality_model import DEFAULT_MODEL, file_digest, load
from lakemix.versions import get_release
from tests.conftest import BIN, UNREVIEWED, copied_release, run


def dbt(project: Path, *args: str, check: bool = True) -> str:
    where = ["--project-dir", str(project), "--profiles-dir", str(project)]
    return run([str(BIN / "dbt"), *args, *where], check=check).stdout


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def released(demo_release: Path, project: Path, tmp_path: Path) -> Iterator[Settings]:
    """A relocated copy of the session's demo lakehouse (its v1 released with the shipped
    model); dbt's target and logs where ``project`` put them."""
    with (
        copied_release(demo_release, tmp_path / "house") as settings,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
        patch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
        yield settings


def test_verdicts_retrain_rescore_and_the_release_records_the_model(
    released: Settings, project: Path, tmp_path: Path
) -> None:
    v1 = get_release("v1")
    assert v1.quality_model["sha256"] == file_digest(DEFAULT_MODEL)

    # Reviewers judge the documents the model is least sure of: they call English bad and the
    # rest good (a house rule the shipped model cannot know).
    sample = tmp_path / "sample.csv"
    cli("review", "sample", "--strategy", "uncertainty", "--n", "80", "--output", str(sample))
    with sample.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["verdict"] = "bad" if row["language"] == "en" else "good"
    assert {"bad", "good"} == {row["verdict"] for row in rows}
    with sample.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    cli("review", "label", "--csv", str(sample), "--reviewer", "ana")

    trained = cli("quality", "train", "--reviews", "--seed", "1")
    model_path = Path(trained.split("wrote ", 1)[1].split(" (sha256", 1)[0])
    model = load(model_path)
    assert model.info["trained_by"] == "lakemix quality train" and model.info["documents"] > 0
    assert "lakemix_quality_model:" in trained

    # The new model in the project's vars: the incremental run refuses, the full refresh re-scores.
    config = project / "dbt_project.yml"
    config.write_text(
        config.read_text().replace(
            "lakemix_quality_model: default", f"lakemix_quality_model: {model_path}"
        )
    )
    refused = dbt(project, "build", check=False)
    assert "--full-refresh" in refused and "quality_model" in refused
    dbt(project, "build", "--full-refresh")
    cli("mix", "build", "demo_unimax")
    cli("release", "demo_unimax", "--tag", "v2", *UNREVIEWED)
    v2 = get_release("v2")
    assert v2.quality_model["sha256"] == file_digest(model_path) != v1.quality_model["sha256"]
    assert v2.quality_model["trained"]["labels_sha256"] == model.info["labels_sha256"]
    assert v2.checksum != v1.checksum  # the mix changed with the model
    shown = cli("show", "v2")
    assert f"sha256 {file_digest(model_path)}, trained by lakemix quality train" in shown
