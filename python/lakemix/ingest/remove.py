"""``lakemix ingest-remove ID``: take one ingest back out of the raw tables.

Per table one commit drops the ingest's data files and records the removal in the snapshot
(``lakemix.removed_ingest``), which takes its files out of the ledger: rows and ledger entries
go together, and the same files can be ingested again. The files are found in the table's
metadata and dropped whole, never read (``lakemix.ingest.drop``): an ingest whose files were
lost, cut short or damaged is removed like any other, which is what ``lakemix verify`` advises
for a raw file. Snapshots stay, so a release whose tag pins an older snapshot still reads the
rows; ``lakemix gc`` keeps every raw snapshot.

``raw.quarantine`` goes first. Stopped between the two commits, the documents are left, and
the same command finishes the job; meanwhile their files count as ingested, so an ingest of
the same files skips them. In the other order the half-done removal would look like an ingest
stopped before its documents (ingest commits quarantine first), and an ingest of the same
files would take over the quarantine rows the removal's rerun then deletes for good. Such a
take-over (left by that order, or by an ingest stopped before its documents and run again) is
refused: an ingest's quarantine rows whose files another live ingest's documents hold are that
ingest's now, and go with it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.catalog import catalog as open_catalog
from lakemix.errors import LakemixError
from lakemix.iceberg import commit_with_retry
from lakemix.ingest.drop import drop_files, ingest_files
from lakemix.ingest.history import live_ingests
from lakemix.ingest.ledger import REMOVED_PROPERTY
from lakemix.settings import Settings
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

TABLES = (RAW_QUARANTINE, RAW_DOCUMENTS)  # in this order (see the module's docstring)
MIN_PREFIX = 6


class UnknownIngestError(LakemixError, LookupError):
    """No ingest (or more than one) has the id given."""


class TakenOverError(LakemixError, RuntimeError):
    """The ingest's quarantine rows go with another live ingest's documents now."""


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


def taken_over(
    catalog: Catalog, ingest_id: str, entries: list[dict[str, object]]
) -> dict[str, list[str]]:
    """Other live ingest id -> input files of ``entries`` (the ingest's quarantine ledger)
    whose documents that ingest holds in ``raw.documents``."""
    documents = _tables(catalog).get(RAW_DOCUMENTS)
    if documents is None:
        return {}
    mine = {str(e["sha256"]): str(e["path"]) for e in entries}
    found: dict[str, list[str]] = {}
    for other, (_, _, held) in live_ingests(documents).items():
        if other != ingest_id:
            for entry in held:
                if str(entry["sha256"]) in mine:
                    found.setdefault(other, []).append(mine[str(entry["sha256"])])
    return found


def _refuse_take_over(ingest_id: str, taken: dict[str, list[str]]) -> TakenOverError:
    owners = sorted(taken)
    paths = sorted({p for ps in taken.values() for p in ps})
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return TakenOverError(
        f"ingest {ingest_id}: nothing removed: its quarantine rows of {shown} go with the "
        f"documents of ingest {', '.join(owners)}, which read the same files again after "
        f"{ingest_id} stopped before its documents (or after an earlier removal stopped "
        "half-way); removing them would lose them for good. "
        f"`lakemix ingest-remove {owners[0]}` first takes those documents out, then this "
        "command takes the quarantine rows"
    )


def remove_ingest(given: str, *, settings: Settings | None = None) -> Removal:
    """Drop every data file of ingest ``given`` from the raw tables, with its ledger entries.

    Raises:
        UnknownIngestError: the id is unknown, removed already, or an ambiguous prefix.
        TakenOverError: its quarantine rows go with another ingest's documents (nothing removed).
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
        snapshot_id, _, entries = live
        name = ".".join(table.name()[-2:])
        if name == RAW_QUARANTINE and (taken := taken_over(catalog, ingest_id, entries)):
            raise _refuse_take_over(ingest_id, taken)
        files.update(str(e["sha256"]) for e in entries)
        properties = {REMOVED_PROPERTY: ingest_id}
        found = ingest_files(table, snapshot_id, ingest_id)
        if found.mixed:  # files another snapshot added may hold its rows: row by row
            with table.transaction() as tx:
                # the id is one the table holds (hex): safe to quote
                tx.delete(f"ingest_id == '{ingest_id}'", snapshot_properties=properties)
            rows = sum(int(str(e["rows"])) for e in entries)
        else:
            drop_files(table, found.own, properties)
            rows = found.rows
        current = table.current_snapshot()
        assert current is not None
        removal.snapshots[name] = current.snapshot_id
        return rows

    for identifier in _tables(catalog):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Delete operation did not match")
            rows = commit_with_retry(catalog, identifier, attempt)
        if rows is not None:
            removal.rows[identifier] = rows
    removal.rows = {
        t: removal.rows[t] for t in (RAW_DOCUMENTS, RAW_QUARANTINE) if t in removal.rows
    }
    removal.files = len(files)
    return removal
