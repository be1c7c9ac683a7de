from __future__ import annotations

from pathlib import Path

from lakemix.settings import Settings, redact_uri


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
