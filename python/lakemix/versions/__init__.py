"""Released, reproducible dataset versions: tags, manifests, time travel, diff and rebuild."""

from __future__ import annotations

from lakemix.versions.manifest import Manifest, ManifestError, parse_manifest
from lakemix.versions.refs import VersionError, connect_at, scan_at, snapshot_at
from lakemix.versions.release import ReleaseError, get_release, list_releases, release

__all__ = [
    "Manifest",
    "ManifestError",
    "ReleaseError",
    "VersionError",
    "connect_at",
    "get_release",
    "list_releases",
    "parse_manifest",
    "release",
    "scan_at",
    "snapshot_at",
]
