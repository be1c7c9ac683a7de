"""Hostile names and unreachable catalogs: clear errors that name the value, nothing written,
and a catalog password never printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix import catalog
from lakemix.cli import main
from lakemix.settings import Settings
from tests.conftest import dbt

HOSTILE = ("'; drop table raw.documents; --", "../../etc", "v1; rm -rf /", "a b")


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_tags_and_names_are_refused_before_anything_is_written(
    lakehouse: Settings, name: str
) -> None:
    runner = CliRunner()
    tagged = runner.invoke(main, ["release", "demo_unimax", "--tag", name])
    assert tagged.exit_code == 1 and f"invalid tag {name!r}" in tagged.output
    mixed = runner.invoke(main, ["release", name, "--tag", "v1"])
    assert mixed.exit_code == 1 and f"invalid mix name {name!r}" in mixed.output
    travelled = runner.invoke(main, ["sql", "select 1", "--at", name])
    assert travelled.exit_code == 1 and "no table has version" in travelled.output
    ingested = runner.invoke(main, ["ingest", "README.md", "--source", name, "--format", "text"])
    assert ingested.exit_code == 1 and "invalid source name" in ingested.output
    assert catalog(lakehouse).list_namespaces() == []


def test_an_unreachable_catalog_is_named_without_its_password(
    lakehouse: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A port nothing listens on: the connection fails at once.
    uri = "postgresql+psycopg2://lakemix:s3cr3t-pw@127.0.0.1:9/lakemix"
    monkeypatch.setenv("LAKEMIX_CATALOG_URI", uri)
    ingest = ["ingest", "README.md", "--source", "s", "--format", "text"]
    for args in (["tables"], ["versions"], ["show", "v1"], ingest):
        result = CliRunner().invoke(main, args)
        assert result.exit_code != 0, args
        assert "s3cr3t-pw" not in result.output, args
        assert "LAKEMIX_CATALOG_URI" in result.output or "***" in result.output, result.output


def test_a_build_before_any_ingest_says_so_in_one_line(lakehouse: Settings, tmp_path: Path) -> None:
    built = dbt("build", tmp=tmp_path, check=False)
    out = built.stdout + built.stderr
    assert built.returncode != 0
    assert "nothing ingested yet (no raw.documents in this lakehouse)" in out, out[-2000:]
    assert "does not exist" not in out, out[-2000:]
