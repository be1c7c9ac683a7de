"""dbt's partial-parse state kept per --vars around lakemix's dbt runs (lakemix.dbt.parse_state)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from lakemix.dbt import parse_state, runner

# Stands in for dbt: prints the state it finds, then saves one named after its --vars.
FAKE_DBT = """#!/bin/sh
target="${DBT_TARGET_PATH:-target}"
mkdir -p "$target"
if [ -f "$target/partial_parse.msgpack" ]; then
    echo "found $(cat "$target/partial_parse.msgpack")"
else
    echo "found nothing"
fi
vars=plain
while [ $# -gt 0 ]; do
    [ "$1" = "--vars" ] && vars="$2"
    shift
done
printf '%s' "$vars" > "$target/partial_parse.msgpack"
"""


@pytest.fixture
def fake_dbt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "bin" / "dbt"
    script.parent.mkdir()
    script.write_text(FAKE_DBT)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(runner, "dbt_executable", lambda: script)
    project = tmp_path / "project"
    project.mkdir()
    return project


def found(project: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = runner.run_dbt(["build", *args], cwd=project, env=env, capture=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_run_with_vars_leaves_the_plain_runs_state_in_place(fake_dbt: Path) -> None:
    mix = ("--vars", "{lakemix_mix: demo}")
    assert found(fake_dbt) == "found nothing"
    assert found(fake_dbt, *mix) == "found nothing"  # its own state: none saved yet
    assert found(fake_dbt) == "found plain"  # not the mix build's: no full parse
    assert found(fake_dbt, *mix) == "found {lakemix_mix: demo}"
    assert found(fake_dbt, "--vars", "{lakemix_mix: other}") == "found nothing"
    assert found(fake_dbt, "--vars={lakemix_mix: demo}") == "found {lakemix_mix: demo}"
    assert found(fake_dbt) == "found plain"
    target = fake_dbt / "target"
    assert (target / "partial_parse.msgpack").read_text() == "plain"
    assert not (target / "partial_parse.msgpack.plain").exists()


def test_the_target_folder_follows_dbt_target_path_and_target_path(fake_dbt: Path) -> None:
    env = {"DBT_TARGET_PATH": "elsewhere", "PATH": "/usr/bin:/bin"}
    found(fake_dbt, env=env)
    assert found(fake_dbt, "--vars", "{a: 1}", env=env) == "found nothing"
    assert found(fake_dbt, env=env) == "found plain"
    assert parse_state.slot(fake_dbt / "elsewhere", "{a: 1}").is_file()
    assert parse_state.target_of(["build", "--target-path", "t2"], fake_dbt, env) == (
        fake_dbt / "t2"
    )


def test_the_plain_state_is_put_back_when_dbt_cannot_start(
    fake_dbt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found(fake_dbt)
    monkeypatch.setattr(runner, "dbt_executable", lambda: fake_dbt / "no-such-dbt")
    with pytest.raises(FileNotFoundError):
        runner.run_dbt(["build", "--vars", "{a: 1}"], cwd=fake_dbt)
    assert (fake_dbt / "target" / "partial_parse.msgpack").read_text() == "plain"


def test_an_option_is_its_last_value() -> None:
    assert parse_state.option(["build"], "--vars") is None
    assert parse_state.option(["build", "--vars", "{a: 1}", "--vars={b: 2}"], "--vars") == "{b: 2}"
