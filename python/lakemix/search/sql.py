"""The SQL entry point: ``search.match_documents(query_text)`` in the DuckDB file.

The table macro (made by the ``search_index`` model, ``macro_sql``) unnests what the scalar
function ``lakemix_search_match(index folder, query)`` returns: every matching document with
its score and lineage, read from the Tantivy index. The function is registered on dbt's
connections (the lakemix plugin) and by ``connect``, which opens the DuckDB file with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix import duck
from lakemix.search.index import COLUMNS, SearchIndexError, index_path
from lakemix.search.query import match
from lakemix.settings import Settings

if TYPE_CHECKING:
    import duckdb

FUNCTION = "lakemix_search_match"
# DuckDB types of COLUMNS, in order.
TYPES = (
    "double",
    "varchar",
    "boolean",
    "varchar",
    "varchar",
    "double",
    "varchar",
    "varchar",
    "bigint",
    "varchar",
    "timestamptz",
    "varchar[]",
    "varchar",
    "varchar",
)
RETURN_TYPE = "struct(" + ", ".join(f"{c} {t}" for c, t in zip(COLUMNS, TYPES, strict=True)) + ")[]"


def _match(path: str, query: str) -> list[dict[str, Any]]:
    return [
        {column: getattr(hit, column) for column in COLUMNS} for hit in match(Path(path), query)
    ]


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Add ``lakemix_search_match(index_folder, query)`` to ``conn``."""
    conn.create_function(
        FUNCTION, _match, ["VARCHAR", "VARCHAR"], conn.sqltype(RETURN_TYPE), side_effects=True
    )


def macro_sql(schema: str, path: Path) -> str:
    """``create or replace macro <schema>.match_documents(query_text)`` over the index ``path``."""
    folder = str(path).replace("'", "''")
    return (
        f"create or replace macro {schema}.match_documents(query_text) as table "
        f"select unnest({FUNCTION}('{folder}', query_text), recursive := true)"
    )


def connect(settings: Settings | None = None) -> duckdb.DuckDBPyConnection:
    """The DuckDB file, read-only, with ``lakemix_search_match`` registered: SQL on it can call
    ``search.match_documents(query_text)``.

    While a running dbt holds the file, a private session instead: every Iceberg table as a
    view of its current snapshot and ``search.match_documents`` over the last committed index
    (the file's own views and seeds are not in it).

    Raises:
        SearchIndexError: No dbt build yet.
    """
    import duckdb

    settings = settings or Settings.from_env()
    if not settings.duckdb_path.is_file():
        raise SearchIndexError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    try:
        conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    except duckdb.IOException as exc:
        if "lock" not in str(exc):
            raise SearchIndexError(f"cannot read {settings.duckdb_path}: {exc}") from None
        return _private_session(settings)  # dbt holds the file's lock
    register(conn)
    return conn


def _private_session(settings: Settings) -> duckdb.DuckDBPyConnection:
    from lakemix.catalog import catalog as open_catalog
    from lakemix.iceberg.views import create_view

    catalog = open_catalog(settings)
    conn = duck.connect(settings=settings)
    for namespace in catalog.list_namespaces():
        for identifier in catalog.list_tables(namespace):
            table = catalog.load_table(identifier)
            if table.current_snapshot() is not None:
                create_view(conn, table)
    register(conn)
    conn.execute("create schema if not exists search")
    conn.execute(macro_sql("search", index_path(settings)))
    return conn
