"""Time travel on one Iceberg table: a tag, a snapshot id or a timestamp -> its snapshot."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.iceberg.views import scan_sql

if TYPE_CHECKING:
    from pyiceberg.table import Table

TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class VersionError(LakemixError, LookupError):
    """A version (tag, snapshot id or timestamp) that a table does not have."""


def parse_timestamp(version: str) -> datetime | None:
    """``2026-12-01``, ``2026-12-01T10:00`` or with an offset -> an aware datetime (UTC default)."""
    try:
        moment = datetime.fromisoformat(version)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def snapshot_at(table: Table, version: str | int) -> int:
    """Snapshot id of ``table`` at ``version``.

    Args:
        table: The Iceberg table.
        version: A tag name, a snapshot id, or an ISO timestamp (the snapshot that was current
            then).

    Raises:
        VersionError: The table has no such tag or snapshot, or did not exist at that time.
    """
    name = ".".join(table.name()[-2:])
    text = str(version).strip()
    if re.fullmatch(r"-?\d+", text):
        if table.snapshot_by_id(int(text)) is None:
            raise VersionError(f"{name} has no snapshot {text}")
        return int(text)
    ref = table.metadata.refs.get(text)
    if ref is not None:
        return ref.snapshot_id
    moment = parse_timestamp(text)
    if moment is None:
        tags = sorted(k for k, r in table.metadata.refs.items() if r.snapshot_ref_type == "tag")
        raise VersionError(
            f"{name} has no tag {text!r} (tags: {', '.join(tags) or 'none'}); a version is a "
            "tag, a snapshot id or an ISO timestamp"
        )
    millis = int(moment.timestamp() * 1000)
    current = [e.snapshot_id for e in table.metadata.snapshot_log if e.timestamp_ms <= millis]
    if not current:
        raise VersionError(f"{name} had no snapshot yet at {moment.isoformat()}")
    return current[-1]


def scan_at(table: Table, version: str | int | None) -> str:
    """``iceberg_scan(...)`` SQL of ``table`` at ``version`` (the current snapshot when None)."""
    return scan_sql(table, None if version is None else snapshot_at(table, version))
