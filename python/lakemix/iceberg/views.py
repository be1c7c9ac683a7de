"""DuckDB views that read Iceberg tables in place (``iceberg_scan``), current or pinned."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import orjson

from lakemix.catalog import check_location

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table

# LAKEMIX_SNAPSHOTS='{"raw.documents": 123}' pins tables to snapshots (used to rebuild a release).
PIN_VARIABLE = "LAKEMIX_SNAPSHOTS"
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_identifier(name: str) -> str:
    """Double-quote a SQL identifier, refusing anything that is not a plain name."""
    if not IDENTIFIER.fullmatch(name):
        raise ValueError(f"invalid identifier {name!r}: use letters, digits and '_'")
    return f'"{name}"'


def quote_literal(value: str) -> str:
    """Single-quote a SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def pinned_snapshots(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Table -> snapshot id from ``LAKEMIX_SNAPSHOTS`` (empty when unset)."""
    raw = (os.environ if env is None else env).get(PIN_VARIABLE, "")
    if not raw.strip():
        return {}
    try:
        pins = orjson.loads(raw)
        return {str(k): int(v) for k, v in pins.items()}
    except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError):
        raise ValueError(
            f"{PIN_VARIABLE} must be a JSON object of table -> snapshot id, got {raw!r}"
        ) from None


def scan_sql(table: Table, snapshot_id: int | None = None) -> str:
    """``iceberg_scan(...)`` of the table's current snapshot, or of ``snapshot_id``."""
    args = quote_literal(table.metadata_location)
    if snapshot_id is not None:
        if table.snapshot_by_id(snapshot_id) is None:
            raise ValueError(f"table {'.'.join(table.name())} has no snapshot {snapshot_id}")
        args += f", snapshot_from_id={int(snapshot_id)}"
    return f"iceberg_scan({args})"


def create_view(
    conn: duckdb.DuckDBPyConnection, table: Table, snapshot_id: int | None = None
) -> None:
    """(Re)create the DuckDB view ``namespace.table`` over the Iceberg table."""
    namespace, name = table.name()[-2:]
    _replace_view(conn, namespace, name, scan_sql(table, snapshot_id))


def _replace_view(conn: duckdb.DuckDBPyConnection, namespace: str, name: str, scan: str) -> None:
    conn.execute(f"create schema if not exists {quote_identifier(namespace)}")
    conn.execute(
        f"create or replace view {quote_identifier(namespace)}.{quote_identifier(name)} as "
        f"select * from {scan}"
    )


def metadata_locations(catalog: SqlCatalog, *, check: bool = True) -> dict[tuple[str, str], str]:
    """(namespace, table) -> current metadata file of every table, in one catalog query; each
    checked to lie in the lakehouse (``check``: ``relocate`` reads a copy's rows unchecked).

    ``load_table`` would read and parse each table's whole metadata file (every snapshot
    ever committed): about 30 ms a table, paid by every dbt command on connecting.
    """
    from pyiceberg.catalog.sql import IcebergTables
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    query = select(
        IcebergTables.table_namespace, IcebergTables.table_name, IcebergTables.metadata_location
    ).where(IcebergTables.catalog_name == catalog.name)
    with Session(catalog.engine) as session:
        rows = session.execute(query).all()
    for namespace, name, location in rows:
        if location and check:
            check_location(catalog, f"{namespace}.{name}", location)
    return {(namespace, name): location for namespace, name, location in rows if location}


def in_files(scan: str, files: Sequence[str]) -> str:
    """The rows of ``scan`` (an ``iceberg_scan(...)``) in the data files ``files`` alone, as a
    relation: ``iceberg_scan``'s ``filename`` filter, so DuckDB opens only those files."""
    listed = ", ".join(quote_literal(str(path)) for path in files)
    return f"(select * from {scan} where {f'filename in ({listed})' if files else 'false'})"


def view_scan(catalog: SqlCatalog, view: str) -> str:
    """The ``iceberg_scan(...)`` the view ``schema.table`` of an Iceberg table reads (as
    ``refresh_views`` made it: the pinned snapshot, or the current one)."""
    return scan_sql(catalog.load_table(view), pinned_snapshots().get(view))


@contextlib.contextmanager
def narrowed(
    conn: duckdb.DuckDBPyConnection,
    catalog: SqlCatalog,
    views: Sequence[str],
    keys: pa.Table,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection of its own on which each view of ``views`` (``schema.table``, the view of an
    Iceberg table) reads only the data files that hold a row whose key is in ``keys`` (a
    one-column table: the column is the key), while the block runs.

    DuckDB does not push a join's keys into a scan of Parquet files: a query that picks a few
    rows by key out of a view decodes every row of it (the search index's 100,000 new documents
    of 1.3M: 12 s, what reading every text costs). On the narrowed views it opens the files
    holding those rows alone, found by reading the key column. The views are replaced in a
    transaction of the returned connection, rolled back when the block ends: no other
    connection sees them. ``keys`` is registered on it as ``narrowed_keys``.
    """
    (key,) = keys.column_names
    reader = conn.cursor()
    reader.execute("begin transaction")
    try:
        reader.register("narrowed_keys", keys)
        for view in views:
            scan = view_scan(catalog, view)
            files = reader.execute(
                f"select distinct filename from {scan} "
                f"semi join narrowed_keys using ({quote_identifier(key)})"
            ).fetchall()
            schema, name = view.split(".")
            _replace_view(reader, schema, name, in_files(scan, [row[0] for row in files]))
        yield reader
    finally:
        reader.execute("rollback")
        reader.close()


def refresh_views(conn: duckdb.DuckDBPyConnection, catalog: SqlCatalog) -> None:
    """Point a view at every Iceberg table, so DuckDB, dbt and pyiceberg see the same rows."""
    pins = pinned_snapshots()
    for (namespace, name), location in sorted(metadata_locations(catalog).items()):
        schema = namespace.rsplit(".", 1)[-1]  # DuckDB schemas have one level
        pin = pins.get(f"{schema}.{name}")
        if pin is not None:  # checked against the table's snapshots
            create_view(conn, catalog.load_table(f"{namespace}.{name}"), pin)
        else:
            _replace_view(conn, schema, name, f"iceberg_scan({quote_literal(location)})")
