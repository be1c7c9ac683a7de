"""Portability check: every compiled query parses in its engine's SQL dialect (sqlglot).

A construct one engine lacks (``select * exclude``, ``list(...)``, a DuckDB type on Spark)
fails here, in seconds, instead of minutes into a Spark build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lakemix.errors import LakemixError

DIALECTS = {"duckdb": "duckdb", "spark": "spark"}


@dataclass(frozen=True)
class ParseFailure:
    """A compiled file that does not parse in its dialect."""

    path: Path
    message: str


def parse_compiled(
    compiled: Path, *, dialect: str, functions: set[str] | None = None
) -> tuple[int, list[ParseFailure]]:
    """Parse every ``.sql`` file under dbt's ``compiled`` folder with sqlglot.

    Args:
        compiled: ``<target>/compiled/<project>`` of a ``dbt compile`` on one target.
        dialect: ``duckdb`` or ``spark``.
        functions: The engine's function names (lower case): a call of a function sqlglot
            does not know (parsed as anonymous) must be one of them.

    Returns:
        How many files were parsed, and the ones that failed.

    Raises:
        ValueError: Another dialect, or a folder with no compiled SQL.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {sorted(DIALECTS)}, got {dialect!r}")
    files = sorted(compiled.rglob("*.sql"))
    if not files:
        raise ValueError(f"no compiled SQL under {compiled}: run dbt compile first")
    failures = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            statements = sqlglot.parse(text, read=DIALECTS[dialect])
        except (ParseError, TokenError) as exc:
            failures.append(ParseFailure(path, str(exc).splitlines()[0]))
            continue
        if functions is None:
            continue
        unknown = sorted(
            {
                call.name.lower()
                for statement in statements
                if statement is not None
                for call in statement.find_all(exp.Anonymous)
            }
            - functions
        )
        if unknown:
            failures.append(ParseFailure(path, f"no such {dialect} function: {', '.join(unknown)}"))
    return len(files), failures


def check_project(target_root: Path, *, dbt_args: list[str] | None = None) -> dict[str, int]:
    """Compile the project for both targets and parse every query in its dialect.

    The DuckDB compile runs as its own ``dbt`` process, the Spark one in this process (on a
    Spark session, which dbt-spark needs to look tables up).

    Args:
        target_root: Folder for the two dbt target folders (``duckdb/``, ``spark/``).
        dbt_args: Extra ``dbt compile`` arguments (e.g. ``--vars``).

    Returns:
        Files parsed per target.

    Raises:
        PortabilityError: A compile failed or a query does not parse (each one named).
    """
    from lakemix.dbt import runner
    from lakemix.settings import project_root
    from lakemix.spark.dbt import run_dbt

    root = project_root() or Path.cwd()
    extra = list(dbt_args or [])
    functions = {"duckdb": duckdb_functions(), "spark": set[str]()}
    counts = {}
    for target in DIALECTS:
        path = target_root / target
        args = ["compile", "--target-path", str(path), *extra]
        if target == "duckdb":
            where = ["--project-dir", str(root), "--profiles-dir", str(root)]
            code = runner.run_dbt([*args, *where]).returncode
        else:
            code = run_dbt(args)
            functions["spark"] = spark_functions()
        if code != 0:
            raise PortabilityError(f"dbt compile on the {target} target failed (exit {code})")
        count, failures = parse_compiled(
            path / "compiled", dialect=target, functions=functions[target]
        )
        if failures:
            lines = "\n".join(f"  {f.path}: {f.message}" for f in failures)
            raise PortabilityError(
                f"{len(failures)} queries do not parse as {target} SQL:\n{lines}"
            )
        counts[target] = count
    return counts


def duckdb_functions() -> set[str]:
    """DuckDB's functions and macros, with the lakemix UDFs and the dbt plugin's own functions
    (lower case): a model or test may call any of them (a test's release branch calls
    ``lakemix_csv_json``)."""
    from lakemix.dbt.plugin import FUNCTIONS
    from lakemix.dbt.texts import TextFunctions
    from lakemix.duck import connect
    from lakemix.text_store import TextStore
    from lakemix.udf.registry import register_all

    conn = connect()
    try:
        register_all(conn)
        TextFunctions(TextStore(Path("/nonexistent"))).register(conn)  # registering reads nothing
        rows = conn.execute("select distinct function_name from duckdb_functions()").fetchall()
    finally:
        conn.close()
    return {name.lower() for (name,) in rows} | {f.name for f in FUNCTIONS}


def spark_functions() -> set[str]:
    """The running Spark session's functions, the lakemix UDFs included (lower case)."""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        raise PortabilityError("no Spark session to list the functions of")
    return {row.function.split(".")[-1].lower() for row in session.sql("show functions").collect()}


class PortabilityError(LakemixError, RuntimeError):
    """A model does not compile or parse for one of the targets."""
