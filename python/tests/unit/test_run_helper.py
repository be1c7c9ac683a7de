"""The tests' command runner: a command that hangs fails its test with where it hangs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import conftest
from tests.conftest import run

HANGS = """
import subprocess, sys, time

def wait_for_ever():
    time.sleep(600)

if len(sys.argv) == 1:  # a parent whose child hangs too, as torchrun's workers
    subprocess.Popen([sys.executable, __file__, "child"])
wait_for_ever()
"""


def test_a_command_that_hangs_fails_with_the_stacks_of_its_processes(tmp_path: Path) -> None:
    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    with pytest.raises(pytest.fail.Exception) as failed:
        run([sys.executable, str(script)], timeout=3)
    message = str(failed.value)
    assert "still ran after 3 s" in message
    assert message.count("wait_for_ever") == 2, message  # the parent's and the child's stack


def test_a_hang_is_killed_even_when_its_stacks_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    monkeypatch.setattr(conftest, "BIN", tmp_path)  # no py-spy there
    with pytest.raises(pytest.fail.Exception) as failed:
        run([sys.executable, str(script)], timeout=3)
    assert str(failed.value).count("no stack") == 2, str(failed.value)


def test_a_command_that_fails_fails_the_test_with_its_output() -> None:
    with pytest.raises(pytest.fail.Exception, match="exited 3\nout"):
        run([sys.executable, "-c", "import sys; print('out'); sys.exit(3)"])
    assert run([sys.executable, "-c", "print('ok')"]).stdout == "ok\n"
