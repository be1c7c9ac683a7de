"""``lakemix relocate``: make a copied or moved lakehouse read and write its own files only.

A lakehouse folder (or bucket prefix) copied elsewhere keeps a catalog whose tables name the
original's files; lakemix refuses to use it (``lakemix.catalog.OutsideWarehouseError``) until this
command has rewritten every table under the copy's warehouse, and the release manifests with
them. Tables already under the warehouse are left alone, so a relocation that was killed is run
again to finish.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.catalog import is_inside
from lakemix.iceberg import commit_with_retry
from lakemix.iceberg.relocate import PathMap, RelocateError, infer_old_root, relocate_table
from lakemix.iceberg.views import metadata_locations, refresh_views
from lakemix.settings import Settings
from lakemix.tables import RELEASES
from lakemix.versions.release import releases_directory

if TYPE_CHECKING:
    import duckdb
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table

__all__ = ["RelocateError", "RelocateResult", "relocate"]


@dataclass(frozen=True)
class RelocateResult:
    """What ``relocate`` did: the roots, and how many tables and files it rewrote."""

    old_root: str | None
    new_root: str
    tables: int
    files: int


def relocate(
    *,
    old_root: str | None = None,
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
) -> RelocateResult:
    """Rewrite every table whose files the catalog names outside the warehouse so that it
    names the same files under the warehouse (``old_root`` -> the warehouse; inferred from
    where the copied files lie when omitted), then the release manifests and the views of
    dbt's DuckDB file.

    Raises:
        RelocateError: The old root cannot be inferred, or a table's files are not in the copy.
    """
    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    new_root = settings.warehouse
    rows = metadata_locations(catalog, check=False)  # loading a copy's table is refused
    moving = [
        (f"{ns}.{name}", location)
        for (ns, name), location in sorted(rows.items())
        if not is_inside(location, new_root)
    ]
    if not moving:
        return RelocateResult(old_root, new_root, 0, 0)
    if old_root is None:
        from pyiceberg.io import load_file_io

        name, location = moving[0]
        io = load_file_io(properties=catalog.properties, location=new_root)
        old_root = infer_old_root(location, new_root, io)
        if old_root is None:
            raise RelocateError(
                f"{name}: none of {location} is under {new_root}: is this the copy of that "
                "lakehouse? give the original warehouse with --from"
            )
    paths = PathMap(old_root.rstrip("/"), new_root.rstrip("/"))
    files = 0
    for name, location in moving:
        if not paths.moves(location):
            raise RelocateError(
                f"{name}: {location} is neither under {paths.old} nor under {paths.new}"
            )
        done = relocate_table(catalog, name, location, paths)
        files += done.files
        if progress is not None:
            progress(
                f"{name}: {done.snapshots} snapshots, {done.manifests} manifests, "
                f"{done.files} files"
            )
    catalog = open_catalog(settings)
    _relocate_releases(catalog, settings, paths)
    if settings.duckdb_path.is_file():  # dbt's views still read the original's metadata files
        conn = duck.connect(settings.duckdb_path, settings=settings)
        try:
            refresh_views(conn, catalog)
            _relocate_search_index(conn, settings)
        finally:
            conn.close()
    return RelocateResult(paths.old, paths.new, len(moving), files)


def _relocate_search_index(conn: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    """The search model's one row names its index folder (beside the DuckDB file, in the
    lakehouse): the copy's, as a build of the copy would record it."""
    from lakemix.search import index_path
    from lakemix.tables import SEARCH_INDEX

    schema, table = SEARCH_INDEX.split(".")
    found = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? "
        "and table_name = ? and table_type = 'BASE TABLE'",
        [schema, table],
    ).fetchone()
    if found and found[0]:
        conn.execute(f"update {SEARCH_INDEX} set index_path = ?", [str(index_path(settings))])


def _relocate_releases(catalog: SqlCatalog, settings: Settings, paths: PathMap) -> None:
    """The manifests record each snapshot's metadata file: name the copy's."""
    from pyiceberg.exceptions import NoSuchTableError

    def moved(document: str) -> str:
        return document.replace(f'"{paths.old}/', f'"{paths.new}/')

    try:
        catalog.load_table(RELEASES)
    except NoSuchTableError:
        return

    def attempt(table: Table) -> None:
        rows = table.scan().to_arrow()
        manifests = [moved(m) for m in rows.column("manifest").to_pylist()]
        if manifests != rows.column("manifest").to_pylist():
            index = rows.schema.get_field_index("manifest")
            table.overwrite(rows.set_column(index, "manifest", pa.array(manifests, pa.string())))

    commit_with_retry(catalog, RELEASES, attempt)
    directory = releases_directory(settings)
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        text = path.read_text()
        if moved(text) != text:
            partial = path.with_suffix(".json.partial")
            partial.write_text(moved(text))
            partial.replace(path)
