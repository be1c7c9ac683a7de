"""Whether a release can still be read: its tables, pinned snapshots and data files exist.

A release's manifest stays in ``meta.releases``, but its data can go: a tag removed and
``lakemix gc`` run expires the snapshots it pinned and deletes their files. Everything that
reads a release later (an export, the lineage of a training run, ``lakemix compare``) asks here
first and says how to get it back: ``lakemix rebuild`` re-materializes it from its raw snapshot
and recorded config.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lakemix.catalog import catalog as open_catalog
from lakemix.storage import filesystem

if TYPE_CHECKING:
    from lakemix.settings import Settings
    from lakemix.versions.manifest import Manifest


def rebuild_hint(manifest: Manifest) -> str:
    """How to get a garbage-collected release back."""
    tag = manifest.tag
    return (
        f"Its raw snapshot and config are recorded, so it can be rebuilt: `lakemix rebuild "
        f"{tag} --keep` re-materializes it from them in lakehouse/rebuilds/{tag}-* and checks "
        f"its checksum ({manifest.checksum})"
    )


def missing_data(
    manifest: Manifest, tables: Iterable[str], settings: Settings, *, files: bool = True
) -> str | None:
    """What of release ``manifest`` is gone among ``tables``, or None when all can be read.

    Args:
        manifest: The release manifest.
        tables: The tables to check (each must be pinned by the manifest).
        settings: The lakehouse.
        files: Check every data file (and delete file) of the pinned snapshots too (on local
            disk or in the object store), not only the snapshots.
    """
    import pyarrow.fs as pafs
    from pyiceberg.exceptions import NoSuchTableError

    catalog = open_catalog(settings)
    snapshots = manifest.snapshots
    for name in tables:
        if name not in snapshots:
            return f"its manifest pins no snapshot of {name}"
        snapshot_id = snapshots[name].snapshot_id
        try:
            table = catalog.load_table(name)
        except NoSuchTableError:
            return f"table {name} was dropped"
        if table.snapshot_by_id(snapshot_id) is None:
            return f"{name} no longer has its snapshot {snapshot_id}"
        if not files:
            continue
        for task in table.scan(snapshot_id=snapshot_id).plan_files():
            for uri in (task.file.file_path, *(d.file_path for d in task.delete_files)):
                fs, path = filesystem(settings.s3, uri)
                if fs.get_file_info(path).type != pafs.FileType.File:
                    return f"{name} at snapshot {snapshot_id} lost its file {path}"
    return None
