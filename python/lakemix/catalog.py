"""The Iceberg catalog every part of lakemix shares."""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from lakemix.errors import LakemixError
from lakemix.settings import Settings
from lakemix.storage import catalog_properties, check

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog

CATALOG_NAME = "lakemix"
# A namespace property naming another warehouse whose tables the namespace registers to read
# (never to write): a rebuild's scratch lakehouse reads the live raw tables in place.
READS_FROM = "lakemix.reads-from"
RELOCATE_HINT = (
    "the lakehouse was copied or moved: `lakemix relocate` points it at its own files "
    "(nothing is read or written outside it until then)"
)


_RECOVER = (
    "restore it from a backup of the lakehouse, or `lakemix recover-metadata {}` to go back to "
    "its newest metadata file that reads (`lakemix verify` checks every table)"
)


class CatalogUnavailableError(LakemixError, RuntimeError):
    """The catalog named by ``LAKEMIX_CATALOG_URI`` cannot be opened."""


class OutsideWarehouseError(LakemixError, RuntimeError):
    """The catalog points at files outside the lakehouse's own warehouse (a copied lakehouse)."""


class DamagedTableError(LakemixError, RuntimeError):
    """A table's current metadata file is missing or cannot be parsed."""


def _local(location: str) -> str:
    parts = urlsplit(location)
    return unquote(parts.path) if parts.scheme == "file" else location.rstrip("/")


def is_inside(location: str, root: str) -> bool:
    """Whether ``location`` (a file URI, a path or an ``s3://`` key) lies under ``root``."""
    path, base = _local(location), _local(root).rstrip("/")
    return path == base or path.startswith(base + "/")


def check_location(catalog: SqlCatalog, identifier: str, location: str) -> None:
    """Refuse ``location`` (where the catalog says ``identifier`` lives) when it is outside the
    lakehouse of ``catalog`` (for readers that take locations from the catalog's rows).

    Raises:
        OutsideWarehouseError: Where the catalog points, and the way out.
    """
    check = getattr(catalog, "check_location", None)
    if check is not None:
        check(identifier, location)


@functools.cache
def _lakehouse_catalog(base: type[SqlCatalog]) -> type[SqlCatalog]:
    class LakehouseCatalog(base):  # type: ignore[valid-type,misc]
        """The SQL catalog of one lakehouse: every table it loads must live in the lakehouse's
        warehouse (or in a warehouse a namespace declares it reads from), and a table whose
        metadata cannot be read is named with its file."""

        def __init__(self, name: str, **properties: Any) -> None:
            super().__init__(name, **properties)
            self._roots: list[str] | None = None

        def roots(self) -> list[str]:
            """The warehouse, then what namespaces declare they read from (read once)."""
            if self._roots is None:
                found = [str(self.properties["warehouse"])]
                for namespace in self.list_namespaces():
                    other = self.load_namespace_properties(namespace).get(READS_FROM)
                    if other:
                        found.append(other)
                self._roots = found
            return self._roots

        def check_location(self, identifier: str, location: str) -> None:
            """Refuse a table whose files are outside the lakehouse.

            Raises:
                OutsideWarehouseError: Where the catalog points, and the way out.
            """
            warehouse = str(self.properties["warehouse"])
            if is_inside(location, warehouse):
                return
            if any(is_inside(location, root) for root in self.roots()[1:]):
                return
            raise OutsideWarehouseError(
                f"{identifier}: the catalog points at {_local(location)}, outside this "
                f"lakehouse's warehouse {_local(warehouse)}; {RELOCATE_HINT}"
            )

        def _convert_orm_to_iceberg(self, orm_table: Any) -> Any:
            from pyiceberg.exceptions import ValidationError as IcebergValidationError

            identifier = f"{orm_table.table_namespace}.{orm_table.table_name}"
            location = orm_table.metadata_location
            if location:
                self.check_location(identifier, location)
            try:
                table = super()._convert_orm_to_iceberg(orm_table)
            except FileNotFoundError:
                raise DamagedTableError(
                    f"{identifier}: its metadata file {_local(location)} is missing; "
                    f"{_RECOVER.format(identifier)}"
                ) from None
            except (ValueError, OSError, IcebergValidationError) as exc:
                reason = str(exc).strip().splitlines()[0][:160]
                raise DamagedTableError(
                    f"{identifier}: its metadata file {_local(location)} cannot be read "
                    f"({type(exc).__name__}: {reason}); {_RECOVER.format(identifier)}"
                ) from None
            self.check_location(identifier, table.metadata.location)
            return table

    return LakehouseCatalog


def catalog(settings: Settings | None = None) -> SqlCatalog:
    """Open the configured pyiceberg SQL catalog (SQLite by default, PostgreSQL by URI).

    Args:
        settings: Where the lakehouse lives; read from the environment when omitted.

    Returns:
        The catalog, with its tables created on first use.

    An ``s3://`` warehouse is checked first (its bucket listed once), so a wrong endpoint,
    refused credentials or a missing bucket is one line here, not a failure deep in a write.

    Raises:
        CatalogUnavailableError: The catalog database cannot be reached; the message names
            ``LAKEMIX_CATALOG_URI`` (with the password hidden).
        lakemix.storage.StorageError: The warehouse's object store cannot be used.
    """
    from pyiceberg.catalog.sql import SqlCatalog
    from sqlalchemy.exc import SQLAlchemyError

    settings = settings or Settings.from_env()
    if settings.catalog_uri.startswith("sqlite:"):
        settings.home.mkdir(parents=True, exist_ok=True)
    check(settings.s3, settings.warehouse)
    try:
        for attempt in range(3):
            try:
                return _lakehouse_catalog(SqlCatalog)(
                    CATALOG_NAME,
                    uri=settings.catalog_uri,
                    warehouse=settings.warehouse,
                    **catalog_properties(settings.s3),
                )
            except SQLAlchemyError as exc:
                # Two processes creating a new catalog's tables at once: the loser's CREATE
                # finds them made. They exist now, so opening again succeeds.
                if "already exists" not in str(exc) or attempt == 2:
                    raise
                time.sleep(0.1 * (attempt + 1))
        raise AssertionError("unreachable")
    except ImportError as exc:  # the URI names a database driver that is not installed
        raise CatalogUnavailableError(
            f"cannot open the Iceberg catalog at LAKEMIX_CATALOG_URI="
            f"{settings.redacted_catalog_uri}: its database driver is not installed "
            f"({exc.name or exc}); PostgreSQL URIs use postgresql+psycopg2:// (installed with "
            "lakemix)"
        ) from None
    except SQLAlchemyError as exc:
        raise CatalogUnavailableError(
            "cannot open the Iceberg catalog at "
            f"LAKEMIX_CATALOG_URI={settings.redacted_catalog_uri}: "
            f"{type(exc).__name__}. Check that the database is running and the URI is right."
        ) from None
