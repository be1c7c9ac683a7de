"""An ingest's data files, found from table metadata alone, dropped whole in one commit.

An ingest writes its rows into data files of its own and adds them in its own snapshot, so the
files holding its rows are those that snapshot added and the current snapshot still lists: the
manifests say so (each entry keeps the id of the snapshot that added its file) without reading a
byte of them. Dropping them is a metadata commit that works as well on a lost, truncated or
corrupted file as on a sound one, and leaves every other ingest's files as they are.

A live file added by another snapshot whose ``ingest_id`` bounds admit the ingest may hold some
of its rows (no lakemix writer makes one, but a rewrite of the table would): ``IngestFiles``
lists it, and the caller deletes row by row instead, which reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lakemix.ingest import schema

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.table import Table


@dataclass
class IngestFiles:
    """The live data files of one ingest in one table.

    Attributes:
        own: Files the ingest's snapshot added: all their rows are the ingest's.
        mixed: Files added by other snapshots that may hold some of its rows too.
    """

    own: list[DataFile] = field(default_factory=list)
    mixed: list[DataFile] = field(default_factory=list)

    @property
    def rows(self) -> int:
        """Rows of the files the ingest's snapshot added (from the manifests)."""
        return sum(f.record_count for f in self.own)


def _may_hold(data_file: DataFile, field_id: int, ingest_id: str) -> bool:
    """Whether the file's ``ingest_id`` bounds (truncated or not) admit ``ingest_id``."""
    lower = (data_file.lower_bounds or {}).get(field_id)
    upper = (data_file.upper_bounds or {}).get(field_id)
    if lower is None or upper is None:
        return True
    value = ingest_id.encode()
    return bytes(lower) <= value <= bytes(upper)


def ingest_files(table: Table, snapshot_id: int, ingest_id: str) -> IngestFiles:
    """The data files of the current snapshot of ``table`` that hold rows of ``ingest_id``,
    whose ingest committed snapshot ``snapshot_id``: read from the manifests only."""
    from pyiceberg.manifest import DataFileContent

    found = IngestFiles()
    current = table.current_snapshot()
    if current is None:
        return found
    field_id = table.schema().find_field("ingest_id").field_id
    for manifest in current.manifests(table.io):
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
            data_file = entry.data_file
            if data_file.content != DataFileContent.DATA:
                continue
            if entry.snapshot_id == snapshot_id:
                found.own.append(data_file)
            elif _may_hold(data_file, field_id, ingest_id):
                found.mixed.append(data_file)
    return found


def drop_files(table: Table, files: list[DataFile], properties: dict[str, str]) -> None:
    """Commit one snapshot (operation ``delete``) of ``table`` that drops ``files`` whole and
    carries ``properties``; an empty one when ``files`` is empty (a removal of ledger entries
    only). The files are not read, nor deleted from storage: older snapshots still list them."""
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.table.update.snapshot import _OverwriteFiles

    with table.transaction() as tx:
        if not files:
            tx.append(
                schema.arrow_schema(table.schema()).empty_table(), snapshot_properties=properties
            )
            return
        producer = _OverwriteFiles(
            operation=Operation.DELETE,
            transaction=tx,
            io=tx._table.io,
            snapshot_properties=properties,
        )
        for data_file in files:
            producer.delete_data_file(data_file)
        producer.commit()
