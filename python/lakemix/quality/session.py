"""A read-only DuckDB session over the lakehouse as it is now, or as it was at a release."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from lakemix.settings import Settings

if TYPE_CHECKING:
    import duckdb

THRESHOLDS_SEED = "seeds/quality_thresholds.csv"


def open_session(tag: str | None, *, settings: Settings) -> duckdb.DuckDBPyConnection:
    """Every Iceberg table as a view (current, or at release ``tag``) and the thresholds seed.

    Current: the seed as dbt last built it (``lakemix.duckdb``). At a tag: the seed the release
    recorded in its manifest.

    Raises:
        ReleaseError: No release ``tag``.
        FileNotFoundError: No dbt build yet.
    """
    import pyarrow.csv

    from lakemix.versions.refs import connect_at
    from lakemix.versions.release import get_release

    manifest = get_release(tag, settings) if tag is not None else None
    if manifest is None and not settings.duckdb_path.is_file():
        raise FileNotFoundError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    conn = connect_at(tag, settings=settings)
    if manifest is not None:
        _add_untagged_tables(conn, manifest["released_at"], settings)
    conn.execute("create schema if not exists seeds")
    if manifest is None:
        conn.execute(f"attach '{settings.duckdb_path}' as built (read_only)")
        conn.execute(
            "create table seeds.quality_thresholds as select * from built.seeds.quality_thresholds"
        )
        conn.execute("detach built")
    else:
        text = manifest["config_files"][THRESHOLDS_SEED]
        seed = pyarrow.csv.read_csv(io.BytesIO(text.encode()))
        conn.register("recorded_seed", seed)
        conn.execute("create table seeds.quality_thresholds as select * from recorded_seed")
        conn.unregister("recorded_seed")
    return conn


def _add_untagged_tables(
    conn: duckdb.DuckDBPyConnection, released_at: str, settings: Settings
) -> None:
    """Views of the tables a release did not tag (those its mix does not read, such as
    fct_document_rejections) at the snapshot that was current when it was released."""
    from lakemix.catalog import catalog as open_catalog
    from lakemix.dbt.views import quote_identifier
    from lakemix.versions.refs import VersionError, scan_at

    present = {
        (schema, name)
        for schema, name in conn.execute(
            "select table_schema, table_name from information_schema.tables"
        ).fetchall()
    }
    catalog = open_catalog(settings)
    for namespace in catalog.list_namespaces():
        for ident in catalog.list_tables(namespace):
            schema, name = ident[-2:]
            if (schema, name) in present:
                continue
            try:
                scan = scan_at(catalog.load_table(ident), released_at)
            except VersionError:
                continue  # created after the release
            conn.execute(f"create schema if not exists {quote_identifier(schema)}")
            conn.execute(
                f"create view {quote_identifier(schema)}.{quote_identifier(name)} as "
                f"select * from {scan}"
            )
