"""Commit the Parquet files a dbt model wrote as the new contents of an Iceberg table."""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from lakemix.dbt.watermark import PROPERTY_PREFIX
from lakemix.errors import LakemixError
from lakemix.iceberg import commit_with_retry, ensure_namespace, local_path
from lakemix.iceberg.commit import NO_REPLAY
from lakemix.iceberg.row_delta import commit_row_delta, positions_of
from lakemix.settings import S3Settings, is_remote
from lakemix.storage import filesystem, uri_of

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog, MetastoreCatalog
    from pyiceberg.table import Table


class StoreError(LakemixError, RuntimeError):
    """A model's output cannot be stored as an Iceberg table."""


@dataclass(frozen=True)
class StoreRequest:
    """One model run to commit.

    Attributes:
        identifier: ``namespace.table``.
        staged: Folder (or file) of Parquet files the model wrote: a local staging folder,
            or, on an object store (which cannot rename), a prefix under the table's data
            folder where the files already sit at their final keys (``staging_location``).
        mode: ``overwrite`` (replace all rows), ``append``, or ``sync`` (append the staged
            rows and delete by position the rows whose ``key`` is in ``deleted_keys``: one
            snapshot; ``lakemix.iceberg.row_delta``).
        properties: Snapshot properties (dbt invocation id, model, git commit).
        full_refresh: Recreate the table when its schema cannot evolve in place.
        commit_when_empty: With no rows to append, append an empty snapshot all the same when
            the current one lacks the properties (what the run read: ``watermark``).
        parent: The table's snapshot an incremental run computed its rows against; an append
            onto another snapshot (a concurrent build committed meanwhile) is refused, as
            the rows may already be there (or, for ``sync``, the rows to delete moved).
        key: ``sync``: the column that identifies a row.
        deleted_keys: ``sync``: a local Parquet file of the ``key`` values to delete.
    """

    identifier: str
    staged: str
    mode: str
    properties: dict[str, str]
    full_refresh: bool = False
    commit_when_empty: bool = False
    s3: S3Settings | None = None
    parent: int | None = None
    key: str | None = None
    deleted_keys: str | None = None


MODES = ("overwrite", "append", "sync")


def staging_location(
    catalog: MetastoreCatalog, identifier: str, invocation_id: str, *, local_root: str
) -> str:
    """Where a model run writes its Parquet files.

    On a local warehouse: a folder under ``local_root`` (``LAKEMIX_HOME/staging``), moved into
    the table by a rename. On an object store: the table's own data folder, so the files are
    written once, at their final keys, and committed with ``add_files``; a run killed before
    its commit leaves only unreferenced objects there, which ``lakemix gc`` deletes.
    """
    namespace, name = identifier.rsplit(".", 1)
    run = f"dbt-{invocation_id}-{uuid.uuid4().hex[:8]}"
    warehouse = str(catalog.properties.get("warehouse", ""))
    if not is_remote(warehouse):
        return f"{local_root}/{invocation_id}-{identifier}"
    from pyiceberg.exceptions import NoSuchTableError

    try:
        location = catalog.load_table(identifier).location()
    except NoSuchTableError:  # created by ``store`` where the catalog puts new tables
        ensure_namespace(catalog, namespace)
        location = catalog._resolve_table_location(None, namespace, name)
    return f"{location.rstrip('/')}/data/{run}"


def _listing(staged: str, s3: S3Settings | None) -> tuple[pafs.FileSystem, list[str]]:
    """The file system of ``staged`` and the Parquet files under it (paths in that system)."""
    fs, path = filesystem(s3, staged)
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.File:
        return fs, [path]
    selector = pafs.FileSelector(path, recursive=True, allow_not_found=True)
    return fs, sorted(f.path for f in fs.get_file_info(selector) if f.path.endswith(".parquet"))


def staged_files(staged: str, s3: S3Settings | None = None) -> list[str]:
    """The Parquet files under ``staged`` that hold rows (URIs on an object store); the
    empty ones are deleted on an object store, where nothing else would remove them."""
    fs, files = _listing(staged, s3)
    kept = []
    for f in files:
        if pq.ParquetFile(f, filesystem=fs).metadata.num_rows > 0:
            kept.append(uri_of(staged, f))
        elif is_remote(staged):
            fs.delete_file(f)
    return kept


def _schema(staged: str, s3: S3Settings | None) -> pa.Schema:
    fs, files = _listing(staged, s3)
    if not files:
        raise StoreError(f"the model wrote no Parquet file under {staged}")
    schema = pq.read_schema(files[0], filesystem=fs)
    for field in schema:
        if isinstance(field.type, pa.ExtensionType) or field.type in (pa.uint64(), pa.uint32()):
            raise StoreError(
                f"column {field.name!r} has type {field.type}, which Iceberg cannot store; "
                "cast it in the model (json -> varchar, unsigned -> bigint)"
            )
    return schema.remove_metadata()


def _canonical(t: pa.DataType) -> str:
    """A type's shape without field ids, nullability or large/small string and list variants."""
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_canonical(f.type)}" for f in t) + ">"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{_canonical(t.value_type)}>"
    if pa.types.is_map(t):
        return f"map<{_canonical(t.key_type)},{_canonical(t.item_type)}>"
    if pa.types.is_large_string(t) or pa.types.is_string(t):
        return "string"
    if pa.types.is_large_binary(t) or pa.types.is_binary(t):
        return "binary"
    return str(t)


def _evolve(table: Table, schema: pa.Schema, *, overwrite: bool) -> None:
    """Make the table's columns those of ``schema``: add new ones, drop missing ones, and (when
    overwriting, so no old row has to be read with the new type) replace changed ones."""
    current = {f.name: _canonical(f.type) for f in table.schema().as_arrow()}
    wanted = {f.name: _canonical(f.type) for f in schema}
    if list(current.items()) == list(wanted.items()):
        return
    changed = [n for n in wanted if n in current and current[n] != wanted[n]]
    if changed and not overwrite:
        raise ValueError(f"columns changed type: {', '.join(changed)}")
    dropped = [n for n in current if n not in wanted or n in changed]
    if dropped:
        with table.update_schema() as update:
            for name in dropped:
                update.delete_column(name)
    with table.update_schema() as update:
        update.union_by_name(schema)
    if list(table.schema().column_names) != list(schema.names):  # keep the model's column order
        with table.update_schema() as update:
            update.move_first(schema.names[0])
            for before, name in zip(schema.names, schema.names[1:], strict=False):
                update.move_after(name, before)


def _move_into(table: Table, files: list[str], tag: str) -> list[str]:
    """Move locally staged files into the table's data folder (a rename on a local warehouse;
    a copy through the table's FileIO when only the staging folder is local)."""
    target_dir = f"{table.location()}/data"
    moved = []
    for n, f in enumerate(files):
        target = f"{target_dir}/{tag}-{n:05d}.parquet"
        local = local_path(target)
        if local != target:
            with open(f, "rb") as src, table.io.new_output(target).create(overwrite=True) as dst:
                shutil.copyfileobj(src, dst)
            os.unlink(f)
        else:
            os.makedirs(os.path.dirname(local), exist_ok=True)
            shutil.move(f, local)
        moved.append(target)
    return moved


def _properties_differ(table: Table, properties: dict[str, str]) -> bool:
    """Whether the current snapshot read other snapshots than ``properties`` record."""
    snapshot = table.current_snapshot()
    if snapshot is None or snapshot.summary is None:
        return True
    current = snapshot.summary.additional_properties
    return any(current.get(k) != v for k, v in properties.items() if k.startswith(PROPERTY_PREFIX))


def store(catalog: Catalog, request: StoreRequest) -> str:
    """Commit the staged files of a model; returns the table's new metadata location."""
    from pyiceberg.exceptions import NoSuchTableError
    from pyiceberg.expressions import AlwaysTrue

    if request.mode not in MODES:
        raise StoreError(f"unknown store mode {request.mode!r}; use one of {', '.join(MODES)}")
    if request.mode == "sync" and (request.key is None or request.deleted_keys is None):
        raise StoreError(f"{request.identifier}: a sync needs its key and the keys to delete")
    schema = _schema(request.staged, request.s3)
    ensure_namespace(catalog, request.identifier.rsplit(".", 1)[0])
    try:
        table = catalog.load_table(request.identifier)
        try:
            _evolve(table, schema, overwrite=request.mode == "overwrite")
        except (ValueError, TypeError) as exc:
            if not request.full_refresh:
                raise StoreError(
                    f"{request.identifier}: the model's columns changed in a way Iceberg cannot "
                    f"evolve ({exc}); run with --full-refresh to recreate the table"
                ) from None
            catalog.drop_table(request.identifier)
            table = catalog.create_table(request.identifier, schema=schema, properties=NO_REPLAY)
    except NoSuchTableError:
        table = catalog.create_table(request.identifier, schema=schema, properties=NO_REPLAY)

    files = staged_files(request.staged, request.s3)
    if is_remote(request.staged):  # already at their final keys: no rename on object stores
        paths = files
    else:
        tag = f"dbt-{request.properties.get('lakemix.dbt_invocation_id', 'run')}-"
        paths = _move_into(table, files, tag + uuid.uuid4().hex[:8])

    def attempt(table: Table) -> str:
        current = table.metadata.current_snapshot_id
        incremental = request.mode in ("append", "sync")
        if incremental and request.parent is not None and current != request.parent:
            for path in paths:  # never committed: the run's rows are left out, not doubled
                table.io.delete(path)
            raise StoreError(
                f"{request.identifier}: another build committed to the table while this "
                f"incremental run computed its rows against snapshot {request.parent} (now "
                f"{current}); nothing was appended. Run the build again."
            )
        if request.mode == "sync":
            assert request.key is not None and request.deleted_keys is not None
            keys = pq.read_table(request.deleted_keys, columns=[request.key]).column(request.key)
            # Committed even when nothing changed: the current snapshot names the build that
            # last made the table what it is (its vars go into a release's manifest).
            commit_row_delta(
                table, paths, positions_of(table, request.key, keys), request.properties
            )
            return str(table.refresh().metadata_location)
        with table.transaction() as tx:
            if request.mode == "overwrite" and table.current_snapshot() is not None:
                tx.delete(AlwaysTrue(), snapshot_properties=request.properties)
            if paths:
                tx.add_files(paths, snapshot_properties=request.properties)
            elif (request.mode == "overwrite" and table.current_snapshot() is None) or (
                request.commit_when_empty and _properties_differ(table, request.properties)
            ):
                tx.append(
                    table.schema().as_arrow().empty_table(), snapshot_properties=request.properties
                )
        return str(table.refresh().metadata_location)

    location = commit_with_retry(catalog, request.identifier, attempt)
    if not is_remote(request.staged):
        shutil.rmtree(request.staged, ignore_errors=True)
    if request.deleted_keys is not None:
        Path(request.deleted_keys).unlink(missing_ok=True)
    return location
