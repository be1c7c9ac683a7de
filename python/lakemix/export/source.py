"""The release an export reads: its manifest, checked to be still readable, split by split."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.tables import CLEAN_DOCUMENTS, mix_table
from lakemix.versions import ReleaseError, get_release
from lakemix.versions.gone import missing_data, rebuild_hint

if TYPE_CHECKING:
    from lakemix.settings import Settings
    from lakemix.versions.manifest import Manifest

SPLITS = ("train", "validation")


class ExportError(LakemixError, RuntimeError):
    """An export that cannot run as asked; the message names the value and the way out."""


class ReleaseGoneError(ExportError):
    """The release is recorded but its pinned data is gone (expired or deleted)."""


class ReleaseDamagedError(ReleaseGoneError):
    """A data file of a snapshot the release pins is gone while the snapshot is still in the
    table's metadata: not expired by ``lakemix gc`` (which drops the snapshot first), but deleted
    or moved by something else."""


def split_documents(manifest: Manifest, split: str) -> int:
    """Documents of ``split`` in the release (from its manifest's stats)."""
    return sum(s.documents for s in manifest.split_stats(split))


def pinned_tables(manifest: Manifest) -> dict[str, int]:
    """``{table: snapshot id}`` of what an export reads: the mix and the clean documents."""
    snapshots = manifest.snapshots
    return {
        name: snapshots[name].snapshot_id
        for name in (mix_table(manifest.mix), CLEAN_DOCUMENTS)
        if name in snapshots
    }


def _gone(manifest: Manifest, what: str) -> ReleaseGoneError:
    return ReleaseGoneError(
        f"release {manifest.tag} was garbage-collected: {what}. {rebuild_hint(manifest)}"
    )


def check_readable(manifest: Manifest, settings: Settings) -> None:
    """Raise unless every snapshot the export reads, and its data files, still exist.

    A snapshot gone from a table's metadata was expired (``lakemix gc``, once the release's tag
    was removed): the release is rebuilt. A file gone while its snapshot is still there was
    not expired: it is named, and ``lakemix verify --tag TAG`` finds every such file.

    Raises:
        ReleaseGoneError: A pinned table or snapshot is gone.
        ReleaseDamagedError: A data file of a pinned snapshot is gone.
    """
    tables = (mix_table(manifest.mix), CLEAN_DOCUMENTS)
    expired = missing_data(manifest, tables, settings, files=False)
    if expired is not None:
        raise _gone(manifest, expired)
    lost = missing_data(manifest, tables, settings)
    if lost is not None:
        raise ReleaseDamagedError(
            f"release {manifest.tag} cannot be read: {lost}, while the snapshot is still in the "
            "table's metadata (so `lakemix gc` did not expire it: the file was deleted or moved "
            f"by something else). `lakemix verify --tag {manifest.tag}` lists every file of the "
            "release that is lost or damaged and how to repair it"
        )


def open_release(tag: str, split: str, settings: Settings) -> Manifest:
    """The manifest of release ``tag``, checked for an export of ``split``.

    Raises:
        ExportError: Unknown tag (the known ones are listed), unknown or empty split.
        ReleaseGoneError: The release's data was garbage-collected (says how to rebuild it).
        ReleaseDamagedError: A file of the release was deleted by hand (names it).
    """
    if split not in SPLITS:
        raise ExportError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    try:
        manifest = get_release(tag, settings)
    except ReleaseError as exc:
        raise ExportError(f"{exc}; `lakemix versions` lists them") from None
    if split_documents(manifest, split) == 0:
        splits = sorted({s.split for s in manifest.stats})
        raise ExportError(
            f"release {tag} has no {split} documents (its splits: {', '.join(splits) or 'none'})"
        )
    check_readable(manifest, settings)
    return manifest
