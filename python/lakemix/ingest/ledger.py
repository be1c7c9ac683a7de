"""Which raw files a table already holds, recorded in the table's own snapshot properties.

Each ingest commit carries the list of input files it added (path, content checksum, counts) in
the summary of the snapshot it creates, so the record of what was ingested is committed in the
same atomic step as the rows themselves: a crash can never leave rows without their record or
the other way round.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from pyiceberg.table import Table

FILES_PROPERTY = "lakemix.files"


@dataclass(frozen=True)
class LedgerEntry:
    """One input file as committed to a table."""

    path: str
    sha256: str
    source: str
    rows: int


def ingested_files(table: Table) -> dict[str, LedgerEntry]:
    """Checksum -> entry for every input file committed on the table's current branch."""
    from pyiceberg.table.snapshots import ancestors_of

    found: dict[str, LedgerEntry] = {}
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        raw = extra.get(FILES_PROPERTY)
        if raw:
            for item in orjson.loads(raw):
                entry = LedgerEntry(**item)
                found.setdefault(entry.sha256, entry)
    return found


def ledger_properties(entries: list[LedgerEntry]) -> dict[str, str]:
    """Snapshot properties recording ``entries``."""
    return {FILES_PROPERTY: orjson.dumps([asdict(e) for e in entries]).decode()}
