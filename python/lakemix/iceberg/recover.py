"""A table whose current metadata file is lost or damaged, pointed back at the newest one that
reads.

Every Iceberg commit writes a whole new metadata file (``NNNNN-<uuid>.metadata.json``) and
leaves the older ones in the table's ``metadata`` folder. When the current one is missing, cut
short or overwritten, the table as of its previous commits is still there: the newest older file
that parses is that state, and the catalog row can move to it by compare-and-swap. What the lost
commits added is no longer part of the table (a model is rebuilt; a raw table's ingest ledger
forgets those ingests, so their files can be ingested again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.iceberg.relocate import swap_metadata
from lakemix.storage import filesystem

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog

    from lakemix.settings import S3Settings


class RecoverError(LakemixError, RuntimeError):
    """No older metadata file of the table reads (or the table's current one does)."""


@dataclass(frozen=True)
class Recovered:
    """The metadata file the table pointed at, the one it points at now, and how many commits
    lie between them (lost)."""

    damaged: str
    restored: str
    lost_commits: int


def _version(location: str) -> int:
    head = location.rsplit("/", 1)[-1].split("-", 1)[0]
    return int(head) if head.isdigit() else -1


def _reads(catalog: SqlCatalog, location: str) -> bool:
    from pyiceberg.io import load_file_io
    from pyiceberg.serializers import FromInputFile

    try:
        io = load_file_io(properties=catalog.properties, location=location)
        FromInputFile.table_metadata(io.new_input(location))
    except Exception:
        return False
    return True


def recover_table(
    catalog: SqlCatalog, identifier: str, current: str, s3: S3Settings | None
) -> Recovered:
    """Point ``identifier`` (whose catalog row names ``current``) at the newest older metadata
    file of its folder that reads.

    Raises:
        RecoverError: The current file reads (nothing to recover), or no older one does.
    """
    import pyarrow.fs as pafs

    if _reads(catalog, current):
        raise RecoverError(f"{identifier}: its metadata file {current} reads: nothing to recover")
    folder = current.rsplit("/", 1)[0]
    fs, root = filesystem(s3, folder)
    listed = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
    candidates = sorted(
        (
            f"{folder}/{info.base_name}"  # named as the current one is (file:// or s3://)
            for info in listed
            if info.type == pafs.FileType.File and info.path.endswith(".metadata.json")
        ),
        key=_version,
        reverse=True,
    )
    for location in candidates:
        if _version(location) < _version(current) and _reads(catalog, location):
            swap_metadata(catalog, identifier, current, location)
            return Recovered(current, location, _version(current) - _version(location))
    raise RecoverError(
        f"{identifier}: no older metadata file in {folder} reads: restore the table's folder "
        "from a backup of the lakehouse"
    )
