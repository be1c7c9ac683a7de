"""Domain and URL block lists in the lakehouse (``meta.url_blocklists``), in UT1's format.

UT1 (Université Toulouse 1, the lists FineWeb's URL filter starts from) ships a folder per
category (``adult/``, ``gambling/``, ...), each with a ``domains`` file and a ``urls`` file of one
entry per line; ``blacklists.tar.gz`` holds them under ``blacklists/``. ``add`` reads such a
folder or archive (every category in it), or one file: ``domains`` and ``urls`` by their names,
any other with ``kind``. A do-not-train list is a list like any other, under its own name and
category. Adding a list under a name it already has replaces it, in one commit; the next build
applies it to every document (int_documents_url_filtered).
"""

from __future__ import annotations

import tarfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.ingest import named
from lakemix.tables import URL_BLOCKLISTS
from lakemix.udf.urls import normalized_host, url_key

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.catalog import Catalog

KINDS = {"domains": "domain", "urls": "url"}
_WHAT = "block list"
_BATCH = 500_000


class BlocklistError(LakemixError, ValueError):
    """A list that cannot be read as UT1's format, or a name no list has."""


@dataclass
class Added:
    """What ``add`` stored: entries per (category, kind), lines it could not read."""

    name: str
    entries: Counter[tuple[str, str]] = field(default_factory=Counter)
    unreadable: int = 0
    replaced: int = 0


def _schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            ("list_name", pa.string()),
            ("category", pa.string()),
            ("kind", pa.string()),
            ("value", pa.string()),
            ("added_at", pa.timestamp("us", tz="UTC")),
        ]
    )


def _value(kind: str, line: str) -> str | None:
    if kind == "domain":
        return normalized_host(line)
    return url_key(line)


def _lines(raw: Iterable[bytes]) -> Iterator[str]:
    for line in raw:
        text = line.decode("utf-8", "replace").strip()
        if text and not text.startswith("#"):
            yield text


def _files(
    path: Path, category: str | None, kind: str | None
) -> Iterator[tuple[str, str, Iterable[bytes]]]:
    """(category, kind, lines) of every list file under ``path``."""
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.name in KINDS)
        if not found:
            raise BlocklistError(f"{path}: no `domains` or `urls` file in it (UT1's format)")
        for file in found:
            own = category or (file.parent.name if file.parent != path else path.name)
            with file.open("rb") as lines:
                yield own, KINDS[file.name], lines
        return
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as archive:
            members = [m for m in archive if m.isfile() and m.name.rsplit("/", 1)[-1] in KINDS]
            if not members:
                raise BlocklistError(f"{path}: no `domains` or `urls` file in the archive")
            for member in members:
                parent = member.name.rsplit("/", 2)
                own = category or (parent[-2] if len(parent) > 1 else path.name.split(".")[0])
                extracted = archive.extractfile(member)
                assert extracted is not None  # a regular file
                yield own, KINDS[parent[-1]], extracted
        return
    if path.name in KINDS:
        file_kind = KINDS[path.name]
    elif kind is not None:
        file_kind = kind
    else:
        raise BlocklistError(
            f"{path}: say what it lists with --kind domain or --kind url (UT1 names its files "
            "`domains` and `urls`)"
        )
    own = category or (path.resolve().parent.name if path.name in KINDS else path.stem)
    with path.open("rb") as lines:
        yield own, file_kind, lines


def entries(
    path: Path, *, category: str | None = None, kind: str | None = None, added: Added
) -> Iterator[tuple[str, str, str]]:
    """(category, kind, value) of every readable entry under ``path``; ``added`` counts them."""
    if not path.exists():
        raise BlocklistError(f"{path}: no such file or folder")
    seen: set[tuple[str, str, str]] = set()
    for own, file_kind, raw in _files(path, category, kind):
        for line in _lines(raw):
            value = _value(file_kind, line)
            if value is None:
                added.unreadable += 1
                continue
            entry = (own, file_kind, value)
            if entry not in seen:
                seen.add(entry)
                added.entries[own, file_kind] += 1
                yield entry


def add(
    catalog: Catalog,
    name: str,
    path: Path,
    *,
    category: str | None = None,
    kind: str | None = None,
) -> Added:
    """Store the list at ``path`` under ``name``, replacing what was stored under it, in one
    commit.

    Raises:
        BlocklistError: ``path`` holds no list, a file's kind cannot be told, or it has no
            readable entry.
    """
    import pyarrow as pa

    named.check_name(name, _WHAT)
    if kind is not None and kind not in KINDS.values():
        raise BlocklistError(f"unknown kind {kind!r}: domain or url")
    added = Added(name)
    now = datetime.now(UTC)
    schema = _schema()
    batches = []
    rows: list[tuple[str, str, str]] = []
    for entry in entries(path, category=category, kind=kind, added=added):
        rows.append(entry)
        if len(rows) == _BATCH:
            batches.append(_batch(schema, name, rows, now))
            rows = []
    if rows:
        batches.append(_batch(schema, name, rows, now))
    if not batches:
        raise BlocklistError(f"{path}: no entry read ({added.unreadable} unreadable lines)")
    table = pa.Table.from_batches(batches, schema=schema)
    added.replaced = named.replace(catalog, URL_BLOCKLISTS, "list_name", name, table)
    return added


def _batch(
    schema: pa.Schema, name: str, rows: list[tuple[str, str, str]], now: datetime
) -> pa.RecordBatch:
    import pyarrow as pa

    categories, kinds, values = zip(*rows, strict=True)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([name] * len(rows), pa.string()),
            pa.array(categories, pa.string()),
            pa.array(kinds, pa.string()),
            pa.array(values, pa.string()),
            pa.array([now] * len(rows), pa.timestamp("us", tz="UTC")),
        ],
        schema=schema,
    )


@dataclass(frozen=True, order=True)
class Summary:
    """One (list, category, kind) of the stored lists."""

    name: str
    category: str
    kind: str
    entries: int
    added_at: datetime


def stored(catalog: Catalog) -> list[Summary]:
    """The stored lists, by name, category and kind; none before a first ``add``."""
    keys = ["list_name", "category", "kind"]
    return [
        Summary(r["list_name"], r["category"], r["kind"], r["rows"], r["added_at"])
        for r in named.summaries(catalog, URL_BLOCKLISTS, keys)
    ]


def remove(catalog: Catalog, name: str) -> int:
    """Delete the list stored under ``name``; returns its entries.

    Raises:
        NamedListError: no list has that name.
    """
    return named.remove(catalog, URL_BLOCKLISTS, "list_name", name, _WHAT)
