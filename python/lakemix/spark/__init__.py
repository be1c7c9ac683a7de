"""The Spark engine: the same dbt project and Iceberg tables, on Spark (see docs/spark.md)."""

from __future__ import annotations

from lakemix.spark.runtime import SparkRuntimeError, iceberg_runtime_jars
from lakemix.spark.session import spark_conf, spark_session

__all__ = ["SparkRuntimeError", "iceberg_runtime_jars", "spark_conf", "spark_session"]
