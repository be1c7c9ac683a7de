"""Time travel over the whole lakehouse: a DuckDB session of every table at a version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.iceberg.snapshots import (
    TAG,
    VersionError,
    parse_timestamp,
    scan_at,
    snapshot_at,
    tag_problem,
)
from lakemix.iceberg.views import quote_identifier
from lakemix.settings import Settings
from lakemix.tables import RELEASES

__all__ = [
    "TAG",
    "VersionError",
    "connect_at",
    "parse_timestamp",
    "scan_at",
    "snapshot_at",
    "tag_problem",
]

if TYPE_CHECKING:
    import duckdb
    from pyiceberg.catalog import Catalog


def released_tags(catalog: Catalog) -> set[str]:
    """The tags of every release that committed (its ``meta.releases`` row is the commit point):
    a tag on a table without one is a ghost of a release that died part-way."""
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

    try:
        table = catalog.load_table(RELEASES)
    except (NoSuchTableError, NoSuchNamespaceError):
        return set()
    tags = table.scan(selected_fields=("tag",)).to_arrow().column("tag").to_pylist()
    return {str(t) for t in tags}


def ghost_tags(catalog: Catalog) -> dict[str, list[str]]:
    """Tags that no committed release owns, each with the tables that carry it (``gc`` removes
    them; readers refuse them)."""
    released = released_tags(catalog)
    found: dict[str, list[str]] = {}
    for namespace in catalog.list_namespaces():
        for ident in catalog.list_tables(namespace):
            table = catalog.load_table(ident)
            for name, ref in table.metadata.refs.items():
                if ref.snapshot_ref_type == "tag" and name not in released:
                    found.setdefault(name, []).append(".".join(ident[-2:]))
    return found


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
    if isinstance(version, str) and tag_problem(version) is None:
        _refuse_ghost(catalog, version)
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


def _refuse_ghost(catalog: Catalog, tag: str) -> None:
    """A tag that some table carries but no committed release owns is never read."""
    if tag in released_tags(catalog):
        return
    carriers = ghost_tags(catalog).get(tag)
    if carriers:
        raise VersionError(
            f"tag {tag!r} on {len(carriers)} table(s) belongs to no release (one that died "
            "part-way): it is not a version; `lakemix gc` removes it"
        )
