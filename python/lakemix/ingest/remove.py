"""``lakemix ingest-remove ID``: take one ingest back out of the raw tables.

Per table one commit deletes the ingest's rows and records the removal in the snapshot
(``lakemix.removed_ingest``), which takes its files out of the ledger: rows and ledger entries
go together, and the same files can be ingested again. ``raw.documents`` goes first: stopped
between the two commits, the quarantine rows are left, and the same command finishes the job
(ingest commits in the other order, quarantine first). Snapshots stay, so a release whose tag
pins an older snapshot still reads the rows; ``lakemix gc`` keeps every raw snapshot.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.catalog import catalog as open_catalog
from lakemix.errors import LakemixError
from lakemix.iceberg import commit_with_retry
from lakemix.ingest import schema
from lakemix.ingest.history import live_ingests
from lakemix.ingest.ledger import REMOVED_PROPERTY
from lakemix.settings import Settings
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

TABLES = (RAW_DOCUMENTS, RAW_QUARANTINE)  # in this order (see the module's docstring)
MIN_PREFIX = 6


class UnknownIngestError(LakemixError, LookupError):
    """No ingest (or more than one) has the id given."""


@dataclass
class Removal:
    """What ``remove_ingest`` took out: rows per table and the snapshots it committed."""

    ingest_id: str
    rows: dict[str, int]
    files: int
    snapshots: dict[str, int]


def _tables(catalog: Catalog) -> dict[str, Table]:
    from pyiceberg.exceptions import NoSuchTableError

    found = {}
    for identifier in TABLES:
        try:
            found[identifier] = catalog.load_table(identifier)
        except NoSuchTableError:
            continue
    return found


def resolve(catalog: Catalog, given: str) -> str:
    """The full id of the live ingest ``given`` names (its id, or a unique prefix of it).

    Raises:
        UnknownIngestError: no live ingest, or several, start with ``given``.
    """
    given = given.strip().lower()
    ids = {i for t in _tables(catalog).values() for i in live_ingests(t)}
    matches = sorted(
        i for i in ids if i == given or (len(given) >= MIN_PREFIX and i.startswith(given))
    )
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UnknownIngestError(
            f"ingest id {given!r} is ambiguous ({', '.join(matches)}): give more of it"
        )
    raise UnknownIngestError(
        f"no ingest {given!r} in {' or '.join(TABLES)} (never ingested, or removed already); "
        "`lakemix ingests` lists the ingests"
    )


def remove_ingest(given: str, *, settings: Settings | None = None) -> Removal:
    """Delete every row of ingest ``given`` from the raw tables, with its ledger entries.

    Raises:
        UnknownIngestError: the id is unknown, removed already, or an ambiguous prefix.
    """
    catalog = open_catalog(settings)
    ingest_id = resolve(catalog, given)
    removal = Removal(ingest_id=ingest_id, rows={}, files=0, snapshots={})
    files: set[str] = set()

    def attempt(table: Table) -> int | None:
        """Decided on the table as loaded: the ingest may have been removed meanwhile."""
        live = live_ingests(table).get(ingest_id)
        if live is None:
            return None
        entries = live[2]
        files.update(str(e["sha256"]) for e in entries)
        properties = {REMOVED_PROPERTY: ingest_id}
        rows = sum(int(str(e["rows"])) for e in entries)
        with table.transaction() as tx:
            if rows:
                # the id is one the table holds (hex): safe to quote
                tx.delete(f"ingest_id == '{ingest_id}'", snapshot_properties=properties)
            else:  # only ledger entries (files without rows): an empty snapshot removes them
                tx.append(
                    schema.arrow_schema(table.schema()).empty_table(),
                    snapshot_properties=properties,
                )
        current = table.current_snapshot()
        assert current is not None
        removal.snapshots[".".join(table.name()[-2:])] = current.snapshot_id
        return rows

    for identifier in _tables(catalog):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Delete operation did not match")
            rows = commit_with_retry(catalog, identifier, attempt)
        if rows is not None:
            removal.rows[identifier] = rows
    removal.files = len(files)
    return removal
