"""The Iceberg catalog every part of lakemix shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.settings import Settings
from lakemix.storage import catalog_properties, check

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog

CATALOG_NAME = "lakemix"


class CatalogUnavailableError(LakemixError, RuntimeError):
    """The catalog named by ``LAKEMIX_CATALOG_URI`` cannot be opened."""


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
        return SqlCatalog(
            CATALOG_NAME,
            uri=settings.catalog_uri,
            warehouse=settings.warehouse,
            **catalog_properties(settings.s3),
        )
    except SQLAlchemyError as exc:
        raise CatalogUnavailableError(
            "cannot open the Iceberg catalog at "
            f"LAKEMIX_CATALOG_URI={settings.redacted_catalog_uri}: "
            f"{type(exc).__name__}. Check that the database is running and the URI is right."
        ) from None
