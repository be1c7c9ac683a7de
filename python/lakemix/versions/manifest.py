"""The release manifest: the typed contract between ``lakemix release`` and its readers.

A release writes its manifest as JSON (a row of ``meta.releases`` and
``<home>/releases/<tag>.json``); the loader, lineage, export and tracking read it. They read it
through :class:`Manifest`, parsed once, so a missing or mistyped key fails where the manifest
is read, naming the key and where the manifest came from, not as a ``KeyError`` deep inside a
reader. The JSON document itself is kept as it was read (``document``) and written back
unchanged: the on-disk format does not depend on this class, and keys it does not model (from
a newer lakemix) are not lost.

Keys a release has written from the start are required (``tag``, ``mix``, ``released_at``,
``checksum``, ``snapshots``); those added later default when an older release lacks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lakemix.errors import LakemixError
from lakemix.tables import RELEASES


class ManifestError(LakemixError, ValueError):
    """A release manifest that is not what a release writes (malformed, or not a manifest)."""


@dataclass(frozen=True)
class PinnedTable:
    """One table's snapshot in a release (tagged with the release's tag)."""

    snapshot_id: int
    metadata_location: str
    dbt_invocation_id: str | None = None


@dataclass(frozen=True)
class SplitStats:
    """Documents, samples (documents times repeats) and tokens of one language in one split."""

    language: str
    split: str
    documents: int
    samples: int
    tokens: int


@dataclass(frozen=True)
class GitState:
    """The project checkout a release was made from."""

    commit: str = ""
    dirty: bool = False


@dataclass(frozen=True)
class Manifest:
    """A release: what it pins, how it was built, and what it holds."""

    tag: str
    mix: str
    released_at: str  # ISO 8601 with the UTC offset, as written
    checksum: str
    snapshots: Mapping[str, PinnedTable]
    git: GitState = GitState()
    dbt_invocation_id: str | None = None
    vars: Mapping[str, Any] = field(default_factory=dict)
    config_hash: str = ""
    config_files: Mapping[str, str] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=dict)
    stats: tuple[SplitStats, ...] = ()
    objectives: Mapping[str, Any] = field(default_factory=dict)
    quality_model: Mapping[str, Any] = field(default_factory=dict)
    document: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def tokenizer(self) -> str | None:
        """The tokenizer var the release's mix counted tokens with, if it recorded one."""
        value = self.vars.get("lakemix_tokenizer")
        return str(value) if value else None

    def pinned(self, table: str) -> PinnedTable:
        """The pinned snapshot of ``table`` (``schema.table``).

        Raises:
            ManifestError: The release pins no snapshot of that table.
        """
        try:
            return self.snapshots[table]
        except KeyError:
            raise ManifestError(
                f"release {self.tag} pins no snapshot of {table} (it pins: "
                f"{', '.join(sorted(self.snapshots)) or 'nothing'})"
            ) from None

    def split_stats(self, split: str) -> list[SplitStats]:
        """The rows of ``stats`` of one split."""
        return [row for row in self.stats if row.split == split]

    def to_json(self) -> dict[str, Any]:
        """The JSON document, as written by the release (a copy)."""
        return dict(self.document)


def parse_manifest(document: Any, source: str) -> Manifest:
    """The manifest in ``document`` (parsed JSON), read from ``source`` (named in errors).

    Raises:
        ManifestError: A required key is missing, or a key has the wrong type; the message names
            the key and ``source``.
    """
    if not isinstance(document, Mapping):
        raise ManifestError(
            f"{source}: a release manifest is a JSON object, got {type(document).__name__}"
        )
    reader = _Reader(document, source)
    snapshots = {
        str(name): PinnedTable(
            snapshot_id=reader.integer(entry, "snapshot_id", where),
            metadata_location=reader.text(entry, "metadata_location", where),
            dbt_invocation_id=reader.optional_text(entry, "dbt_invocation_id", where),
        )
        for name, entry in reader.mapping(document, "snapshots").items()
        for where in [f"snapshots[{name}]"]
    }

    git = reader.mapping(document, "git", required=False)
    stats = tuple(
        SplitStats(
            language=reader.text(row, "language", f"stats[{i}]"),
            split=reader.text(row, "split", f"stats[{i}]"),
            documents=reader.integer(row, "documents", f"stats[{i}]"),
            samples=reader.integer(row, "samples", f"stats[{i}]"),
            tokens=reader.integer(row, "tokens", f"stats[{i}]"),
        )
        for i, row in enumerate(reader.sequence(document, "stats"))
    )
    return Manifest(
        tag=reader.text(document, "tag"),
        mix=reader.text(document, "mix"),
        released_at=reader.text(document, "released_at"),
        checksum=reader.text(document, "checksum"),
        snapshots=snapshots,
        git=GitState(
            commit=str(git.get("commit") or ""),
            dirty=bool(git.get("dirty", False)),
        ),
        dbt_invocation_id=reader.optional_text(document, "dbt_invocation_id"),
        vars=reader.mapping(document, "vars", required=False),
        config_hash=reader.optional_text(document, "config_hash") or "",
        config_files={
            str(k): str(v) for k, v in reader.mapping(document, "config_files", False).items()
        },
        versions={str(k): str(v) for k, v in reader.mapping(document, "versions", False).items()},
        stats=stats,
        objectives=reader.mapping(document, "objectives", required=False),
        quality_model=reader.mapping(document, "quality_model", required=False),
        document=document,
    )


@dataclass(frozen=True)
class _Reader:
    """Typed access to the keys of one manifest, with errors that name the key and source."""

    document: Mapping[str, Any]
    source: str

    def _fail(self, where: str, key: str, problem: str) -> ManifestError:
        path = f"{where}.{key}" if where else key
        tag = self.document.get("tag")
        of = f" of release {tag}" if isinstance(tag, str) else ""
        return ManifestError(
            f"{self.source}: the manifest{of} {problem.format(path=repr(path))}; it was not "
            f"written by `lakemix release` (or was edited): restore it from {RELEASES} or "
            "release the mix again under a new tag"
        )

    def _wrong(self, where: str, key: str, value: Any, expected: str) -> ManifestError:
        return self._fail(where, key, f"has {{path}} as {type(value).__name__}, not {expected}")

    def _get(self, node: Any, key: str, where: str, required: bool) -> Any:
        if not isinstance(node, Mapping):
            raise self._fail(where, key, "has no object holding {path}")
        if key not in node or node[key] is None:
            if required:
                raise self._fail(where, key, "has no {path}")
            return None
        return node[key]

    def text(self, node: Any, key: str, where: str = "") -> str:
        value = self._get(node, key, where, required=True)
        if not isinstance(value, str):
            raise self._wrong(where, key, value, "a string")
        return value

    def optional_text(self, node: Any, key: str, where: str = "") -> str | None:
        value = self._get(node, key, where, required=False)
        if value is not None and not isinstance(value, str):
            raise self._wrong(where, key, value, "a string")
        return value

    def integer(self, node: Any, key: str, where: str = "") -> int:
        value = self._get(node, key, where, required=True)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(where, key, value, "an integer")
        return int(value)

    def mapping(self, node: Any, key: str, required: bool = True) -> Mapping[str, Any]:
        value = self._get(node, key, "", required)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self._wrong("", key, value, "an object")
        return value

    def sequence(self, node: Any, key: str) -> list[Any]:
        value = self._get(node, key, "", required=False)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong("", key, value, "a list")
        return value
