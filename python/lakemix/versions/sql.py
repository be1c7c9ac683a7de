"""``lakemix sql``: one read-only query, checked by kind and confined to the warehouse."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse
from urllib.request import url2pathname

from lakemix.errors import LakemixError
from lakemix.iceberg.views import quote_literal

if TYPE_CHECKING:
    import duckdb

    from lakemix.settings import Settings

# Statement kinds that only read: a query and its plan (EXPLAIN ANALYZE runs the query).
READ_KINDS = ("SELECT", "EXPLAIN")


class ReadOnlyQueryError(LakemixError, ValueError):
    """A query that would write, attach, load or configure something; nothing was run."""


def check_read_only(conn: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse anything but one SELECT (or EXPLAIN) statement.

    Raises:
        ReadOnlyQueryError: The query holds no statement, several, or one of another kind
            (COPY, ATTACH, CREATE, INSTALL, SET, ...), named in the message.
    """
    statements = conn.extract_statements(query)
    if len(statements) != 1:
        raise ReadOnlyQueryError(
            f"lakemix sql runs one query, got {len(statements)} statements; run them one at a time"
        )
    kind = statements[0].type.name
    if kind not in READ_KINDS:
        raise ReadOnlyQueryError(
            f"lakemix sql is read-only: {kind} statements are refused; "
            "use select (or explain) only, and dbt or the Python API to write"
        )


def warehouse_directory(settings: Settings) -> str:
    """The warehouse as DuckDB names it: a local path for ``file:`` URIs, else the URI with a
    final ``/`` (an object-store prefix: ``s3://b/wh`` must not admit ``s3://b/wh2``)."""
    parsed = urlparse(settings.warehouse)
    if parsed.scheme in ("", "file"):
        return str(Path(url2pathname(parsed.path)))
    return settings.warehouse.rstrip("/") + "/"


def confine(conn: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    """Let ``conn`` read the warehouse and nothing else, for good.

    External access (files, URLs, attaching databases, installing extensions) is turned off
    except below the warehouse, and the configuration locked so a query cannot turn it back on.
    Call it once the views over the Iceberg tables exist.
    """
    allowed = quote_literal(warehouse_directory(settings))
    conn.execute(f"set allowed_directories = [{allowed}]")
    conn.execute("set enable_external_access = false")
    conn.execute("set lock_configuration = true")
