"""Run dbt on the Spark target, in this process, on a session with the lakemix UDFs.

dbt-spark's ``session`` method takes the running Spark session (``getOrCreate``). Spark SQL
cannot register Python functions itself, so the session is started here first: the Iceberg
runtime, the lakehouse catalog as Spark's default catalog, and every lakemix UDF.
"""

from __future__ import annotations

from collections.abc import Sequence

from lakemix.errors import LakemixError
from lakemix.settings import Settings, project_root


class SparkDbtArgumentError(LakemixError, ValueError):
    """dbt arguments that ``lakemix spark dbt`` sets itself."""


def run_dbt(args: Sequence[str], *, settings: Settings | None = None) -> int:
    """``dbt <args> --target spark``; dbt's exit code (0 ok, 1 failures, 2 dbt error)."""
    from dbt.cli.main import dbtRunner

    from lakemix.spark.session import spark_session

    arguments = list(args)
    if "--target" in arguments or "-t" in arguments:
        raise SparkDbtArgumentError("lakemix spark dbt sets --target spark itself; drop --target")
    root = project_root()
    if root is not None and "--project-dir" not in arguments:
        arguments += ["--project-dir", str(root), "--profiles-dir", str(root)]
    spark_session(settings)
    result = dbtRunner().invoke([*arguments, "--target", "spark"])
    if result.exception is not None:
        return 2
    return 0 if result.success else 1
