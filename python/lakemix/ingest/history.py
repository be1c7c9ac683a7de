"""``lakemix ingests``: every ingest still in the raw tables, from the ledger in their snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import orjson

from lakemix.ingest.ledger import FILES_PROPERTY, INGEST_PROPERTY, REMOVED_PROPERTY
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


@dataclass
class IngestRecord:
    """One ingest, as its snapshots of ``raw.documents`` and ``raw.quarantine`` record it."""

    ingest_id: str
    committed_at: datetime
    source: str
    files: set[str] = field(default_factory=set)  # content checksums
    documents: int = 0
    quarantined: int = 0
    snapshots: dict[str, int] = field(default_factory=dict)  # table -> snapshot id


def live_ingests(table: Table) -> dict[str, tuple[int, int, list[dict[str, object]]]]:
    """Ingest id -> (snapshot id, committed at in ms, ledger entries) of every ingest on the
    table's current branch that no later snapshot removed."""
    from pyiceberg.table.snapshots import ancestors_of

    found: dict[str, tuple[int, int, list[dict[str, object]]]] = {}
    removed: set[str] = set()
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        if REMOVED_PROPERTY in extra:
            removed.add(extra[REMOVED_PROPERTY])
        ingest_id = extra.get(INGEST_PROPERTY)
        if ingest_id and ingest_id not in removed and FILES_PROPERTY in extra:
            entries = orjson.loads(extra[FILES_PROPERTY])
            found[ingest_id] = (snapshot.snapshot_id, snapshot.timestamp_ms, entries)
    return found


def list_ingests(catalog: Catalog) -> list[IngestRecord]:
    """Every ingest not removed, oldest first."""
    from pyiceberg.exceptions import NoSuchTableError

    records: dict[str, IngestRecord] = {}
    for identifier, counter in (
        (RAW_DOCUMENTS, "documents"),
        (RAW_QUARANTINE, "quarantined"),
    ):
        try:
            table = catalog.load_table(identifier)
        except NoSuchTableError:
            continue
        for ingest_id, (snapshot_id, at_ms, entries) in live_ingests(table).items():
            at = datetime.fromtimestamp(at_ms / 1000, UTC)
            source = str(entries[0]["source"]) if entries else ""
            record = records.setdefault(ingest_id, IngestRecord(ingest_id, at, source))
            record.committed_at = min(record.committed_at, at)
            record.files.update(str(e["sha256"]) for e in entries)
            rows = sum(int(str(e["rows"])) for e in entries)
            if counter == "documents":
                record.documents += rows
            else:
                record.quarantined += rows
            record.snapshots[identifier] = snapshot_id
    return sorted(records.values(), key=lambda r: (r.committed_at, r.ingest_id))
