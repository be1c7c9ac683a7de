"""``export.json``: the manifest beside an export's files, written after every finished shard.

It names the release (tag, mix, checksum), the split, the format and its settings, and each
finished shard (its files with their bytes and SHA-256, its documents and tokens, and where the
next shard starts). A shard is written under a temporary name, synced, renamed, and only then
recorded: a killed export resumes after the last recorded shard and never rewrites it; files
of a shard that was not recorded yet are removed and written again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from lakemix.export.source import ExportError

MANIFEST = "export.json"
CARD = "README.md"
FORMAT_VERSION = 1
PARTIAL = ".partial"
# What must match for an export to resume in a folder that holds one.
IDENTITY = ("release", "split", "format", "settings")


def shard_stem(split: str, index: int) -> str:
    """``train-00000``: the file name of shard ``index`` of ``split`` without its extension."""
    return f"{split}-{index:05d}"


def file_digest(path: Path) -> dict[str, Any]:
    """``{"bytes": n, "sha256": hex}`` of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}


def publish(partial: Path, final: Path) -> dict[str, Any]:
    """Sync ``partial``, rename it to ``final`` and return its digest."""
    with partial.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, final)
    return file_digest(final)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    partial = path.with_name(path.name + PARTIAL)
    partial.write_bytes(data)
    publish(partial, path)


@dataclass
class Journal:
    """The manifest of an export in ``out``, being written.

    Attributes:
        out: The export folder.
        header: Release, split, format and settings (what a resume must match).
        shards: The finished shards, in order.
        complete: Every document is written.
    """

    out: Path
    header: dict[str, Any]
    shards: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    @classmethod
    def open(cls, out: Path, header: dict[str, Any]) -> Journal:
        """Start an export in ``out``, or resume the one there.

        Raises:
            ExportError: ``out`` is a file, holds files but no export, holds an export of
                another release, split, format or settings, or a recorded shard was changed.
        """
        if out.exists() and not out.is_dir():
            raise ExportError(f"{out} is a file; give a folder to export into")
        path = out / MANIFEST
        if not path.is_file():
            if out.is_dir() and any(out.iterdir()):
                raise ExportError(
                    f"{out} is not empty and holds no lakemix export ({MANIFEST}); "
                    "export into a new or empty folder"
                )
            out.mkdir(parents=True, exist_ok=True)
            journal = cls(out, header)
            journal.save()
            return journal
        try:
            found = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ExportError(f"{path} is not an export manifest ({exc}); delete {out}") from None
        for key in IDENTITY:
            if found.get(key) != header[key]:
                raise ExportError(
                    f"{out} holds another export ({describe(found)}), not {describe(header)}: "
                    f"its {key} differs; export into a new or empty folder, or delete {out}"
                )
        journal = cls(out, header, found["shards"], bool(found["complete"]), found["started_at"])
        journal._check_and_clean()
        return journal

    def _check_and_clean(self) -> None:
        """Check that recorded shards are intact (by size); remove unrecorded shard files."""
        recorded = {MANIFEST, CARD}
        for shard in self.shards:
            for name, entry in shard["files"].items():
                path = self.out / name
                if not path.is_file() or path.stat().st_size != entry["bytes"]:
                    raise ExportError(
                        f"{path}, a finished shard of this export, was changed or removed; "
                        f"delete {self.out} and export again"
                    )
                recorded.add(name)
        ours = re.compile(rf"{re.escape(self.header['split'])}-\d{{5}}\..*")
        for path in self.out.iterdir():
            if path.name in recorded:
                continue
            if path.name.endswith(PARTIAL) or ours.fullmatch(path.name):
                path.unlink()  # written by a killed run before its shard was recorded

    @property
    def resume_at(self) -> dict[str, Any] | None:
        """Where the next shard starts (the last finished shard's ``next``), None at the start."""
        return self.shards[-1]["next"] if self.shards else None

    def record(self, shard: dict[str, Any]) -> None:
        """Record a finished shard (its files published already)."""
        self.shards.append(shard)
        self.save()

    def finish(self) -> None:
        """Mark the export complete."""
        self.complete = True
        self.save()

    def totals(self) -> dict[str, int]:
        """Sums over the finished shards of their counts (documents, tokens, ...)."""
        sums: dict[str, int] = {}
        for shard in self.shards:
            for key, value in shard["counts"].items():
                sums[key] = sums.get(key, 0) + int(value)
        return sums

    def as_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            **self.header,
            "lakemix_version": importlib.metadata.version("lakemix"),
            "started_at": self.started_at,
            "complete": self.complete,
            "totals": self.totals(),
            "shards": self.shards,
        }

    def save(self) -> None:
        write_atomically(
            self.out / MANIFEST, orjson.dumps(self.as_dict(), option=orjson.OPT_INDENT_2)
        )


def describe(header: dict[str, Any]) -> str:
    """``release v1 (checksum ...), split train, format parquet``."""
    release = header.get("release") or {}
    return (
        f"release {release.get('tag')} (checksum {release.get('checksum')}), split "
        f"{header.get('split')}, format {header.get('format')} {header.get('settings')}"
    )
