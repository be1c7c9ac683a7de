"""What an incremental model has not read yet: the data files its source gained since its last run.

An incremental model that reads only new rows used to find them with an anti-join of every
source row against its own table, which reads every column it selects (the text, for the dedup
models) of every row. Iceberg data files never change, so every row of the source's snapshot
``now`` that was not in snapshot ``last`` lies in a file of ``now`` that ``last`` does not have:
reading those files gives a superset of the new rows. When every snapshot from ``last`` to
``now`` is an append, those files hold exactly the new rows (nothing was rewritten into a new
file); otherwise (an overwrite, a delete, a compaction) the model's anti-join on its key makes
the set exact. The snapshot a run read is recorded in the snapshot the run commits to its own
table (property ``lakemix.read.<source>``), so it travels with the rows: a table rolled back to
an older snapshot reads from that snapshot's watermark on. Whenever the files cannot be told
(no watermark, the snapshot expired, delete files), the whole source is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.iceberg import local_path

if TYPE_CHECKING:
    from pyiceberg.table import Table

PROPERTY_PREFIX = "lakemix.read."


def watermark_property(source: str) -> str:
    """The snapshot property that records which snapshot of ``source`` a run read."""
    return PROPERTY_PREFIX + source


def last_read(target: Table, source: str) -> int | None:
    """The snapshot of ``source`` that the run behind ``target``'s current snapshot read."""
    snapshot = target.current_snapshot()
    if snapshot is None or snapshot.summary is None:
        return None
    value = snapshot.summary.additional_properties.get(watermark_property(source))
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _listed(table: Table, snapshot_id: int | None) -> tuple[list[str], bool]:
    """The data files of a snapshot (the current when None), as the metadata names them, and
    whether a delete file applies to any of them."""
    tasks = list(table.scan(snapshot_id=snapshot_id).plan_files())
    return [task.file.file_path for task in tasks], any(task.delete_files for task in tasks)


def data_files(table: Table, snapshot_id: int) -> list[str] | None:
    """The data files of a snapshot, or None when it has delete files (rows hidden in files)."""
    files, deletes = _listed(table, snapshot_id)
    return None if deletes else files


@dataclass(frozen=True)
class AddedFiles:
    """The data files a snapshot has that an earlier one lacks.

    Attributes:
        paths: Local paths of those files, sorted.
        appended_only: Every snapshot after the earlier one, up to the later, is an append:
            the files hold exactly the rows the later snapshot gained, none read before.
    """

    paths: list[str]
    appended_only: bool


def appended_only(source: Table, since: int, until: int) -> bool:
    """Whether ``since`` is an ancestor of ``until`` and every snapshot after it is an append."""
    from pyiceberg.table.snapshots import Operation

    current: int | None = until
    while current != since:
        snapshot = source.snapshot_by_id(current) if current is not None else None
        if snapshot is None or snapshot.summary is None:
            return False
        if snapshot.summary.operation != Operation.APPEND:
            return False
        current = snapshot.parent_snapshot_id
    return True


def added_files(source: Table, since: int | None, until: int) -> AddedFiles | None:
    """The data files of snapshot ``until`` that snapshot ``since`` lacks.

    Returns None when that cannot be told: no ``since``, ``since`` no longer in the table's
    metadata (expired, or the table was recreated), or delete files in either snapshot.
    """
    if since is None or source.snapshot_by_id(since) is None:
        return None
    before = data_files(source, since)
    after = data_files(source, until)
    if before is None or after is None:
        return None
    seen = set(before)
    return AddedFiles(
        paths=sorted(local_path(path) for path in after if path not in seen),
        appended_only=appended_only(source, since, until),
    )


def files_since(table: Table, since: int | None) -> list[str] | None:
    """The data files of the current snapshot that snapshot ``since`` did not have, as the
    metadata names them (what ``iceberg_scan``'s ``filename`` gives), sorted; None when that
    cannot be told (no ``since``, or it is no longer in the table's metadata).

    Delete files do not matter: a row of a file ``since`` had is live now only if it was live
    then (deletes only remove rows), so the rows written after ``since`` are the live rows of
    these files, whether the table was appended to, synced or rewritten whole.
    """
    current = table.metadata.current_snapshot_id
    if since is None or current is None or table.snapshot_by_id(since) is None:
        return None
    before, _ = _listed(table, since)
    after, _ = _listed(table, current)
    return sorted(set(after) - set(before))
