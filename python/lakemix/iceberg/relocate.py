"""Point a copied or moved table at its own files: Iceberg's table-path rewrite, in place.

An Iceberg table names its files by absolute location at every level: the catalog row names
the metadata file, which names each snapshot's manifest list, which names the manifests, which
name the data and delete files (and a position-delete file names, in its rows, the data files it
deletes from). A lakehouse folder copied elsewhere therefore still reads, and would write, the
original's files. :func:`relocate_table` rewrites every level of one table under a new root:
new manifests, manifest lists and position-delete files are written beside the copies (the
copied ones are left for ``lakemix gc``), then one new metadata file, and the catalog row moves
to it by compare-and-swap: a table is relocated whole or not at all, so a killed relocation is
simply run again.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import orjson

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.io import FileIO
    from pyiceberg.manifest import ManifestFile

FILE_PATH_ID = 2147483546  # the position-delete schema's file_path column
# Positions in pyiceberg's records (they have no setters): DataFile's path and size, and
# ManifestFile's path and length.
DATA_FILE_PATH, DATA_FILE_SIZE = 1, 5
MANIFEST_PATH, MANIFEST_LENGTH = 0, 1


class RelocateError(LakemixError, RuntimeError):
    """A table cannot move to the new root (its files are not there, or it changed meanwhile)."""


@dataclass(frozen=True)
class PathMap:
    """Locations under ``old`` -> the same under ``new`` (URIs, ``file://`` or ``s3://``; a
    local file may also be named by its bare path, as files added by path are)."""

    old: str
    new: str

    def pairs(self) -> list[tuple[str, str]]:
        """(old prefix, new prefix), each ending in ``/``: the URIs, and the bare paths."""
        found = [(self.old + "/", self.new + "/")]
        if self.old.startswith("file://") and self.new.startswith("file://"):
            found.append((_bare(self.old) + "/", _bare(self.new) + "/"))
        return found

    def __call__(self, location: str) -> str:
        for old, new in self.pairs():
            if location.startswith(old):
                return new + location[len(old) :]
        return location

    def moves(self, location: str) -> bool:
        return any(location.startswith(old) for old, _ in self.pairs())


def _bare(uri: str) -> str:
    return unquote(urlsplit(uri).path).rstrip("/")


@dataclass
class Relocated:
    """What one table's relocation wrote."""

    snapshots: int = 0
    manifests: int = 0
    files: int = 0
    delete_files: int = field(default=0)


def infer_old_root(location: str, new_root: str, io: FileIO) -> str | None:
    """The root ``location`` (a metadata file of the original lakehouse) was under: the prefix
    whose tail exists under ``new_root``, the longest tail first. None when no tail does."""
    scheme, sep, rest = location.partition("://")
    if not sep:
        return None
    head, _, path = rest.partition("/")  # file:///a/b -> head "", path "a/b"
    parts = path.split("/")
    for start in range(1, len(parts)):
        tail = "/".join(parts[start:])
        if io.new_input(f"{new_root}/{tail}").exists():
            return f"{scheme}://{head}/{'/'.join(parts[:start])}"
    return None


def relocate_table(
    catalog: SqlCatalog, identifier: str, metadata_location: str, paths: PathMap
) -> Relocated:
    """Rewrite table ``identifier`` (whose catalog row names ``metadata_location``, under
    ``paths.old``) so that every location it holds is under ``paths.new``, and move its catalog
    row to the new metadata file.

    Raises:
        RelocateError: A file the table needs is not under the new root, or the catalog row
            changed meanwhile.
    """
    from pyiceberg.io import load_file_io
    from pyiceberg.manifest import read_manifest_list, write_manifest_list
    from pyiceberg.table.metadata import TableMetadataUtil

    source = paths(metadata_location)
    io = load_file_io(properties=catalog.properties, location=source)
    try:
        raw = orjson.loads(io.new_input(source).open().read())
    except FileNotFoundError:
        raise RelocateError(
            f"{identifier}: {source} is missing: the copy does not hold this table's files"
        ) from None
    metadata = TableMetadataUtil.parse_obj(raw)
    result = Relocated()
    written: dict[str, ManifestFile] = {}
    metadata_dir = paths(raw["location"]) + "/metadata"
    for snapshot in raw.get("snapshots", []):
        manifest_list = paths(snapshot["manifest-list"])
        manifests = []
        for manifest in read_manifest_list(io.new_input(manifest_list)):
            if manifest.manifest_path not in written:
                written[manifest.manifest_path] = _rewrite_manifest(
                    manifest, metadata, io, paths, metadata_dir, result
                )
            manifests.append(written[manifest.manifest_path])
        target = f"{metadata_dir}/snap-{snapshot['snapshot-id']}-relocated-{uuid.uuid4()}.avro"
        with write_manifest_list(
            format_version=metadata.format_version,
            output_file=io.new_output(target),
            snapshot_id=snapshot["snapshot-id"],
            parent_snapshot_id=snapshot.get("parent-snapshot-id"),
            sequence_number=snapshot.get("sequence-number", 0),
            avro_compression="deflate",
        ) as writer:
            writer.add_manifests(manifests)
        snapshot["manifest-list"] = target
        result.snapshots += 1
    _rewrite_locations(raw, paths)
    version = _next_version(metadata_location)
    new_location = f"{metadata_dir}/{version:05d}-{uuid.uuid4()}.metadata.json"
    with io.new_output(new_location).create(overwrite=False) as stream:
        stream.write(orjson.dumps(raw))
    swap_metadata(catalog, identifier, metadata_location, new_location)
    return result


def _rewrite_manifest(
    manifest: ManifestFile,
    metadata: Any,
    io: FileIO,
    paths: PathMap,
    metadata_dir: str,
    result: Relocated,
) -> ManifestFile:
    """A copy of ``manifest`` (under the new root) whose entries name files under it."""
    from pyiceberg.manifest import DataFileContent, ManifestContent, ManifestWriterV2

    class Writer(ManifestWriterV2):
        def content(self) -> ManifestContent:
            return manifest.content

        @property
        def _meta(self) -> dict[str, str]:
            deletes = manifest.content == ManifestContent.DELETES
            return {**super()._meta, "content": "deletes" if deletes else "data"}

    moved = _clone(manifest)
    moved[MANIFEST_PATH] = paths(manifest.manifest_path)  # read the copy's file
    entries = moved.fetch_manifest_entry(io, discard_deleted=False)
    target = f"{metadata_dir}/relocated-{uuid.uuid4()}-m0.avro"
    schema = metadata.schema_by_id(metadata.current_schema_id) or metadata.schema()
    spec = metadata.specs()[manifest.partition_spec_id]
    snapshot_id = int(manifest.added_snapshot_id or 0)
    writer = Writer(spec, schema, io.new_output(target), snapshot_id, "deflate")
    with writer:
        for entry in entries:
            data_file = entry.data_file
            if data_file.content == DataFileContent.POSITION_DELETES:
                _rewrite_position_deletes(data_file, io, paths, metadata_dir)
                result.delete_files += 1
            else:
                data_file[DATA_FILE_PATH] = paths(data_file.file_path)
            writer.add_entry(entry)
            result.files += 1
    out: ManifestFile = _clone(manifest)
    out[MANIFEST_PATH] = target
    out[MANIFEST_LENGTH] = len(io.new_input(target))
    result.manifests += 1
    return out


def _rewrite_position_deletes(data_file: Any, io: FileIO, paths: PathMap, folder: str) -> None:
    """A position-delete file names the data files it deletes from: write it again with their
    new locations, and move the entry (path, size, bounds) to the new file."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    from pyiceberg.conversions import to_bytes
    from pyiceberg.types import StringType

    source = paths(data_file.file_path)
    with io.new_input(source).open() as stream:
        table = pq.read_table(stream)
    moved = table.column("file_path")
    for old, new in paths.pairs():
        moved = pc.replace_substring_regex(
            moved,
            pattern="^" + re.escape(old),
            replacement=new.replace("\\", "\\\\"),
            max_replacements=1,
        )
    table = table.set_column(table.schema.get_field_index("file_path"), "file_path", moved)
    parent = source.rsplit("/", 1)[0] if paths.moves(data_file.file_path) else folder
    target = f"{parent}/relocated-{uuid.uuid4()}-deletes.parquet"
    with io.new_output(target).create(overwrite=False) as out:
        pq.write_table(table, out, compression="zstd")
    data_file[DATA_FILE_PATH] = target
    data_file[DATA_FILE_SIZE] = len(io.new_input(target))
    for bounds in (data_file.lower_bounds, data_file.upper_bounds):
        if bounds and FILE_PATH_ID in bounds:
            bounds[FILE_PATH_ID] = to_bytes(StringType(), paths(bounds[FILE_PATH_ID].decode()))


def _clone(record: Any) -> Any:
    """A copy of a pyiceberg record that does not share its fields (``copy.copy`` would)."""
    return type(record)(*record._data)


def _rewrite_locations(raw: dict[str, Any], paths: PathMap) -> None:
    """Every other location the metadata JSON holds: the table's, its past metadata files, its
    statistics files, and the write paths of its properties."""
    raw["location"] = paths(raw["location"])
    for entry in raw.get("metadata-log", []):
        entry["metadata-file"] = paths(entry["metadata-file"])
    for key in ("statistics", "partition-statistics"):
        for entry in raw.get(key, []):
            entry["statistics-path"] = paths(entry["statistics-path"])
    properties = raw.get("properties", {})
    for key, value in list(properties.items()):
        if isinstance(value, str) and paths.moves(value):
            properties[key] = paths(value)


def _next_version(location: str) -> int:
    name = location.rsplit("/", 1)[-1]
    head = name.split("-", 1)[0]
    return int(head) + 1 if head.isdigit() else 0


def swap_metadata(catalog: SqlCatalog, identifier: str, old: str, new: str) -> None:
    """Move the catalog row of ``identifier`` from metadata file ``old`` to ``new``, only if it
    still names ``old`` (compare-and-swap, as Iceberg's commits are).

    Raises:
        RelocateError: The row names another file by now.
    """
    from pyiceberg.catalog.sql import IcebergTables
    from sqlalchemy import update
    from sqlalchemy.orm import Session

    namespace, name = identifier.rsplit(".", 1)
    statement = (
        update(IcebergTables)
        .where(
            IcebergTables.catalog_name == catalog.name,
            IcebergTables.table_namespace == namespace,
            IcebergTables.table_name == name,
            IcebergTables.metadata_location == old,
        )
        .values(metadata_location=new, previous_metadata_location=old)
    )
    with Session(catalog.engine) as session:
        changed = session.execute(statement).rowcount  # type: ignore[attr-defined]
        session.commit()
    if changed != 1:
        raise RelocateError(f"{identifier}: its catalog row changed meanwhile; run again")
