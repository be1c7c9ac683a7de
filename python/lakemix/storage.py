"""Where the warehouse's files live: a local folder or an S3-compatible object store.

One abstraction for every reader and writer of warehouse files that is not pyiceberg or
DuckDB themselves: a ``pyarrow.fs`` file system made from the settings. pyiceberg gets the same
endpoint and credentials as FileIO properties (``catalog_properties``), DuckDB as an S3 secret
(``lakemix.duck.configure_storage``).

Credentials come from ``lakemix.settings.S3Settings`` and are never printed: error messages
name only the endpoint, the bucket and the variable to fix.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from lakemix.errors import LakemixError
from lakemix.settings import REMOTE_SCHEMES, S3Settings, StorageConfigError, is_remote

if TYPE_CHECKING:
    import pyarrow.fs as pafs

# Seconds before an unreachable endpoint is reported (pyarrow and pyiceberg retry on top).
CONNECT_TIMEOUT = 5.0


class StorageError(LakemixError, RuntimeError):
    """The warehouse's object store cannot be used (unreachable, refused, no such bucket)."""


def split_s3(location: str) -> tuple[str, str]:
    """``s3://bucket/a/b`` -> (``bucket``, ``a/b``)."""
    parts = urlsplit(location)
    return parts.netloc, parts.path.lstrip("/")


def catalog_properties(s3: S3Settings | None) -> dict[str, str]:
    """pyiceberg FileIO properties for the object store (empty for a local warehouse)."""
    if s3 is None:
        return {}
    properties = {
        "s3.region": s3.region,
        "s3.connect-timeout": str(CONNECT_TIMEOUT),
        "s3.force-virtual-addressing": "false",
    }
    if s3.endpoint:
        properties["s3.endpoint"] = s3.endpoint
    if s3.access_key_id:
        properties["s3.access-key-id"] = s3.access_key_id
        properties["s3.secret-access-key"] = s3.secret_access_key
    if s3.session_token:
        properties["s3.session-token"] = s3.session_token
    return properties


def filesystem(s3: S3Settings | None, location: str) -> tuple[pafs.FileSystem, str]:
    """The pyarrow file system holding ``location`` and the path it knows it by.

    ``file:///a/b`` and ``/a/b`` -> local ``/a/b``; ``s3://bucket/a/b`` -> S3 ``bucket/a/b``.

    Raises:
        StorageConfigError: An ``s3://`` location with no S3 settings, or another scheme.
    """
    import pyarrow.fs as pafs

    parts = urlsplit(location)
    if parts.scheme in ("", "file"):
        return pafs.LocalFileSystem(), unquote(parts.path) if parts.scheme else location
    if parts.scheme not in REMOTE_SCHEMES:
        raise StorageConfigError(
            f"unsupported storage location {location!r}: use a local path, file:// or s3://"
        )
    if s3 is None:
        raise StorageConfigError(f"{location} is on S3 but the warehouse is not: no S3 settings")
    bucket, key = split_s3(location)
    return _s3_filesystem(s3), f"{bucket}/{key}".rstrip("/")


@functools.lru_cache(maxsize=4)
def _s3_filesystem(s3: S3Settings) -> pafs.S3FileSystem:
    """One S3 client per set of settings (each holds a connection pool)."""
    import pyarrow.fs as pafs

    scheme = "http" if s3.endpoint.startswith("http://") else "https"
    return pafs.S3FileSystem(
        access_key=s3.access_key_id or None,
        secret_key=s3.secret_access_key or None,
        session_token=s3.session_token or None,
        region=s3.region,
        endpoint_override=s3.endpoint_host or None,
        scheme=scheme,
        force_virtual_addressing=False,
        connect_timeout=CONNECT_TIMEOUT,
        request_timeout=60.0,
        retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=3),
    )


def uri_of(location: str, path: str) -> str:
    """The URI of ``path`` (as a file system from ``filesystem(..., location)`` names it)."""
    scheme = urlsplit(location).scheme
    if scheme in REMOTE_SCHEMES:
        return f"{scheme}://{path}"
    return path


def explain(
    exc: BaseException, s3: S3Settings | None, location: str, what: str = "the warehouse"
) -> StorageError:
    """One line saying why the object store refused ``location`` (``what`` it is: the
    warehouse, an input) and what to check."""
    text = str(exc)
    where = f"{location} (endpoint {s3.endpoint or 'AWS'})" if s3 else location
    if s3 is not None and s3.secret_access_key:  # never echo a secret from a server's message
        text = text.replace(s3.secret_access_key, "***")
    lowered = text.lower()
    if (
        "nosuchbucket" in lowered
        or "no_such_bucket" in lowered
        or "bucket does not exist" in lowered
    ):
        bucket = split_s3(location)[0]
        fix = "fix LAKEMIX_WAREHOUSE" if what == "the warehouse" else "check the path"
        reason = f"the bucket {bucket!r} does not exist; create it or {fix}"
    elif any(
        word in lowered
        for word in ("access_denied", "accessdenied", "invalidaccesskeyid", "signature", "403")
    ):
        reason = (
            "the credentials were refused; check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY "
            "(or AWS_PROFILE)"
        )
    elif any(
        word in lowered
        for word in ("network", "connect", "resolve", "timed out", "timeout", "refused")
    ):
        reason = "the endpoint cannot be reached; check LAKEMIX_S3_ENDPOINT and that it is up"
    else:
        reason = text.splitlines()[0] if text else type(exc).__name__
    return StorageError(f"cannot use {what} {where}: {reason}")


def check(s3: S3Settings | None, warehouse: str) -> None:
    """Make sure an ``s3://`` warehouse's bucket can be listed with the credentials given.

    Raises:
        StorageError: Unreachable endpoint, refused credentials or missing bucket (one line).
    """
    if not is_remote(warehouse):
        return
    import pyarrow.fs as pafs

    fs, path = filesystem(s3, warehouse)
    bucket = path.split("/", 1)[0]
    try:
        info = fs.get_file_info(bucket)
        if info.type == pafs.FileType.NotFound:
            raise OSError("NoSuchBucket")
    except OSError as exc:
        raise explain(exc, s3, warehouse) from None
