"""DuckDB connections with the Iceberg extension installed offline from its pip packages, and
the warehouse's object store (httpfs and an S3 secret) when it is on S3."""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.settings import S3Settings, Settings

if TYPE_CHECKING:
    import duckdb

# DuckDB downloads extensions at run time, which cannot work offline. The packages
# duckdb-extension-<name>==<duckdb version> ship the binaries (../shared/REFERENCE.md).
EXTENSIONS = ("avro", "fts", "iceberg")


class ExtensionNotFoundError(LakemixError, FileNotFoundError):
    """A DuckDB extension whose pip package is not installed for this DuckDB version."""


def extension_file(name: str) -> Path:
    """Path of the extension binary shipped by ``duckdb-extension-<name>``."""
    import duckdb

    module = importlib.import_module(f"duckdb_extension_{name}")
    root = Path(module.__file__ or "").parent / "extensions"
    path = root / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise ExtensionNotFoundError(
            f"DuckDB extension {name!r} for DuckDB {duckdb.__version__} not found at {path}; "
            f"install duckdb-extension-{name}=={duckdb.__version__}"
        )
    return path


def connection_config(settings: Settings) -> dict[str, str | bool | int | float | list[str]]:
    """Options set when a connection opens: extensions offline, and the resources the settings
    give every DuckDB session (``LAKEMIX_MEMORY_LIMIT``, ``LAKEMIX_DUCKDB_THREADS``, spilling
    into the lakehouse as dbt's sessions do, never into the working directory)."""
    return {
        "extension_directory": str(settings.extension_directory),
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "memory_limit": settings.memory_limit,
        "threads": settings.duckdb_threads,
        # A folder of this process's own: DuckDB locks its spill files by name, and a second
        # session spilling into dbt's folder (lakemix sql during a build) would be refused.
        "temp_directory": str(settings.duckdb_temp_directory / f"session-{os.getpid()}"),
    }


def load_extensions(
    conn: duckdb.DuckDBPyConnection, *, extensions: Sequence[str] = EXTENSIONS
) -> None:
    """Install (from the pip packages, once) and load the extensions lakemix uses (or only
    ``extensions``: each costs tens of milliseconds to load, iceberg 0.15 s)."""
    loaded = {
        row[0]
        for row in conn.execute(
            "select extension_name from duckdb_extensions() where loaded"
        ).fetchall()
    }
    for name in extensions:
        if name in loaded:
            continue
        conn.execute(f"install '{extension_file(name)}'")
        conn.execute(f"load {name}")


def s3_secret_sql(s3: S3Settings) -> str:
    """``CREATE SECRET`` for the warehouse's object store (path-style on a custom endpoint).

    The statement holds the secret key: run it, never log it.
    """

    def quote_literal(value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    options = [
        "type s3",
        f"region {quote_literal(s3.region)}",
        f"use_ssl {str(s3.use_ssl).lower()}",
    ]
    if s3.access_key_id:
        options += [
            f"key_id {quote_literal(s3.access_key_id)}",
            f"secret {quote_literal(s3.secret_access_key)}",
        ]
    if s3.session_token:
        options.append(f"session_token {quote_literal(s3.session_token)}")
    if s3.endpoint:
        options += [f"endpoint {quote_literal(s3.endpoint_host)}", "url_style 'path'"]
    return f"create or replace temporary secret lakemix_warehouse ({', '.join(options)})"


def configure_storage(conn: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    """Let ``conn`` read and write an ``s3://`` warehouse: httpfs (installed from its pip
    package like iceberg) and an S3 secret made from the settings. Nothing for a local one."""
    if settings.s3 is None:
        return
    load_extensions(conn, extensions=("httpfs",))
    conn.execute(s3_secret_sql(settings.s3))


def connect(
    database: str | Path = ":memory:",
    *,
    settings: Settings | None = None,
    read_only: bool = False,
    extensions: Sequence[str] = EXTENSIONS,
) -> duckdb.DuckDBPyConnection:
    """Open DuckDB with the Iceberg extension loaded.

    Args:
        database: Database file, or ``:memory:`` (the default) for a private session.
        settings: Lakehouse settings; read from the environment when omitted.
        read_only: Open the database file read-only.
        extensions: The extensions to load (all of ``EXTENSIONS`` by default).
    """
    import duckdb

    settings = settings or Settings.from_env()
    settings.extension_directory.mkdir(parents=True, exist_ok=True)
    conn = duckdb.connect(str(database), read_only=read_only, config=connection_config(settings))
    load_extensions(conn, extensions=extensions)
    configure_storage(conn, settings)
    return conn
