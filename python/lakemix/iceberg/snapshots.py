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
SNAPSHOT_ID = re.compile(r"-?\d+")
# Names a tag cannot take: Iceberg's main branch, and the prefixes Spark SQL reads as a ref
# (`table.branch_x`, `table.tag_x`).
RESERVED = ("main",)
RESERVED_PREFIXES = ("branch_", "tag_")


class VersionError(LakemixError, LookupError):
    """A version (tag, snapshot id or timestamp) that a table does not have."""


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` cannot name a release, or None when it can.

    A tag is read back wherever a version is (``--at``, ``--tag``): it must not be read as
    something else there. Refused: names outside ``TAG``, ``main`` (Iceberg's branch: a tag of
    that name would replace it and break every later write), Spark's ``branch_``/``tag_``
    prefixes, an all-digit name (a snapshot id) and a name that parses as a timestamp.
    """
    if not TAG.fullmatch(tag):
        return "use letters, digits, '.', '_' and '-' (at most 100; a letter or digit first)"
    lowered = tag.lower()
    if lowered in RESERVED:
        return f"{tag!r} is the name of every table's branch"
    if lowered.startswith(RESERVED_PREFIXES):
        return f"names starting with {' or '.join(RESERVED_PREFIXES)} are Spark's ref syntax"
    if SNAPSHOT_ID.fullmatch(tag):
        return "an all-digit version is read as a snapshot id"
    if parse_timestamp(tag) is not None:
        return "it is read as a timestamp"
    return None


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
    if SNAPSHOT_ID.fullmatch(text):
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
