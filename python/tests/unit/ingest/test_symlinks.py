"""`lakemix ingest DIR` reads no file a symlink leads to outside the given paths, unless asked."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.ingest.run import expand_paths
from lakemix.settings import Settings


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """corpus/ with a file, a link to a file inside it, links to a file and a folder outside."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.jsonl").write_bytes(orjson.dumps({"text": "inside"}) + b"\n")
    (corpus / "again.jsonl").symlink_to(corpus / "a.jsonl")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd.jsonl").write_bytes(orjson.dumps({"text": "root:x:0:0"}) + b"\n")
    (corpus / "passwd.jsonl").symlink_to(secret / "passwd.jsonl")
    (corpus / "more").symlink_to(secret, target_is_directory=True)
    return corpus


def test_links_leaving_the_roots_are_listed_not_read(folder: Path) -> None:
    skipped: list[tuple[Path, str]] = []
    files = expand_paths([folder], "jsonl", skipped)
    assert [path for path, _ in files] == [folder / "a.jsonl"]
    reasons = dict(skipped)
    secret = folder.parent / "secret"
    assert reasons[folder / "passwd.jsonl"] == (
        f"link to {secret / 'passwd.jsonl'}, outside the given paths; --follow-symlinks reads it"
    )
    assert reasons[folder / "more"].startswith(f"link to folder {secret}, outside")
    assert len(skipped) == 2


def test_given_the_target_too_it_is_inside(folder: Path) -> None:
    skipped: list[tuple[Path, str]] = []
    files = expand_paths([folder, folder.parent / "secret"], "jsonl", skipped)
    assert sorted(path for path, _ in files) == [
        folder / "a.jsonl",
        folder.parent / "secret" / "passwd.jsonl",
    ]
    assert skipped == []


def test_follow_symlinks_reads_them(folder: Path) -> None:
    files = expand_paths([folder], "jsonl", follow_symlinks=True)
    assert sorted(path for path, _ in files) == [
        folder / "a.jsonl",
        folder.parent / "secret" / "passwd.jsonl",
    ]


def test_ingest_prints_them_as_not_read(folder: Path, lakehouse: Settings) -> None:
    result = CliRunner().invoke(main, ["ingest", str(folder), "--source", "web"])
    assert result.exit_code == 0, result.output
    assert "1 ingested" in result.output
    [line] = [line for line in result.output.splitlines() if "passwd.jsonl" in line]
    assert "not read" in line and "--follow-symlinks reads it" in line
    followed = CliRunner().invoke(
        main, ["ingest", str(folder), "--source", "web", "--follow-symlinks"]
    )
    assert followed.exit_code == 0, followed.output
    assert "1 ingested" in followed.output  # a.jsonl is already in; the link's target is new
