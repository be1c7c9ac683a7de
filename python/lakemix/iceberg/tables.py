"""Create tables on first use and turn table locations into local paths."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table


def ensure_namespace(catalog: Catalog, namespace: str) -> None:
    """Create ``namespace`` unless it exists, also when another writer creates it meanwhile.

    pyiceberg's ``create_namespace_if_not_exists`` checks, then inserts: two dbt threads
    building the first two models of a schema both pass the check, and the SQL catalog
    answers the second insert with a unique-constraint error instead of
    ``NamespaceAlreadyExistsError``.
    """
    from sqlalchemy.exc import IntegrityError

    try:
        catalog.create_namespace_if_not_exists(namespace)
    except IntegrityError:
        if not catalog.namespace_exists(namespace):
            raise


def ensure_table(catalog: Catalog, identifier: str, schema: Schema) -> Table:
    """Load ``identifier``, creating its namespace and the table if they do not exist yet.

    A table created here has pyiceberg's replay of lost commits switched off (``NO_REPLAY``).
    """
    from pyiceberg.exceptions import NoSuchTableError, TableAlreadyExistsError

    ensure_namespace(catalog, identifier.rsplit(".", 1)[0])
    try:
        return catalog.load_table(identifier)
    except NoSuchTableError:
        pass
    from lakemix.iceberg.commit import NO_REPLAY

    try:
        return catalog.create_table(identifier, schema=schema, properties=NO_REPLAY)
    except TableAlreadyExistsError:  # created meanwhile by a concurrent writer
        return catalog.load_table(identifier)


def local_path(location: str) -> str:
    """``file:///a/b`` -> ``/a/b``; other paths are returned unchanged."""
    parts = urlsplit(location)
    if parts.scheme == "file":
        return unquote(parts.path)
    return location
