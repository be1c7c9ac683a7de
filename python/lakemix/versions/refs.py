"""Time travel: a tag, a snapshot id or a timestamp -> the snapshot of a table at that version."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.dbt.views import quote_identifier, scan_sql
from lakemix.errors import LakemixError
from lakemix.settings import Settings

if TYPE_CHECKING:
    import duckdb
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class VersionError(LakemixError, LookupError):
    """A version (tag, snapshot id or timestamp) that a table does not have."""


def parse_timestamp(version: str) -> datetime | None:
    """``2026-12-01``, ``2026-12-01T10:00`` or with an offset -> an aware datetime (UTC default)."""
    try:
        moment = datetime.fromisoformat(version)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def snapshot_at(table: Table, version: str | int) -> int:
    """Snapshot id of ``table`` at ``version``.

    Args:
        table: The Iceberg table.
        version: A tag name, a snapshot id, or an ISO timestamp (the snapshot that was current
            then).

    Raises:
        VersionError: The table has no such tag or snapshot, or did not exist at that time.
    """
    name = ".".join(table.name()[-2:])
    text = str(version).strip()
    if re.fullmatch(r"-?\d+", text):
        if table.snapshot_by_id(int(text)) is None:
            raise VersionError(f"{name} has no snapshot {text}")
        return int(text)
    ref = table.metadata.refs.get(text)
    if ref is not None:
        return ref.snapshot_id
    moment = parse_timestamp(text)
    if moment is None:
        tags = sorted(k for k, r in table.metadata.refs.items() if r.snapshot_ref_type == "tag")
        raise VersionError(
            f"{name} has no tag {text!r} (tags: {', '.join(tags) or 'none'}); a version is a "
            "tag, a snapshot id or an ISO timestamp"
        )
    millis = int(moment.timestamp() * 1000)
    current = [e.snapshot_id for e in table.metadata.snapshot_log if e.timestamp_ms <= millis]
    if not current:
        raise VersionError(f"{name} had no snapshot yet at {moment.isoformat()}")
    return current[-1]


def scan_at(table: Table, version: str | int | None) -> str:
    """``iceberg_scan(...)`` SQL of ``table`` at ``version`` (the current snapshot when None)."""
    return scan_sql(table, None if version is None else snapshot_at(table, version))


def connect_at(
    version: str | int | None,
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    otherwise: str | None = None,
) -> duckdb.DuckDBPyConnection:
    """A private DuckDB session where every table is a view of its state at ``version``.

    Tables that have no such version (not part of that release, or created later) are left
    out, so a query on them fails instead of silently reading today's rows; with
    ``otherwise`` (e.g. a release's time) they are shown as of that version instead.
    """
    settings = settings or Settings.from_env()
    catalog = catalog or open_catalog(settings)
    conn = duck.connect(settings=settings)
    found = False
    for namespace in catalog.list_namespaces():
        for ident in catalog.list_tables(namespace):
            table = catalog.load_table(ident)
            if table.current_snapshot() is None:
                continue
            try:
                scan = scan_at(table, version)
                found = True
            except VersionError:
                if otherwise is None:
                    continue
                try:
                    scan = scan_at(table, otherwise)
                except VersionError:
                    continue  # created after that too
            schema, name = (quote_identifier(part) for part in ident[-2:])
            conn.execute(f"create schema if not exists {schema}")
            conn.execute(f"create or replace view {schema}.{name} as select * from {scan}")
    if version is not None and not found:
        conn.close()
        raise VersionError(
            f"no table has version {version!r}: a version is a release tag (lakemix versions), "
            "a snapshot id or an ISO timestamp"
        )
    return conn
