"""One base for lakemix's errors, turned into a one-line message by the command line once."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from click.testing import CliRunner

import lakemix
from lakemix.cli import main
from lakemix.errors import LakemixError

# Imported on purpose by their modules only where used (optional heavy dependencies).
OPTIONAL = ("lakemix.spark.session", "lakemix.spark.udfs", "lakemix.dbt.plugin")


def error_classes() -> list[type[BaseException]]:
    found = []
    for module in pkgutil.walk_packages(lakemix.__path__, "lakemix."):
        if module.name.startswith(OPTIONAL):
            continue
        imported = importlib.import_module(module.name)
        found += [
            value
            for _, value in inspect.getmembers(imported, inspect.isclass)
            if issubclass(value, BaseException) and value.__module__ == module.name
        ]
    return found


def test_every_lakemix_error_has_the_one_base() -> None:
    classes = error_classes()
    assert len(classes) >= 20
    errors = [c for c in classes if not issubclass(c, Warning)]  # warnings are no errors
    strays = [f"{c.__module__}.{c.__name__}" for c in errors if not issubclass(c, LakemixError)]
    assert strays == []


@pytest.mark.parametrize(
    "args",
    [
        ["mix", "plan", "no_such_mix"],
        ["ingest", "/no/such/path", "--source", "web"],
        ["lineage", "--column", "marts.nothing.here"],
    ],
)
def test_the_command_line_prints_one_line(args: list[str], lakehouse: object) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, LakemixError)  # handled, not raised through
    [line] = result.output.strip().splitlines()
    assert line.startswith("Error: ")
