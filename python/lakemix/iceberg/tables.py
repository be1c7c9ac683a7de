"""Create tables on first use and turn table locations into local paths."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table


def ensure_table(catalog: Catalog, identifier: str, schema: Schema) -> Table:
    """Load ``identifier``, creating its namespace and the table if they do not exist yet."""
    from pyiceberg.exceptions import NoSuchTableError, TableAlreadyExistsError

    namespace = identifier.rsplit(".", 1)[0]
    catalog.create_namespace_if_not_exists(namespace)
    try:
        return catalog.load_table(identifier)
    except NoSuchTableError:
        pass
    try:
        return catalog.create_table(identifier, schema=schema)
    except TableAlreadyExistsError:  # created meanwhile by a concurrent writer
        return catalog.load_table(identifier)


def local_path(location: str) -> str:
    """``file:///a/b`` -> ``/a/b``; other paths are returned unchanged."""
    parts = urlsplit(location)
    if parts.scheme == "file":
        return unquote(parts.path)
    return location
