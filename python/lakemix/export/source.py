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

    Raises:
        ReleaseGoneError: A pinned table, snapshot or data file is gone.
    """
    tables = (mix_table(manifest.mix), CLEAN_DOCUMENTS)
    what = missing_data(manifest, tables, settings)
    if what is not None:
        raise _gone(manifest, what)


def open_release(tag: str, split: str, settings: Settings) -> Manifest:
    """The manifest of release ``tag``, checked for an export of ``split``.

    Raises:
        ExportError: Unknown tag (the known ones are listed), unknown or empty split.
        ReleaseGoneError: The release's data was garbage-collected (says how to rebuild it).
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
