"""Where the lakehouse lives: every path and secret comes from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

DEFAULT_HOME = "lakehouse"


def project_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``dbt_project.yml``."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dbt_project.yml").is_file():
            return candidate
    return None


def target_path(root: Path | None = None) -> Path:
    """dbt's target folder: ``DBT_TARGET_PATH`` (relative to the project root), else target/."""
    root = root or project_root() or Path.cwd()
    return root / os.environ.get("DBT_TARGET_PATH", "target")


def redact_uri(uri: str) -> str:
    """Return ``uri`` with any password replaced by ``***`` (safe to print or log)."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


@dataclass(frozen=True)
class Settings:
    """Locations of the lakehouse parts.

    Attributes:
        home: Root folder of the embedded lakehouse (``LAKEMIX_HOME``, default ``./lakehouse``
            next to ``dbt_project.yml``).
        catalog_uri: SQLAlchemy URI of the Iceberg SQL catalog (``LAKEMIX_CATALOG_URI``,
            default SQLite under ``home``). May hold a password: print ``redacted_catalog_uri``.
        warehouse: Root of the Iceberg data files (``LAKEMIX_WAREHOUSE``).
        duckdb_path: The DuckDB database file dbt uses (``LAKEMIX_DUCKDB_PATH``).
    """

    home: Path
    catalog_uri: str
    warehouse: str
    duckdb_path: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the settings from ``env`` (default: ``os.environ``)."""
        env = os.environ if env is None else env
        raw_home = Path(env.get("LAKEMIX_HOME", DEFAULT_HOME))
        if not raw_home.is_absolute():
            raw_home = (project_root() or Path.cwd()) / raw_home
        home = raw_home.resolve()
        # SQLite serializes writers: wait up to a minute for the lock instead of failing at once.
        catalog_uri = (
            env.get("LAKEMIX_CATALOG_URI") or f"sqlite:///{home / 'catalog.db'}?timeout=60"
        )
        warehouse = env.get("LAKEMIX_WAREHOUSE") or (home / "warehouse").as_uri()
        duckdb_path = Path(env.get("LAKEMIX_DUCKDB_PATH") or home / "lakemix.duckdb")
        return cls(home=home, catalog_uri=catalog_uri, warehouse=warehouse, duckdb_path=duckdb_path)

    @property
    def redacted_catalog_uri(self) -> str:
        """The catalog URI without its password."""
        return redact_uri(self.catalog_uri)

    @property
    def extension_directory(self) -> Path:
        """Where DuckDB keeps the extensions installed from the pip packages."""
        return self.home / "duckdb_extensions"
