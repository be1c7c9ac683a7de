"""Tables of named lists a user adds, replaces and removes whole: block lists
(``meta.url_blocklists``) and evaluation sets (``meta.benchmarks``). Each row holds its list's
name; adding a name again replaces its rows in one commit."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.catalog import Catalog

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class NamedListError(LakemixError, ValueError):
    """A name no list may have, or that no list has."""


def check_name(name: str, what: str) -> str:
    """``name`` when a list may be called so (letters, digits, ``_.-``: safe to quote).

    Raises:
        NamedListError: it may not.
    """
    if not _NAME.fullmatch(name):
        raise NamedListError(
            f"{what} name {name!r}: letters, digits, '_', '.' and '-' only, from a letter or digit"
        )
    return name


def _named(column: str, name: str) -> str:
    return f"{column} == '{name}'"


def count(catalog: Catalog, identifier: str, column: str, name: str) -> int:
    """Rows of the list ``name``; 0 before the table exists."""
    from pyiceberg.exceptions import NoSuchTableError

    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        return 0
    return table.scan(row_filter=_named(column, name), selected_fields=(column,)).count()


def replace(catalog: Catalog, identifier: str, column: str, name: str, rows: pa.Table) -> int:
    """Store ``rows`` as the list ``name`` (creating the table), in one commit; returns how
    many rows it replaced."""
    from lakemix.iceberg import commit_with_retry, ensure_table

    ensure_table(catalog, identifier, rows.schema)
    replaced = count(catalog, identifier, column, name)
    commit_with_retry(
        catalog,
        identifier,
        lambda t: t.overwrite(rows, overwrite_filter=_named(column, name)),
    )
    return replaced


def names(catalog: Catalog, identifier: str, column: str) -> list[str]:
    """The stored lists' names; none before the table exists."""
    from pyiceberg.exceptions import NoSuchTableError

    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        return []
    return sorted(set(table.scan(selected_fields=(column,)).to_arrow()[column].to_pylist()))


def summaries(catalog: Catalog, identifier: str, keys: list[str]) -> list[dict[str, Any]]:
    """Per distinct ``keys`` (the name first): its rows (``rows``) and when last added
    (``added_at``); none before the table exists."""
    from pyiceberg.exceptions import NoSuchTableError

    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        return []
    arrow = table.scan(selected_fields=(*keys, "added_at")).to_arrow()
    grouped = arrow.group_by(keys).aggregate([("added_at", "max"), ("added_at", "count")])
    return sorted(
        (
            {**{k: r[k] for k in keys}, "rows": r["added_at_count"], "added_at": r["added_at_max"]}
            for r in grouped.to_pylist()
        ),
        key=lambda r: tuple(r[k] for k in keys),
    )


def remove(catalog: Catalog, identifier: str, column: str, name: str, what: str) -> int:
    """Delete the list ``name``; returns its rows.

    Raises:
        NamedListError: no list has that name.
    """
    from lakemix.iceberg import commit_with_retry

    stored = names(catalog, identifier, column)
    if name not in stored:
        known = ", ".join(stored) or "none yet"
        raise NamedListError(f"no {what} named {name!r} (stored: {known})")
    rows = count(catalog, identifier, column, name)
    commit_with_retry(catalog, identifier, lambda t: t.delete(_named(column, name)))
    return rows
