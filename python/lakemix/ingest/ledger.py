"""Which raw files a table already holds, recorded in the table's own snapshot properties.

Each ingest commit carries the list of input files it added (path, content checksum, counts) in
the summary of the snapshot it creates, so the record of what was ingested is committed in the
same atomic step as the rows themselves: a crash can never leave rows without their record or
the other way round.

``lakemix ingest-remove`` deletes an ingest's rows in a snapshot that names it
(``lakemix.removed_ingest``): the entries of that ingest's snapshot no longer count from there on,
so the same files can be ingested again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from pyiceberg.table import Table

FILES_PROPERTY = "lakemix.files"
INGEST_PROPERTY = "lakemix.ingest_id"
REMOVED_PROPERTY = "lakemix.removed_ingest"


@dataclass(frozen=True)
class LedgerEntry:
    """One input file as committed to a table."""

    path: str
    sha256: str
    source: str
    rows: int


def ingested_files(table: Table) -> dict[str, LedgerEntry]:
    """Checksum -> entry for every input file committed on the table's current branch (and not
    removed since by ``lakemix ingest-remove``)."""
    from pyiceberg.table.snapshots import ancestors_of

    found: dict[str, LedgerEntry] = {}
    removed: set[str] = set()
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        if REMOVED_PROPERTY in extra:  # newer than the ingest it removes: seen first
            removed.add(extra[REMOVED_PROPERTY])
        if extra.get(INGEST_PROPERTY) in removed:
            continue
        raw = extra.get(FILES_PROPERTY)
        if raw:
            for item in orjson.loads(raw):
                entry = LedgerEntry(**item)
                found.setdefault(entry.sha256, entry)
    return found


def ledger_properties(entries: list[LedgerEntry]) -> dict[str, str]:
    """Snapshot properties recording ``entries``."""
    return {FILES_PROPERTY: orjson.dumps([asdict(e) for e in entries]).decode()}
