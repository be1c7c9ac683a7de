"""One built lakehouse shared by the data-quality tests: two real corpora, a mix, a release."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lakemix.settings import Settings
from tests.conftest import released_lakehouse


@pytest.fixture(scope="package")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Path]]:
    """(settings, tmp): the released demo lakehouse of conftest.released_lakehouse. Tests must
    not change it."""
    tmp = tmp_path_factory.mktemp("quality")
    with released_lakehouse(tmp) as settings:
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
