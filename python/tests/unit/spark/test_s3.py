"""Spark on an s3:// warehouse: what is missing is said before Spark starts; what is set."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.settings import Settings
from lakemix.spark.runtime import SparkRuntimeError
from lakemix.spark.s3 import AWS_BUNDLE, AWS_BUNDLE_JAR, missing_for_s3
from lakemix.spark.session import CATALOG_PREFIX, spark_conf

WAREHOUSE = "s3://lakemix-test/warehouse"


@pytest.fixture
def s3_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An s3:// warehouse, an empty runtime cache, no Maven packages."""
    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "lakehouse"))
    monkeypatch.setenv("LAKEMIX_WAREHOUSE", WAREHOUSE)
    monkeypatch.setenv("LAKEMIX_SPARK_RUNTIME", str(tmp_path / "cache"))
    monkeypatch.setenv("LAKEMIX_S3_ENDPOINT", "http://127.0.0.1:8333")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-to-be-printed")
    for name in ("LAKEMIX_SPARK_PACKAGES", "LAKEMIX_SPARK_AWS_BUNDLE", "LAKEMIX_CATALOG_URI"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "cache"


def test_a_local_warehouse_needs_nothing_more() -> None:
    assert missing_for_s3("file:///tmp/warehouse") is None


def test_spark_check_names_the_missing_s3fileio_jar(s3_env: Path) -> None:
    result = CliRunner().invoke(main, ["spark", "check"])
    assert result.exit_code == 1
    message = result.output.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    for part in (WAREHOUSE, "S3FileIO", AWS_BUNDLE_JAR, f"LAKEMIX_SPARK_PACKAGES={AWS_BUNDLE}"):
        assert part in message
    assert str(s3_env / AWS_BUNDLE_JAR) in message and "not-to-be-printed" not in message
    with pytest.raises(SparkRuntimeError, match="S3FileIO"):
        spark_conf(Settings.from_env())


def test_a_wrong_bundle_path_is_named(s3_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAKEMIX_SPARK_AWS_BUNDLE", "/nowhere/bundle.jar")
    assert "LAKEMIX_SPARK_AWS_BUNDLE=/nowhere/bundle.jar is not a file" in (
        missing_for_s3(WAREHOUSE) or ""
    )


def test_with_the_jar_the_catalog_writes_through_s3fileio(s3_env: Path) -> None:
    s3_env.mkdir()
    (s3_env / AWS_BUNDLE_JAR).write_bytes(b"PK")  # its presence is what is checked
    conf = spark_conf(Settings.from_env())
    assert conf["spark.jars"].split(",")[-1] == str(s3_env / AWS_BUNDLE_JAR)
    assert conf[f"{CATALOG_PREFIX}.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert conf[f"{CATALOG_PREFIX}.s3.endpoint"] == "http://127.0.0.1:8333"
    assert conf[f"{CATALOG_PREFIX}.s3.path-style-access"] == "true"
    assert conf[f"{CATALOG_PREFIX}.warehouse"] == WAREHOUSE
    assert "not-to-be-printed" not in repr(conf)


def test_maven_packages_stand_for_the_jar(s3_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAKEMIX_SPARK_PACKAGES", AWS_BUNDLE)
    conf = spark_conf(Settings.from_env())
    assert conf["spark.jars.packages"] == AWS_BUNDLE
    assert conf[f"{CATALOG_PREFIX}.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
