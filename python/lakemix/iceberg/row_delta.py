"""Row-level changes to an Iceberg table: new data files and position deletes in one snapshot.

An Iceberg table whose rows mostly stay but some change or leave can be brought up to date
without rewriting it: the changed and gone rows are deleted by position (an Iceberg v2
position-delete file lists ``(data file, row number)`` pairs that readers skip: DuckDB's
``iceberg_scan``, pyiceberg and Spark all apply them), and the rows that are new or changed are
added as new data files, both in one snapshot (operation ``overwrite``, as Iceberg's row-delta
commits). pyiceberg 0.12 reads position deletes but writes none (its deletes rewrite every data
file they touch): ``commit_row_delta`` writes the delete file and its manifest itself, through
pyiceberg's snapshot producer.

Deletes pile up with each commit (a delete file each, and rows that are still stored but
skipped): ``deleted_share`` says how much, so that the caller rewrites the table whole now and
then (the dbt ``sync`` strategy does when a fifth of the stored rows are deleted).
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.table import Table, Transaction

# The reserved field ids of a position-delete file's columns (Iceberg spec, "Position Delete
# Files"): file_path and pos.
FILE_PATH_ID, POS_ID = 2147483546, 2147483545
POSITION_SCHEMA = pa.schema(
    [
        pa.field("file_path", pa.string(), nullable=False,
                 metadata={b"PARQUET:field_id": str(FILE_PATH_ID).encode()}),
        pa.field("pos", pa.int64(), nullable=False,
                 metadata={b"PARQUET:field_id": str(POS_ID).encode()}),
    ]
)  # fmt: skip


class RowDeltaError(LakemixError, RuntimeError):
    """Rows to delete that the table does not hold, or a table a row delta cannot be made on."""


@dataclass(frozen=True)
class DeletedShare:
    """How much of a table's stored rows its position deletes hide.

    Attributes:
        stored: Rows in its data files.
        deleted: Rows its position-delete files hide.
        delete_files: Position-delete files that apply.
    """

    stored: int
    deleted: int
    delete_files: int

    @property
    def share(self) -> float:
        return self.deleted / self.stored if self.stored else 0.0


def deleted_share(table: Table) -> DeletedShare:
    """Stored rows, deleted rows and delete files of the current snapshot, from metadata."""
    stored, deletes = 0, {}
    if table.current_snapshot() is not None:
        for task in table.scan().plan_files():
            stored += task.file.record_count
            for delete in task.delete_files:
                deletes[delete.file_path] = delete.record_count
    return DeletedShare(stored, sum(deletes.values()), len(deletes))


def _read(table: Table, path: str, columns: list[str]) -> pa.Table:
    with table.io.new_input(path).open() as stream:
        return pq.read_table(stream, columns=columns)


def positions_of(table: Table, column: str, keys: pa.Array) -> pa.Table:
    """The ``(file_path, pos)`` of every live row of the current snapshot whose ``column`` is
    one of ``keys``: what a position-delete file needs to delete them, sorted as the spec asks.

    Only ``column`` of each data file is read, and the position deletes that apply to it.

    Raises:
        RowDeltaError: A key is not held by exactly one live row (each must be: the keys are
            the rows to delete, decided from this very snapshot).
    """
    wanted = pa.array(pc.unique(keys))
    deleted_by_file: dict[str, pa.Table] = {}
    paths, rows = [], []
    found = 0
    if table.current_snapshot() is not None:
        for task in table.scan().plan_files():
            path = task.file.file_path
            values = _read(table, path, [column]).column(column)
            hit = pc.is_in(values, value_set=wanted)
            positions = pc.indices_nonzero(hit)
            if len(positions) == 0:
                continue
            for delete in task.delete_files:
                if delete.file_path not in deleted_by_file:
                    deleted_by_file[delete.file_path] = _read(
                        table, delete.file_path, ["file_path", "pos"]
                    )
                done = deleted_by_file[delete.file_path]
                gone = done.filter(pc.equal(done.column("file_path"), path)).column("pos")
                positions = positions.filter(pc.invert(pc.is_in(positions, value_set=gone)))
            found += len(positions)
            paths.append(pa.array([path] * len(positions), pa.string()))
            rows.append(positions.cast(pa.int64()))
    if found != len(wanted) or len(keys) != len(wanted):
        raise RowDeltaError(
            f"{'.'.join(table.name())}: {len(keys):,} row(s) to delete by {column}, "
            f"{found:,} live row(s) hold those keys: the table changed, or {column} is no key"
        )
    result = pa.table(
        [pa.chunked_array(paths, pa.string()), pa.chunked_array(rows, pa.int64())],
        schema=POSITION_SCHEMA,
    )
    return result.sort_by([("file_path", "ascending"), ("pos", "ascending")])


def _position_delete_file(tx: Transaction, positions: pa.Table) -> DataFile:
    """Write ``positions`` as a Parquet position-delete file in the table's data folder; its
    bounds on ``file_path`` let readers skip it for the data files it does not name."""
    from pyiceberg.conversions import to_bytes
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    from pyiceberg.typedef import Record
    from pyiceberg.types import StringType

    location = tx._table.location_provider().new_data_location(f"{uuid.uuid4()}-deletes.parquet")
    with tx._table.io.new_output(location).create(overwrite=False) as stream:
        pq.write_table(positions, stream, compression="zstd")
    bounds = pc.min_max(positions.column("file_path"))
    return DataFile.from_args(
        content=DataFileContent.POSITION_DELETES,
        file_path=location,
        file_format=FileFormat.PARQUET,
        partition=Record(),
        record_count=len(positions),
        file_size_in_bytes=len(tx._table.io.new_input(location)),
        lower_bounds={FILE_PATH_ID: to_bytes(StringType(), bounds["min"].as_py())},
        upper_bounds={FILE_PATH_ID: to_bytes(StringType(), bounds["max"].as_py())},
        spec_id=tx.table_metadata.default_spec_id,
    )


def commit_row_delta(
    table: Table, data_paths: list[str], positions: pa.Table, properties: dict[str, str]
) -> None:
    """Add the Parquet files ``data_paths`` (already in the table's data folder) and delete the
    rows at ``positions`` (``positions_of``) in one snapshot of ``table``.

    Raises:
        RowDeltaError: The table is partitioned or not of format version 2.
        CommitFailedException: Another writer committed first (``commit_with_retry``).
    """
    from pyiceberg.table import TableProperties, _parquet_files_to_data_files

    if table.metadata.format_version != 2 or not table.spec().is_unpartitioned():
        raise RowDeltaError(
            f"{'.'.join(table.name())}: row deltas are written to unpartitioned Iceberg v2 "
            f"tables only (format v{table.metadata.format_version}, spec {table.spec()})"
        )
    with table.transaction() as tx:
        if tx.table_metadata.name_mapping() is None:  # as add_files: DuckDB's files have no ids
            mapping = tx.table_metadata.schema().name_mapping.model_dump_json()
            tx.set_properties({TableProperties.DEFAULT_NAME_MAPPING: mapping})
        deletes = [_position_delete_file(tx, positions)] if len(positions) else []
        producer = _row_delta_class()(tx, deletes, properties)
        for data_file in _parquet_files_to_data_files(
            table_metadata=tx.table_metadata, file_paths=data_paths, io=tx._table.io
        ):
            producer.append_data_file(data_file)
        producer.commit()


@functools.cache
def _row_delta_class() -> Any:
    """pyiceberg's fast append with a manifest of position-delete files added (imported when
    first needed, as pyiceberg is everywhere else)."""
    from pyiceberg.manifest import (
        ManifestContent,
        ManifestEntry,
        ManifestEntryStatus,
        ManifestFile,
        ManifestWriterV2,
    )
    from pyiceberg.table.snapshots import Operation, Summary
    from pyiceberg.table.update.snapshot import _FastAppendFiles

    class DeleteManifestWriter(ManifestWriterV2):
        def content(self) -> ManifestContent:
            return ManifestContent.DELETES

    class RowDelta(_FastAppendFiles):
        """A fast append (new data files, every existing manifest kept) that also adds a
        manifest of position-delete files."""

        def __init__(self, tx: Transaction, deletes: list[DataFile], properties: dict[str, str]):
            operation = Operation.OVERWRITE if deletes else Operation.APPEND
            super().__init__(operation, tx, tx._table.io, snapshot_properties=properties)
            self._deletes = deletes

        def _manifests(self) -> list[ManifestFile]:
            manifests: list[ManifestFile] = super()._manifests()
            if not self._deletes:
                return manifests
            writer = DeleteManifestWriter(
                spec=self._transaction.table_metadata.spec(),
                schema=self.schema(),
                output_file=self.new_manifest_output(),
                snapshot_id=self._snapshot_id,
                avro_compression=self._compression,
            )
            with writer:
                for delete in self._deletes:
                    writer.add(
                        ManifestEntry.from_args(
                            status=ManifestEntryStatus.ADDED,
                            snapshot_id=self._snapshot_id,
                            sequence_number=None,
                            file_sequence_number=None,
                            data_file=delete,
                        )
                    )
            return [writer.to_manifest_file(), *manifests]

        def _summary(self, snapshot_properties: dict[str, str] | None = None) -> Summary:
            # The summary counts what _added_data_files holds; the delete files count as
            # added-delete-files and added-position-deletes.
            added = self._added_data_files
            self._added_data_files = [*added, *self._deletes]
            try:
                summary: Summary = super()._summary(snapshot_properties or {})
                return summary
            finally:
                self._added_data_files = added

    return RowDelta
