"""A lakehouse restored as a folder releases with any target/: what a release needs is inside."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from lakemix import catalog
from lakemix.cli import main
from lakemix.mix.dependencies import MIX_MODELS, from_manifest, recorded
from lakemix.versions.release import get_release
from tests.conftest import UNREVIEWED, lakehouse_in


def test_release_from_a_restored_lakehouse_with_a_mismatching_target(
    demo_release: Path, tmp_path: Path
) -> None:
    home = demo_release / "lakehouse"
    backup = tmp_path / "backup"
    shutil.copytree(home, backup, symlinks=True)
    # target/ of a later plain dbt build: the mix models are not in its manifest.
    manifest = orjson.loads((demo_release / "target" / "manifest.json").read_bytes())
    for part in ("nodes", "disabled"):
        for key in MIX_MODELS:
            manifest.get(part, {}).pop(key, None)
    target = tmp_path / "target"
    target.mkdir()
    (target / "manifest.json").write_bytes(orjson.dumps(manifest))
    assert "marts.mix_demo_unimax" not in from_manifest("demo_unimax", target)
    try:
        shutil.rmtree(home)
        shutil.copytree(backup, home, symlinks=True)  # restored from the copy, as a folder
        with lakehouse_in(demo_release) as settings, pytest.MonkeyPatch.context() as patch:
            patch.setenv("DBT_TARGET_PATH", str(target))
            needed = recorded(catalog(settings).load_table("marts.mix_demo_unimax"))
            assert needed is not None and "marts.fct_clean_documents" in needed
            result = CliRunner().invoke(
                main, ["release", "demo_unimax", "--tag", "restored", *UNREVIEWED]
            )
            assert result.exit_code == 0, result.output
            assert sorted(get_release("restored").snapshots) == sorted(needed)
    finally:
        shutil.rmtree(home)
        shutil.copytree(backup, home, symlinks=True)  # the shared lakehouse as it was
