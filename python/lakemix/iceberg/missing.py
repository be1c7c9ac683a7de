"""A lost or damaged table file as one line: the table, the file and ``lakemix verify``.

DuckDB (``iceberg_scan``), pyarrow and pyiceberg each fail in their own words when a file the
catalog references is gone or cut short (``IOException: Cannot open file``, ``No magic bytes
found``, ``FileNotFoundError``). ``missing_files`` turns any of them whose message names a file
below a table's folder into ``MissingTableFileError``, which the command line prints as one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from lakemix.errors import LakemixError

# <warehouse>/<namespace>[.db]/<table>/(data|metadata)/<file>: the tables' layout.
TABLE_FILE = re.compile(
    r"(?P<path>(?:[a-z0-9]+://)?[^\s\"']*?/(?P<ns>[\w-]+?)(?:\.db)?/(?P<table>[\w-]+)/"
    r"(?:data|metadata)/[^\s\"']+?\.(?:parquet|avro|metadata\.json))"
)


class MissingTableFileError(LakemixError, OSError):
    """A file a table references is missing or unreadable."""


def describe(exc: BaseException) -> MissingTableFileError | None:
    """The one-line error for ``exc`` if it is a table file that cannot be read, else None."""
    if not _is_io_error(exc):
        return None
    message = str(exc)
    found = TABLE_FILE.search(message)
    if found is None:
        return None
    table = f"{found['ns']}.{found['table']}"
    first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    missing = isinstance(exc, FileNotFoundError) or _says_missing(message)
    reason = "missing" if missing else "unreadable"
    path = _warehouse_uri(found["path"])
    return MissingTableFileError(
        f"{table}: a file of the table is {reason}: {path} ({first[:200]}); "
        "run `lakemix verify` to check every file and see how to repair it"
    )


def _warehouse_uri(path: str) -> str:
    """``s3://bucket/key`` for the URL DuckDB's iceberg_scan names an object by
    (``http://<endpoint>/bucket/key``, path style), so the line names the object as the catalog
    and ``lakemix verify`` do; any other path as it is."""
    from urllib.parse import urlsplit

    from lakemix.settings import Settings

    parts = urlsplit(path)
    if parts.scheme not in ("http", "https"):
        return path
    try:
        s3 = Settings.from_env().s3
    except LakemixError:
        return path
    if s3 is None or not s3.endpoint or parts.netloc != s3.endpoint_host:
        return path
    return "s3://" + parts.path.lstrip("/")


def _says_missing(message: str) -> bool:
    lowered = message.lower()
    return any(
        words in lowered
        for words in (
            "no such file",
            "does not exist",
            "not found",
            "no files found",
            "no_such_key",
        )
    )


def _is_io_error(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and not isinstance(exc, LakemixError):
        return True
    import duckdb
    import pyarrow as pa

    return isinstance(exc, duckdb.IOException | duckdb.InvalidInputException | pa.ArrowException)


@contextmanager
def missing_files() -> Iterator[None]:
    """Re-raise an unreadable table file met inside the block as ``MissingTableFileError``."""
    try:
        yield
    except Exception as exc:
        error = describe(exc)
        if error is None:
            raise
        raise error from exc
