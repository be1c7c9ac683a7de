"""A checkout moved or renamed after a build still seeds: dbt's partial parsing keeps each seed's
folder from the run that parsed the project, and the seed loader reads the project as it is now."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakemix.settings import Settings
from tests.conftest import BIN, run


def seed(project: Path) -> str:
    where = ["--project-dir", str(project), "--profiles-dir", str(project)]
    return run([str(BIN / "dbt"), "seed", *where]).stdout


def test_seeds_load_after_the_project_moves(
    lakehouse: Settings, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(project)  # parses the project: target/partial_parse.msgpack names this folder
    moved = project.rename(project.with_name("moved"))
    monkeypatch.chdir(moved)
    assert not project.exists()
    output = seed(moved)  # fails with "No files found" if the seeds are read from the old folder
    assert "Unable to do partial parsing" not in output  # the parse of the old folder was used
    assert "ERROR=0" in output
    assert output.count("OK loaded seed file") == len(list((moved / "seeds").glob("*.csv")))
