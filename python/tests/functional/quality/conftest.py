"""One built lakehouse shared by the data-quality tests: two real corpora, a mix, a release."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import ENV_VARS, WEB, dbt


@pytest.fixture(scope="package")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Path]]:
    """(settings, tmp): dolma_cc_en_head and oscar2201 ingested, built, mix demo_unimax
    built and released as v1. Tests must not change it."""
    tmp = tmp_path_factory.mktemp("quality")
    with pytest.MonkeyPatch.context() as mp:
        for name in ENV_VARS:
            mp.delenv(name, raising=False)
        mp.setenv("LAKEMIX_HOME", str(tmp / "lakehouse"))
        mp.setenv("DBT_TARGET_PATH", str(tmp / "target"))
        mp.setenv("DBT_LOG_PATH", str(tmp / "logs"))
        ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
        ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
        dbt("build", tmp=tmp)
        for args in (["mix", "build", "demo_unimax"], ["release", "demo_unimax", "--tag", "v1"]):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, result.output
        yield Settings.from_env(), tmp
