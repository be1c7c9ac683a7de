"""The offline Iceberg runtime: Jackson relocation and the catalog's JDBC options."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from lakemix.spark.runtime import (
    JACKSON_PACKAGE,
    SparkRuntimeError,
    _package_jars,
    relocate_class,
    relocate_jar,
)
from lakemix.spark.session import jdbc_catalog_options

OLD, NEW = b"com/fasterxml/jackson/", b"org/apache/iceberg/shaded/com/fasterxml/jackson/"


def jackson_jar(name: str) -> Path:
    return min(_package_jars(JACKSON_PACKAGE).glob(f"{name}-2.*.jar"))


def test_relocation_rewrites_every_class_name_and_nothing_else() -> None:
    with zipfile.ZipFile(jackson_jar("jackson-databind")) as jar:
        names = [n for n in jar.namelist() if n.endswith(".class") and "module-info" not in n]
        classes = [jar.read(name) for name in names[:400]]
    for original in classes:
        moved = relocate_class(original, OLD, NEW)
        assert OLD not in moved.replace(NEW, b"")
        assert b"com.fasterxml.jackson." not in moved.replace(NEW.replace(b"/", b"."), b"")
        # Moving back restores the file byte for byte: the constant pool was parsed right
        # (longs and doubles take two slots) and nothing outside it changed.
        assert relocate_class(moved, NEW, OLD) == original


def test_relocation_refuses_what_is_not_a_class() -> None:
    with pytest.raises(ValueError, match="not a Java class file"):
        relocate_class(b"PK\x03\x04", OLD, NEW)


def test_relocated_jar_moves_entries_and_service_files(tmp_path: Path) -> None:
    target = tmp_path / "jackson.jar"
    count = relocate_jar(
        [jackson_jar("jackson-core")],
        target,
        package="com.fasterxml.jackson",
        prefix="org/apache/iceberg/shaded/",
    )
    with zipfile.ZipFile(target) as jar:
        names = jar.namelist()
        services = [n for n in names if n.startswith("META-INF/services/")]
        assert count == sum(n.endswith(".class") for n in names) > 100
        assert all(n.startswith(NEW.decode()) for n in names if n.endswith(".class"))
        assert services == [
            "META-INF/services/org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonFactory"
        ]
        assert jar.read(services[0]).startswith(b"org.apache.iceberg.shaded.com.fasterxml")


def test_missing_package_names_the_way_out() -> None:
    with pytest.raises(SparkRuntimeError, match="no-such-package is not installed: run `make"):
        _package_jars("no-such-package")


def test_jdbc_options_of_sqlite_and_postgresql_uris() -> None:
    assert jdbc_catalog_options("sqlite:////tmp/lh/catalog.db?timeout=60") == (
        "sqlite",
        {"uri": "jdbc:sqlite:/tmp/lh/catalog.db", "clients": "1", "jdbc.busy_timeout": "60000"},
    )
    kind, options = jdbc_catalog_options("postgresql+psycopg2://u%40x:p%2Fw@db.local:5433/lake")
    assert kind == "postgresql"
    assert options == {
        "uri": "jdbc:postgresql://db.local:5433/lake",
        "jdbc.user": "u@x",
        "jdbc.password": "p/w",
    }
    with pytest.raises(SparkRuntimeError, match="kind 'mysql'"):
        jdbc_catalog_options("mysql://u@h/db")


def test_a_cluster_master_gives_executors_this_lakemix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lakemix
    from lakemix.settings import Settings
    from lakemix.spark.session import spark_conf

    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path))
    for name in ("LAKEMIX_WAREHOUSE", "LAKEMIX_CATALOG_URI", "LAKEMIX_SPARK_MASTER"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert "spark.executorEnv.PYTHONPATH" not in spark_conf(settings)  # local[2]: one JVM
    conf = spark_conf(settings, master="spark://127.0.0.1:7077")
    package_root = Path(lakemix.__file__).resolve().parents[1]
    assert conf["spark.executorEnv.PYTHONPATH"].split(":")[0] == str(package_root)
    assert conf["spark.master"] == "spark://127.0.0.1:7077" and conf["spark.executor.memory"]
