"""Spark on an ``s3://`` warehouse: Iceberg's S3FileIO and the catalog properties it needs.

Spark writes Iceberg data files through the catalog's FileIO. For ``s3://`` that is
``org.apache.iceberg.aws.s3.S3FileIO``, in Iceberg's ``iceberg-aws-bundle`` jar (the AWS SDK
v2, shaded), which neither PyPI nor Debian ships: online, Spark fetches it from Maven
(``spark.jars.packages``); offline, the jar must be put on disk by hand. Without it, Spark
fails on its first write, so lakemix says what is missing before Spark starts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from lakemix.spark.runtime import SparkRuntimeError, cache_dir

if TYPE_CHECKING:
    from lakemix.settings import S3Settings

AWS_BUNDLE = "org.apache.iceberg:iceberg-aws-bundle:1.10.2"
AWS_BUNDLE_JAR = "iceberg-aws-bundle-1.10.2.jar"
S3_SCHEMES = ("s3://", "s3a://", "s3n://")
MAVEN_URL = (
    "https://repo1.maven.org/maven2/org/apache/iceberg/iceberg-aws-bundle/1.10.2/" + AWS_BUNDLE_JAR
)


def is_s3(warehouse: str) -> bool:
    """Whether the warehouse is in S3-compatible object storage."""
    return warehouse.startswith(S3_SCHEMES)


def aws_bundle_jar() -> Path | None:
    """The iceberg-aws-bundle jar on this machine (``LAKEMIX_SPARK_AWS_BUNDLE``, else the
    runtime cache), or None."""
    explicit = os.environ.get("LAKEMIX_SPARK_AWS_BUNDLE")
    path = Path(explicit) if explicit else cache_dir() / AWS_BUNDLE_JAR
    return path if path.is_file() else None


def missing_for_s3(warehouse: str) -> str | None:
    """What Spark lacks to use the ``s3://`` warehouse, as a message naming the way out; None
    when nothing is missing (or the warehouse is not on S3)."""
    if not is_s3(warehouse):
        return None
    if AWS_BUNDLE in os.environ.get("LAKEMIX_SPARK_PACKAGES", ""):
        return None
    if aws_bundle_jar() is not None:
        return None
    explicit = os.environ.get("LAKEMIX_SPARK_AWS_BUNDLE")
    where = (
        f"LAKEMIX_SPARK_AWS_BUNDLE={explicit} is not a file"
        if explicit
        else (f"no {cache_dir() / AWS_BUNDLE_JAR}")
    )
    return (
        f"Spark cannot use the warehouse {warehouse}: Iceberg's S3FileIO "
        f"(org.apache.iceberg.aws.s3.S3FileIO, in {AWS_BUNDLE_JAR}) is missing ({where}); "
        "no PyPI or Debian package ships it. Online: export "
        f"LAKEMIX_SPARK_PACKAGES={AWS_BUNDLE} (Spark fetches it from Maven), or download "
        f"{MAVEN_URL} to {cache_dir() / AWS_BUNDLE_JAR} (or LAKEMIX_SPARK_AWS_BUNDLE=PATH). "
        "See docs/spark.md#spark-on-s3"
    )


def s3_conf(catalog_prefix: str, warehouse: str, s3: S3Settings | None) -> dict[str, str]:
    """Spark settings for an ``s3://`` warehouse: the jar and S3FileIO's catalog properties
    (with ``LAKEMIX_SPARK_PACKAGES``, Spark fetches the jar from Maven instead).

    The endpoint and region come from the lakemix settings (``LAKEMIX_S3_ENDPOINT``, addressed
    path-style as on the pyiceberg side; ``AWS_REGION``); credentials are never put in the
    configuration: S3FileIO takes them from the AWS default chain (``AWS_ACCESS_KEY_ID`` /
    ``AWS_SECRET_ACCESS_KEY``, a profile, an instance role) on the driver and every executor.

    Raises:
        SparkRuntimeError: The S3FileIO jar is missing (the message says how to get it).
    """
    if (missing := missing_for_s3(warehouse)) is not None:
        raise SparkRuntimeError(missing)
    conf = {
        f"{catalog_prefix}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        f"{catalog_prefix}.s3.path-style-access": "true",
        f"{catalog_prefix}.client.region": s3.region if s3 else "us-east-1",
    }
    if s3 is not None and s3.endpoint:
        conf[f"{catalog_prefix}.s3.endpoint"] = s3.endpoint
    if (jar := aws_bundle_jar()) is not None:
        conf["spark.jars"] = str(jar)  # appended to the runtime's jars by spark_conf
    return conf
