"""``lakemix sql``: one read-only query, checked by kind and confined to the warehouse."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
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


BATCH = 10_000


def write_rows(
    result: duckdb.DuckDBPyConnection, fmt: str, out: TextIO, *, limit: int | None = None
) -> int:
    """Stream a query's rows to ``out`` as ``csv`` (a header line), ``json`` (one array of
    objects) or ``jsonl`` (an object per line), at most ``limit``; returns how many.

    Values JSON has no type for (dates, decimals, blobs) are written as their text.
    """
    import csv

    import orjson

    header = [d[0] for d in result.description or []]
    writer = csv.writer(out, lineterminator="\n") if fmt == "csv" else None
    if writer is not None:
        writer.writerow(header)
    elif fmt == "json":
        out.write("[")
    written = 0

    def text(value: Any) -> str:
        return value.hex() if isinstance(value, bytes | bytearray) else str(value)

    while limit is None or written < limit:
        rows = result.fetchmany(BATCH if limit is None else min(BATCH, limit - written))
        if not rows:
            break
        for row in rows:
            if writer is not None:
                writer.writerow(row)
                continue
            line = orjson.dumps(
                dict(zip(header, row, strict=True)),
                default=text,
                option=orjson.OPT_NON_STR_KEYS,
            ).decode()
            out.write(("," if written else "") + line if fmt == "json" else line + "\n")
            written += 1
        if writer is not None:
            written += len(rows)
    if fmt == "json":
        out.write("]\n")
    return written
