"""``lakemix spark ...``: the Spark engine from the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("spark")
def spark_group() -> None:
    """Run the dbt project on Spark, over the same Iceberg catalog (docs/spark.md)."""


# dbt 1.11's commands (`dbt --help`).
DBT_COMMANDS = (
    *("build", "clean", "clone", "compile", "debug", "deps", "docs", "init", "list", "ls"),
    *("parse", "retry", "run", "run-operation", "seed", "show", "snapshot", "source", "test"),
)


@spark_group.command(
    "dbt", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.argument("dbt_args", nargs=-1, type=click.UNPROCESSED)
def dbt_command(dbt_args: tuple[str, ...]) -> None:
    """dbt DBT_ARGS --target spark, on a Spark session with the lakemix UDFs.

    Example: lakemix spark dbt build --select +fct_clean_documents
    """
    if not set(dbt_args) & set(DBT_COMMANDS):  # dbt's global flags may come first
        # refused before a Spark session (a JVM: seconds) is started for nothing
        given = f"none in {' '.join(dbt_args)!r}; " if dbt_args else ""
        raise click.UsageError(
            f"name a dbt command ({given}{', '.join(DBT_COMMANDS)}), e.g. `lakemix spark dbt build`"
        )
    from lakemix.spark.dbt import run_dbt

    sys.exit(run_dbt(dbt_args))


@spark_group.command("check", context_settings={"ignore_unknown_options": True})
@click.option("--target-root", type=click.Path(path_type=Path), default=Path("target/portability"))
@click.argument("dbt_args", nargs=-1, type=click.UNPROCESSED)
def check_command(target_root: Path, dbt_args: tuple[str, ...]) -> None:
    """Compile every model for DuckDB and Spark; parse each query in its dialect (sqlglot).

    Example: lakemix spark check --vars '{lakemix_mix: demo_unimax}'
    """
    from lakemix.settings import Settings
    from lakemix.spark.portability import check_project
    from lakemix.spark.runtime import SparkRuntimeError
    from lakemix.spark.s3 import missing_for_s3

    if (missing := missing_for_s3(Settings.from_env().warehouse)) is not None:
        raise SparkRuntimeError(missing)  # before minutes of compiling
    counts = check_project(target_root, dbt_args=list(dbt_args))
    for target, count in counts.items():
        click.echo(f"{target}: {count} compiled queries parse as {target} SQL")


@spark_group.command("runtime")
def runtime_command() -> None:
    """Assemble (once) and print the jars of the offline Iceberg Spark runtime."""
    from lakemix.spark.runtime import iceberg_runtime_jars

    for path in iceberg_runtime_jars():
        click.echo(path)
