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
from lakemix.tables import ON_REQUEST
from lakemix.versions.release import get_release
from tests.conftest import UNREVIEWED, WEB, lakehouse_in


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
            # the lists never added (block lists, benchmarks) have no snapshot to record
            present = sorted(name for name in needed if name not in ON_REQUEST)
            assert sorted(get_release("restored").snapshots) == present
    finally:
        shutil.rmtree(home)
        shutil.copytree(backup, home, symlinks=True)  # the shared lakehouse as it was


def test_a_copied_lakehouse_refuses_the_original_until_relocated(
    demo_release: Path, tmp_path: Path
) -> None:
    """The reproduction: a copy pointed at by LAKEMIX_HOME read the original's files, and an
    ingest into it changed the original. Now every command refuses in one line until `lakemix
    relocate`; after it the copy reads its own files and writes leave the original alone."""
    original = demo_release / "lakehouse"
    copy = tmp_path / "copy"
    shutil.copytree(original, copy / "lakehouse", symlinks=True)
    before = {
        str(p.relative_to(original)): p.stat().st_mtime_ns
        for p in (original / "warehouse").rglob("*")
    }
    query = "select count(*) as n from marts.mix_demo_unimax"
    with lakehouse_in(demo_release):
        expected = CliRunner().invoke(main, ["sql", query, "--at", "v1"]).output
    with lakehouse_in(copy) as settings:
        runner = CliRunner()
        for args in (
            ["sql", query],
            ["show", "v1"],
            ["verify"],
            ["ingest", str(WEB / "oscar2201"), "--source", "again", "--format", "jsonl"],
        ):
            refused = runner.invoke(main, args)
            assert refused.exit_code == 1, (args, refused.output)
            assert "outside this lakehouse's warehouse" in refused.output, refused.output
            assert "lakemix relocate" in refused.output and "Traceback" not in refused.output
        relocated = runner.invoke(main, ["relocate"])
        assert relocated.exit_code == 0, relocated.output
        assert runner.invoke(main, ["sql", query, "--at", "v1"]).output == expected
        assert runner.invoke(main, ["verify"]).exit_code == 0
        shown = runner.invoke(main, ["show", "v1"])
        assert shown.exit_code == 0 and str(original) not in shown.output, shown.output
        assert str(original) not in get_release("v1", settings).to_json().__repr__()
        more = tmp_path / "more"
        more.mkdir()
        (more / "a.jsonl").write_text('{"id": "x1", "text": "A new document in the copy."}\n')
        ingested = runner.invoke(main, ["ingest", str(more), "--source", "more"])
        assert ingested.exit_code == 0, ingested.output
    after = {
        str(p.relative_to(original)): p.stat().st_mtime_ns
        for p in (original / "warehouse").rglob("*")
    }
    assert after == before
