from __future__ import annotations

import os
from pathlib import Path

import pytest

from lakemix.settings import S3Settings, Settings, StorageConfigError, redact_uri
from lakemix.storage import catalog_properties, explain


def test_defaults_live_under_home(tmp_path: Path) -> None:
    s = Settings.from_env({"LAKEMIX_HOME": str(tmp_path)})
    assert s.home == tmp_path
    assert s.catalog_uri.startswith(f"sqlite:///{tmp_path}/catalog.db")
    assert s.warehouse == (tmp_path / "warehouse").as_uri()
    assert s.duckdb_path == tmp_path / "lakemix.duckdb"


def test_environment_overrides_each_location(tmp_path: Path) -> None:
    s = Settings.from_env(
        {
            "LAKEMIX_HOME": str(tmp_path),
            "LAKEMIX_CATALOG_URI": "postgresql+psycopg2://u:secret@db:5432/cat",
            "LAKEMIX_WAREHOUSE": "s3://bucket/wh",
            "LAKEMIX_DUCKDB_PATH": "/x/y.duckdb",
        }
    )
    assert s.catalog_uri.endswith("/cat")
    assert s.warehouse == "s3://bucket/wh"
    assert s.duckdb_path == Path("/x/y.duckdb")
    assert "secret" not in s.redacted_catalog_uri
    assert s.redacted_catalog_uri == "postgresql+psycopg2://u:***@db:5432/cat"


def test_redact_leaves_uris_without_password() -> None:
    assert redact_uri("sqlite:////tmp/c.db") == "sqlite:////tmp/c.db"
    assert redact_uri("postgresql://u@h/d") == "postgresql://u@h/d"


def test_s3_credentials_come_from_the_aws_variables_and_are_never_shown(tmp_path: Path) -> None:
    s = Settings.from_env(
        {
            "LAKEMIX_HOME": str(tmp_path),
            "HOME": str(tmp_path),
            "LAKEMIX_WAREHOUSE": "s3://bucket/wh/",
            "LAKEMIX_S3_ENDPOINT": "http://127.0.0.1:8333/",
            "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
            "AWS_SECRET_ACCESS_KEY": "hunter2-secret",
        }
    )
    assert s.warehouse == "s3://bucket/wh"
    assert s.s3 is not None and s.s3.secret_access_key == "hunter2-secret"
    assert s.s3.endpoint_host == "127.0.0.1:8333" and not s.s3.use_ssl
    assert s.s3.region == "us-east-1"
    assert "hunter2" not in repr(s) and "AKIAEXAMPLE" not in repr(s)
    assert catalog_properties(s.s3)["s3.endpoint"] == "http://127.0.0.1:8333"


def test_s3_credentials_come_from_a_profile(tmp_path: Path) -> None:
    aws = tmp_path / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text(
        "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = d\n"
        "[lake]\naws_access_key_id = LAKEKEY\naws_secret_access_key = from-profile\n"
    )
    (aws / "config").write_text("[profile lake]\nregion = eu-central-1\n")
    env = {"HOME": str(tmp_path), "LAKEMIX_HOME": str(tmp_path), "AWS_PROFILE": "lake"}
    s = Settings.from_env({**env, "LAKEMIX_WAREHOUSE": "s3://b/p"})
    assert s.s3 is not None
    assert (s.s3.access_key_id, s.s3.secret_access_key) == ("LAKEKEY", "from-profile")
    assert s.s3.region == "eu-central-1" and s.s3.use_ssl and s.s3.endpoint == ""
    local = Settings.from_env({**env, "LAKEMIX_WAREHOUSE": str(tmp_path / "wh")})
    assert local.s3 is None and local.warehouse == (tmp_path / "wh").as_uri()


@pytest.mark.parametrize(
    ("warehouse", "message"),
    [("s3:///no-bucket", "names no bucket"), ("gs://b/p", "unsupported scheme 'gs'")],
)
def test_a_bad_warehouse_names_itself_and_the_way_out(
    tmp_path: Path, warehouse: str, message: str
) -> None:
    with pytest.raises(StorageConfigError, match=message) as caught:
        Settings.from_env({"LAKEMIX_HOME": str(tmp_path), "LAKEMIX_WAREHOUSE": warehouse})
    assert "s3://bucket/prefix" in str(caught.value)


def test_an_endpoint_must_be_a_url(tmp_path: Path) -> None:
    with pytest.raises(StorageConfigError, match="LAKEMIX_S3_ENDPOINT"):
        Settings.from_env(
            {
                "HOME": str(tmp_path),
                "LAKEMIX_WAREHOUSE": "s3://b/p",
                "LAKEMIX_S3_ENDPOINT": "127.0.0.1:8333",
            }
        )


def test_storage_errors_say_what_to_fix_without_the_secret() -> None:
    s3 = S3Settings("http://h:1", "us-east-1", "KEY", "sekrit")
    refused = explain(OSError("AWS Error ACCESS_DENIED sekrit"), s3, "s3://b/p")
    assert "AWS_SECRET_ACCESS_KEY" in str(refused) and "sekrit" not in str(refused)
    assert "bucket 'b' does not exist" in str(explain(OSError("NoSuchBucket"), s3, "s3://b/p"))
    unreachable = explain(OSError("curlCode: 7, Couldn't connect to server"), s3, "s3://b/p")
    assert "LAKEMIX_S3_ENDPOINT" in str(unreachable)


def test_secrets_in_the_query_are_masked_everywhere_a_uri_is_printed(tmp_path: Path) -> None:
    uri = "postgresql+psycopg2://u@db/cat?password=hunter2&sslmode=require&sslpassword=x%20y"
    assert redact_uri(uri) == (
        "postgresql+psycopg2://u@db/cat?password=***&sslmode=require&sslpassword=***"
    )
    s = Settings.from_env({"LAKEMIX_HOME": str(tmp_path), "LAKEMIX_CATALOG_URI": uri})
    assert "hunter2" not in repr(s) and "password=***" in repr(s)
    assert s.catalog_uri == uri  # the real one is still what the catalog opens


def test_a_missing_database_driver_is_one_line(tmp_path: Path) -> None:
    from lakemix.catalog import CatalogUnavailableError, catalog

    uri = "postgresql+pg8000://u:hunter2@127.0.0.1:1/cat"  # pg8000 is not installed
    s = Settings.from_env({"LAKEMIX_HOME": str(tmp_path), "LAKEMIX_CATALOG_URI": uri})
    with pytest.raises(CatalogUnavailableError, match="driver is not installed") as raised:
        catalog(s)
    assert "hunter2" not in str(raised.value)


def test_every_duckdb_session_takes_the_memory_limit_and_spills_in_the_lakehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lakemix import duck

    monkeypatch.chdir(tmp_path)
    env = {"LAKEMIX_HOME": str(tmp_path / "home"), "LAKEMIX_MEMORY_LIMIT": "300MB"}
    s = Settings.from_env({**env, "LAKEMIX_DUCKDB_THREADS": "1"})
    conn = duck.connect(settings=s, extensions=())
    limit, threads, spill = conn.execute(
        "select current_setting('memory_limit'), current_setting('threads'), "
        "current_setting('temp_directory')"
    ).fetchone()  # type: ignore[misc]
    assert limit.startswith("286") and threads == 1
    assert spill == str(tmp_path / f"home/duckdb_tmp/session-{os.getpid()}")
    with pytest.raises(StorageConfigError, match="LAKEMIX_MEMORY_LIMIT='lots'"):
        Settings.from_env({**env, "LAKEMIX_MEMORY_LIMIT": "lots"})
    with pytest.raises(StorageConfigError, match="LAKEMIX_DUCKDB_THREADS='0'"):
        Settings.from_env({**env, "LAKEMIX_DUCKDB_THREADS": "0"})
