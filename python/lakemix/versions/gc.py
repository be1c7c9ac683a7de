"""``lakemix gc``: expire snapshots no release needs and delete files nothing references."""

from __future__ import annotations

import functools
import shutil
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakemix.catalog import catalog as open_catalog
from lakemix.iceberg import commit_with_retry, local_path
from lakemix.settings import Settings
from lakemix.storage import filesystem, uri_of
from lakemix.tables import RAW
from lakemix.versions.refs import ghost_tags
from lakemix.versions.release import list_releases, releases_directory

if TYPE_CHECKING:
    from pyiceberg.table import Table

# raw tables keep every snapshot: their summaries are the ingest ledger (what was ingested
# when), which idempotent ingest and row lineage read. Expiring them would free almost nothing
# anyway, as raw is append-only and later snapshots share the files.
KEEP_HISTORY = (RAW,)


@dataclass
class GcResult:
    """What ``gc`` removed."""

    expired_snapshots: int = 0
    deleted_files: int = 0
    deleted_bytes: int = 0
    removed_tags: int = 0


def _expire(table: Table) -> int:
    """Expire every snapshot that is neither the current one nor tagged; returns how many."""

    def attempt(table: Table) -> int:
        protected = {ref.snapshot_id for ref in table.metadata.refs.values()}
        doomed = [s.snapshot_id for s in table.metadata.snapshots if s.snapshot_id not in protected]
        if doomed:
            table.maintenance.expire_snapshots().by_ids(doomed).commit()
        return len(doomed)

    return commit_with_retry(table.catalog, ".".join(table.name()[-2:]), attempt)


def _referenced(table: Table) -> set[str]:
    """Local paths of every file a live snapshot of ``table`` reads, and its current metadata."""
    io = table.io
    paths = {local_path(table.metadata_location)}
    for snapshot in table.metadata.snapshots:
        paths.add(local_path(snapshot.manifest_list))
        for manifest in snapshot.manifests(io):
            path = local_path(manifest.manifest_path)
            if path in paths:  # snapshots share manifests: read each one once
                continue
            paths.add(path)
            for entry in manifest.fetch_manifest_entry(io, discard_deleted=False):
                paths.add(local_path(entry.data_file.file_path))
    return paths


def _sweep(
    location: str, keep: set[str], cutoff: float, settings: Settings, result: GcResult
) -> None:
    """Delete every file under the table's ``location`` (a folder or an object-store prefix)
    that ``keep`` lacks and that is older than ``cutoff``: what killed builds and ingests wrote
    and never committed (on an object store, where they were written at their final keys), and
    what expired snapshots alone read."""
    import pyarrow.fs as pafs

    fs, root = filesystem(settings.s3, location)
    selector = pafs.FileSelector(root, recursive=True, allow_not_found=True)
    for info in fs.get_file_info(selector):
        if info.type != pafs.FileType.File or local_path(uri_of(location, info.path)) in keep:
            continue
        if info.mtime is not None and info.mtime.timestamp() < cutoff:
            result.deleted_bytes += info.size or 0
            fs.delete_file(info.path)
            result.deleted_files += 1


def _remove_tag(table: Table, tag: str) -> None:
    table.manage_snapshots().remove_tag(tag).commit()


def gc(*, grace_seconds: float = 3600, settings: Settings | None = None) -> GcResult:
    """Expire unreleased snapshots and delete unreferenced files older than the grace period.

    Tags that no committed release owns (a release killed part-way) are removed first.
    Snapshots that a release tag (or a table's current state) points at survive, and so do
    all snapshots of raw tables (their ingest ledger). Files younger than ``grace_seconds``
    are left alone: a running build or ingest may be about to commit them.
    """
    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    result = GcResult()
    cutoff = time.time() - grace_seconds
    # Tags of releases that died part-way (no manifest row): gc runs under the writer lock, so
    # no release is tagging right now. Removed first, so their snapshots expire below.
    for tag, names in ghost_tags(catalog).items():
        for name in names:
            commit_with_retry(catalog, name, functools.partial(_remove_tag, tag=tag))
            result.removed_tags += 1
    for namespace in catalog.list_namespaces():
        for ident in catalog.list_tables(namespace):
            table = catalog.load_table(ident)
            if ident[-2] not in KEEP_HISTORY and table.current_snapshot() is not None:
                result.expired_snapshots += _expire(table)
                table = catalog.load_table(ident)
            _sweep(table.location(), _referenced(table), cutoff, settings, result)
    released = {m.tag for m in list_releases(settings)}
    releases = releases_directory(settings)
    if releases.is_dir():  # JSON copies of releases killed before their manifest row committed
        for path in releases.iterdir():
            tag = path.name.split(".json")[0]
            if tag not in released and path.stat().st_mtime < cutoff:
                result.deleted_bytes += path.stat().st_size
                path.unlink()
                result.deleted_files += 1
    spills = settings.duckdb_temp_directory
    if spills.is_dir():  # the spill folders of DuckDB sessions of processes gone since
        for folder in spills.glob("session-*"):
            if folder.is_dir() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
    staging = settings.home / "staging"
    if staging.is_dir():  # what killed dbt runs staged and never committed
        for leftover in staging.iterdir():
            if leftover.stat().st_mtime < cutoff:
                size = sum(f.stat().st_size for f in leftover.rglob("*") if f.is_file())
                shutil.rmtree(leftover, ignore_errors=True)
                result.deleted_files += 1
                result.deleted_bytes += size
    return result
