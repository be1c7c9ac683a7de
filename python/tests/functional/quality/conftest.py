"""One built lakehouse shared by the data-quality tests: two real corpora, a mix, a release."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from lakemix.settings import Settings
from tests.conftest import PROJECT_PARTS, ROOT, copied_release


def project_with(tmp: Path, **objectives: dict[str, Any]) -> Path:
    """A copy of the project in ``tmp/project`` (made anew) whose objective blocks
    (``accuracy=``, ``consistency=``, ...) are replaced by the ones given."""
    copy = tmp / "project"
    if copy.exists():
        shutil.rmtree(copy)
    copy.mkdir()
    for name in PROJECT_PARTS:
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / name)
    set_objectives(copy, **objectives)
    return copy


def set_objectives(project: Path, **objectives: dict[str, Any]) -> None:
    """Replace objective blocks in ``project``'s dbt_project.yml, in place."""
    path = project / "dbt_project.yml"
    config = yaml.safe_load(path.read_text())
    config["vars"]["lakemix_quality_objectives"].update(objectives)
    path.write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.fixture(scope="package")
def built(
    demo_release: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Settings, Path]]:
    """(settings, tmp): a copy of the session's released demo lakehouse (conftest's
    released_lakehouse), relocated: these tests record verdicts and build statistics in it."""
    tmp = tmp_path_factory.mktemp("quality")
    with copied_release(demo_release, tmp) as settings:
        yield settings, tmp


@pytest.fixture(scope="session")
def label_studio() -> tuple[str, str]:
    """(URL, token) of the Label Studio server scripts/services.d/40-label-studio.sh starts."""
    import os
    import subprocess

    from tests.conftest import ROOT

    url = os.environ.get("LAKEMIX_TEST_LABEL_STUDIO_URL")
    token = os.environ.get("LAKEMIX_TEST_LABEL_STUDIO_TOKEN")
    if not (url and token):
        env_file = ROOT / ".services.env"
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "services.d" / "40-label-studio.sh")],
            check=True,
            env={**os.environ, "LAKEMIX_SERVICES_ENV": str(env_file)},
        )
        values = dict(
            line.removeprefix("export ").split("=", 1)
            for line in env_file.read_text().splitlines()
            if line.startswith("export LAKEMIX_TEST_LABEL_STUDIO_")
        )
        url = values["LAKEMIX_TEST_LABEL_STUDIO_URL"].strip("'")
        token = values["LAKEMIX_TEST_LABEL_STUDIO_TOKEN"].strip("'")
    return url, token


def query(settings: Settings, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` on a session over the lakehouse as it is now."""
    from lakemix.versions.refs import connect_at

    conn = connect_at(None, settings=settings)
    try:
        return conn.execute(sql, params or []).fetchall()
    finally:
        conn.close()
