"""Whether a model of ``incremental_strategy='sync'`` may change only its changed rows this run.

A sync model is defined over every row (its SQL has no incremental branch); its table is
brought to equal that result by writing only the rows that differ (the ``iceberg``
materialization compares a hash of each row's columns, by key, with the table's, and commits
the new and changed rows with position deletes of the changed and gone ones:
``lakemix.iceberg.row_delta``). Columns left out of the hash (``unhashed_columns``: the text,
whose reading would cost what the sync saves) must come from the incremental models the model
reads, whose rows never change once written. That holds while each such source was only
appended to since the model's last run: the run records the snapshot of each it read (as
``rows_since`` does, ``lakemix.read.<source>``), and a source rewritten since (a
``--full-refresh``) makes the model rebuild whole. It also rebuilds whole when position deletes
hide a fifth of its stored rows, or after 50 delete files, so that reads stay cheap, and
when its compiled SQL changed (an edit may change an unhashed column of every row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.dbt import watermark
from lakemix.iceberg.row_delta import deleted_share

if TYPE_CHECKING:
    from pyiceberg.table import Table

MAX_DELETED_SHARE = 0.2
MAX_DELETE_FILES = 50
# Snapshot property: the digest of the SQL the model's rows were made with. Changed SQL may
# change an unhashed column of every row (the text taken from elsewhere): then rebuild whole.
SQL_PROPERTY = "lakemix.sync.sql"


@dataclass(frozen=True)
class SyncPlan:
    """What a run of a sync model does.

    Attributes:
        sync: Write only the changed rows (else rebuild the table whole).
        reason: Why it rebuilds whole (empty when it syncs).
        parent: The table's snapshot the run compares with (the commit must land on it).
    """

    sync: bool
    reason: str
    parent: int | None = None


def plan(target: Table | None, sources: dict[str, tuple[Table, int]], sql_digest: str) -> SyncPlan:
    """Sync or rebuild ``target`` (None: not built yet, or this run is no incremental one).

    Args:
        target: The model's table as it is now, or None to rebuild whole.
        sources: Each incremental source the model reads: its table and the snapshot this run
            reads.
        sql_digest: The digest of the model's compiled SQL this run (``SQL_PROPERTY``).
    """
    snapshot = target.current_snapshot() if target is not None else None
    if target is None or snapshot is None:
        return SyncPlan(False, "a first build, or a --full-refresh")
    parent = target.metadata.current_snapshot_id
    made = snapshot.summary.additional_properties if snapshot.summary is not None else {}
    if made.get(SQL_PROPERTY) is None:  # made by an earlier lakemix, or rebuilt by Spark
        return SyncPlan(False, "no record of the SQL its rows were made with")
    if made.get(SQL_PROPERTY) != sql_digest:
        return SyncPlan(False, "its SQL changed since its rows were made")
    for name, (table, now) in sources.items():
        last = watermark.last_read(target, name)
        if last is None or table.snapshot_by_id(last) is None:
            return SyncPlan(False, f"no record of which snapshot of {name} its rows were read from")
        if not watermark.appended_only(table, last, now):
            return SyncPlan(False, f"{name} was rewritten since the last run")
    share = deleted_share(target)
    if share.share > MAX_DELETED_SHARE or share.delete_files >= MAX_DELETE_FILES:
        return SyncPlan(
            False,
            f"{share.deleted:,} of its {share.stored:,} stored rows are deleted, in "
            f"{share.delete_files} delete files: rewritten whole",
        )
    return SyncPlan(True, "", parent)
