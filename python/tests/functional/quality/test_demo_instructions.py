"""The way to query the lakehouse that `make demo` prints works on a built lakehouse."""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from lakemix.cli import main
from lakemix.settings import Settings
from tests.conftest import ROOT

DEMO = ROOT / "scripts" / "demo.sh"


def printed_sql_command() -> list[str]:
    """The arguments of the `lakemix sql` command in the demo's closing message."""
    message = DEMO.read_text().rsplit("<<MSG", 1)[1]
    [line] = [line for line in message.splitlines() if "lakemix sql " in line]
    command = re.search(r"\S*lakemix sql .*$", line)
    assert command is not None, line
    words = shlex.split(command.group(0))
    assert words[0].endswith("lakemix") and words[1] == "sql", words
    return words[1:]


def test_the_printed_query_runs(built: tuple[Settings, Path]) -> None:
    result = CliRunner().invoke(main, printed_sql_command())
    assert result.exit_code == 0, result.output
    header, _rule, *rows = result.output.splitlines()
    assert header.split() == ["language", "raw_document_count", "clean_document_count"]
    assert rows and all(int(row.split()[1].replace(",", "")) > 0 for row in rows), rows


def test_the_message_names_no_file_plain_duckdb_cannot_open() -> None:
    message = DEMO.read_text().rsplit("<<MSG", 1)[1]
    assert "with DuckDB" not in message


def test_the_demo_releases_unvalidated_and_says_how_to_review(
    built: tuple[Settings, Path], tmp_path: Path
) -> None:
    script = DEMO.read_text()
    assert '--accept-unvalidated "$unreviewed"' in script
    message = script.rsplit("<<MSG", 1)[1]
    [line] = [line for line in message.splitlines() if "lakemix review sample " in line]
    command = re.search(r"\S*lakemix (review sample .*)$", line)
    assert command is not None, line
    words = shlex.split(command.group(1))
    words[words.index("--output") + 1] = str(tmp_path / "sample.csv")
    drawn = CliRunner().invoke(main, words)
    assert drawn.exit_code == 0, drawn.output
    with (tmp_path / "sample.csv").open(newline="", encoding="utf-8") as sample:
        rows = list(csv.DictReader(sample))
    assert len(rows) == int(words[words.index("--n") + 1])
    assert {r["decision"] for r in rows} == {"kept"} and all(r["verdict"] == "" for r in rows)
