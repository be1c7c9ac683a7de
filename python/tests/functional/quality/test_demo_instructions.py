"""The way to query the lakehouse that `make demo` prints works on a built lakehouse. (Its
compare line, on two runs tracked on two filter settings: functional/test_tracking.py.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from lakemix.cli import main
from lakemix.settings import Settings
from tests.conftest import ROOT

DEMO = ROOT / "scripts" / "demo.sh"


def printed_command(command: str, values: dict[str, str] | None = None) -> list[str]:
    """The arguments of the ``lakemix COMMAND`` line in the demo's closing message, its shell
    variables (``$NAME``, ``${runs[0]}``) replaced by ``values``."""
    message = DEMO.read_text().rsplit("<<MSG", 1)[1]
    [line] = [line for line in message.splitlines() if f"lakemix {command} " in line]
    for name, value in (values or {}).items():
        line = line.replace(name, value)
    found = re.search(rf"\S*lakemix {command} .*$", line)
    assert found is not None, line
    words = shlex.split(found.group(0))
    assert words[0].endswith("lakemix") and words[1] == command, words
    assert not any("$" in word for word in words), f"{words}: give values for its variables"
    return words[1:]


def printed_sql_command() -> list[str]:
    """The arguments of the `lakemix sql` command in the demo's closing message."""
    return printed_command("sql")


def demo_variable(name: str) -> str:
    """The value scripts/demo.sh assigns to its shell variable ``name`` (``name=value``)."""
    found = re.search(rf"^{name}=(.+)$", DEMO.read_text(), flags=re.MULTILINE)
    assert found is not None, f"scripts/demo.sh sets no {name}"
    [value] = shlex.split(found.group(1))
    return value


def test_the_printed_query_runs(built: tuple[Settings, Path]) -> None:
    result = CliRunner().invoke(main, printed_sql_command())
    assert result.exit_code == 0, result.output
    header, _rule, *rows = result.output.splitlines()
    assert header.split() == ["language", "raw_document_count", "clean_document_count"]
    assert rows and all(int(row.split()[1].replace(",", "")) > 0 for row in rows), rows


def test_the_message_names_no_file_plain_duckdb_cannot_open() -> None:
    message = DEMO.read_text().rsplit("<<MSG", 1)[1]
    assert "with DuckDB" not in message
