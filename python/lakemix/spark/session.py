"""A Spark session on the lakehouse's own Iceberg catalog, with the lakemix UDFs registered.

Spark reads and writes the same tables as DuckDB: its Iceberg catalog ``lakemix`` is a
``jdbc`` catalog on the database of the pyiceberg SQL catalog (same catalog name, same
warehouse), and it is Spark's default catalog, so ``raw.documents`` means the same table on
both engines.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlsplit

from lakemix.catalog import CATALOG_NAME
from lakemix.settings import Settings
from lakemix.spark.runtime import SparkRuntimeError, iceberg_runtime_jars, jdbc_driver
from lakemix.spark.s3 import is_s3, s3_conf

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG_PREFIX = f"spark.sql.catalog.{CATALOG_NAME}"


def jdbc_catalog_options(catalog_uri: str) -> tuple[str, dict[str, str]]:
    """The JDBC driver kind and Iceberg ``jdbc`` catalog options for a SQLAlchemy catalog URI.

    Args:
        catalog_uri: ``sqlite:///path`` or ``postgresql[+driver]://user:password@host:port/db``.

    Returns:
        (``sqlite`` or ``postgresql``, options without the ``spark.sql.catalog.<name>.`` prefix).

    Raises:
        SparkRuntimeError: Another database: Spark has no driver for it here.
    """
    parts = urlsplit(catalog_uri)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme == "sqlite":
        path = unquote(parts.path)
        if path.startswith("//"):  # sqlite:////abs/path
            path = path[1:]
        # SQLite serializes writers: one connection per Spark driver (with two, dbt's threads
        # left one holding a read lock while the other waited to commit), and a wait for the
        # lock of other processes (as the pyiceberg side does) instead of SQLITE_BUSY.
        return "sqlite", {
            "uri": f"jdbc:sqlite:{path}",
            "clients": "1",
            "jdbc.busy_timeout": "60000",
        }
    if scheme in ("postgresql", "postgres"):
        host = parts.hostname or "localhost"
        port = f":{parts.port}" if parts.port else ""
        options = {"uri": f"jdbc:postgresql://{host}{port}{parts.path}"}
        if parts.username:
            options["jdbc.user"] = unquote(parts.username)
        if parts.password:
            options["jdbc.password"] = unquote(parts.password)
        for key in ("sslmode",):
            if value := parse_qs(parts.query).get(key):
                options[f"jdbc.{key}"] = value[0]
        return "postgresql", options
    raise SparkRuntimeError(
        f"Spark cannot open a catalog of kind {scheme!r}: use SQLite or PostgreSQL "
        "(LAKEMIX_CATALOG_URI)"
    )


def spark_conf(settings: Settings, *, master: str | None = None) -> dict[str, str]:
    """Every Spark setting of a lakemix session (jars, catalog, local folders)."""
    kind, options = jdbc_catalog_options(settings.catalog_uri)
    jars = [*iceberg_runtime_jars(), jdbc_driver(kind)]
    spark_home = settings.home / "spark"
    conf = {
        "spark.master": master or os.environ.get("LAKEMIX_SPARK_MASTER", "local[2]"),
        "spark.app.name": "lakemix",
        "spark.jars": ",".join(str(path) for path in jars),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        CATALOG_PREFIX: "org.apache.iceberg.spark.SparkCatalog",
        f"{CATALOG_PREFIX}.type": "jdbc",
        f"{CATALOG_PREFIX}.warehouse": settings.warehouse,
        # pyiceberg writes the v1 catalog schema (with iceberg_type): views are allowed.
        f"{CATALOG_PREFIX}.jdbc.schema-version": "V1",
        "spark.sql.defaultCatalog": CATALOG_NAME,
        "spark.sql.warehouse.dir": (spark_home / "warehouse").as_uri(),
        "spark.local.dir": str(spark_home / "tmp"),
        "spark.driver.memory": os.environ.get("LAKEMIX_SPARK_DRIVER_MEMORY", "4g"),
        "spark.sql.shuffle.partitions": os.environ.get("LAKEMIX_SPARK_SHUFFLE_PARTITIONS", "8"),
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        # The Python workers of pandas UDFs must import lakemix, pandas and pyarrow.
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
    }
    conf |= {f"{CATALOG_PREFIX}.{key}": value for key, value in options.items()}
    if packages := os.environ.get("LAKEMIX_SPARK_PACKAGES"):  # Maven coordinates (online)
        conf["spark.jars.packages"] = packages
    if is_s3(settings.warehouse):
        s3 = s3_conf(CATALOG_PREFIX, settings.warehouse, settings.s3)
        if jar := s3.pop("spark.jars", None):
            conf["spark.jars"] += f",{jar}"
        conf |= s3
    if not conf["spark.master"].startswith("local"):
        conf |= cluster_conf()
    return conf


def cluster_conf() -> dict[str, str]:
    """What executors on other JVMs need: this lakemix code and Python, and their memory.

    The executors' Python workers import the very ``lakemix`` package the driver runs (its
    folder goes first on their ``PYTHONPATH``), so a checkout's code, not another install's,
    computes the UDFs. On a cluster of other machines, install the same lakemix wheel there.
    """
    import lakemix

    package_root = str(Path(lakemix.__file__).resolve().parents[1])
    python_path = os.pathsep.join(
        part for part in (package_root, os.environ.get("PYTHONPATH", "")) if part
    )
    return {
        "spark.executorEnv.PYTHONPATH": python_path,
        "spark.executor.memory": os.environ.get("LAKEMIX_SPARK_EXECUTOR_MEMORY", "1g"),
    }


def spark_session(settings: Settings | None = None, *, master: str | None = None) -> SparkSession:
    """Start (or return the running) Spark session on the lakehouse, with the UDFs registered.

    Args:
        settings: Where the lakehouse lives; read from the environment when omitted.
        master: Spark master URL (default ``LAKEMIX_SPARK_MASTER`` or ``local[2]``).

    Raises:
        SparkRuntimeError: pyspark, the Iceberg runtime or the JDBC driver is missing.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkRuntimeError("pyspark is not installed: run `make venv`") from None
    from lakemix.spark.udfs import register_all

    settings = settings or Settings.from_env()
    conf = spark_conf(settings, master=master)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    master_host = urlsplit(conf["spark.master"]).hostname if "://" in conf["spark.master"] else None
    if conf["spark.master"].startswith("local") or master_host in ("127.0.0.1", "localhost"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # not the machine's name: offline
    Path(conf["spark.local.dir"]).mkdir(parents=True, exist_ok=True)
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(os.environ.get("LAKEMIX_SPARK_LOG_LEVEL", "ERROR"))
    register_all(session)
    return session
