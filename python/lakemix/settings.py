"""Where the lakehouse lives: every path and secret comes from the environment."""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from lakemix.errors import LakemixError

DEFAULT_HOME = "lakehouse"
DEFAULT_REGION = "us-east-1"
REMOTE_SCHEMES = ("s3", "s3a")


class StorageConfigError(LakemixError, ValueError):
    """``LAKEMIX_WAREHOUSE`` or its S3 settings are malformed."""


def is_remote(location: str) -> bool:
    """Whether ``location`` names an object in an object store (``s3://``)."""
    return urlsplit(location).scheme in REMOTE_SCHEMES


def project_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``dbt_project.yml``."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dbt_project.yml").is_file():
            return candidate
    return None


def target_path(root: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """dbt's target folder: ``DBT_TARGET_PATH`` of ``env`` (default: this process's
    environment), relative to the project root, else target/."""
    root = root or project_root() or Path.cwd()
    return root / (os.environ if env is None else env).get("DBT_TARGET_PATH", "target")


# Query parameters of a database URI that carry a secret (libpq's and SQLAlchemy's names).
_SECRET_PARAMETER = re.compile(
    r"(?i)(^|[?&;])((?:password|passwd|pwd|secret|token|sslpassword|access_key|secret_key)=)"
    r"[^&;#]*"
)
DEFAULT_MEMORY_LIMIT = "2GB"
DEFAULT_DUCKDB_THREADS = 2
_MEMORY = re.compile(r"(?i)\s*\d+(\.\d+)?\s*(b|kb|mb|gb|tb|kib|mib|gib|tib|%)?\s*")


def redact_uri(uri: str) -> str:
    """Return ``uri`` with any password replaced by ``***`` (safe to print or log): the one in
    ``user:password@`` and any in the query (``?password=...``, ``sslpassword``, tokens)."""
    parts = urlsplit(uri)
    if parts.password is not None:
        user = parts.username or ""
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        uri = urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))
    head, mark, query = uri.partition("?")
    return head + mark + _SECRET_PARAMETER.sub(r"\1\2***", query) if mark else uri


@dataclass(frozen=True)
class S3Settings:
    """How to reach the object store of an ``s3://`` warehouse.

    Credentials come from the usual AWS variables (``AWS_ACCESS_KEY_ID``,
    ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``), else from a profile (``AWS_PROFILE``,
    default ``default``, in ``~/.aws/credentials`` and ``~/.aws/config``). They never appear in
    ``repr`` or in a message.

    Attributes:
        endpoint: ``LAKEMIX_S3_ENDPOINT`` (``http://host:port`` of an S3-compatible server);
            empty for AWS itself. A custom endpoint is addressed path-style.
        region: ``AWS_REGION``, ``AWS_DEFAULT_REGION``, the profile's region, else us-east-1.
        access_key_id: From the AWS variables or the profile; hidden from ``repr``.
        secret_access_key: Likewise; never printed.
        session_token: Likewise, when the credentials are temporary.
    """

    endpoint: str
    region: str
    access_key_id: str = field(default="", repr=False)
    secret_access_key: str = field(default="", repr=False)
    session_token: str = field(default="", repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> S3Settings:
        """Read the endpoint, region and credentials from ``env`` (and the AWS profile)."""
        endpoint = env.get("LAKEMIX_S3_ENDPOINT", "").rstrip("/")
        if endpoint and urlsplit(endpoint).scheme not in ("http", "https"):
            raise StorageConfigError(
                f"LAKEMIX_S3_ENDPOINT must be an http:// or https:// URL, got {endpoint!r}"
            )
        profile = _profile(env)
        key = env.get("AWS_ACCESS_KEY_ID") or profile.get("aws_access_key_id", "")
        secret = env.get("AWS_SECRET_ACCESS_KEY") or profile.get("aws_secret_access_key", "")
        token = env.get("AWS_SESSION_TOKEN") or profile.get("aws_session_token", "")
        if env.get("AWS_ACCESS_KEY_ID"):  # never mix the variables' key with a profile's token
            token = env.get("AWS_SESSION_TOKEN", "")
        region = (
            env.get("AWS_REGION")
            or env.get("AWS_DEFAULT_REGION")
            or profile.get("region")
            or DEFAULT_REGION
        )
        return cls(endpoint, region, key, secret, token)

    @property
    def endpoint_host(self) -> str:
        """``host:port`` of the endpoint (DuckDB's ENDPOINT), empty for AWS."""
        return urlsplit(self.endpoint).netloc

    @property
    def use_ssl(self) -> bool:
        """Whether requests go over TLS (always, unless the endpoint says http://)."""
        return not self.endpoint.startswith("http://")


def _profile(env: Mapping[str, str]) -> dict[str, str]:
    """The ``AWS_PROFILE`` section of the shared credentials file, merged over its config."""
    name = env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    home = Path(env.get("HOME") or Path.home())
    values: dict[str, str] = {}
    config = Path(env.get("AWS_CONFIG_FILE") or home / ".aws" / "config")
    credentials = Path(env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials")
    for path, section in (
        (config, name if name == "default" else f"profile {name}"),
        (credentials, name),
    ):
        parser = configparser.ConfigParser()
        try:
            parser.read(path)
        except configparser.Error:
            raise StorageConfigError(f"cannot parse the AWS file {path}") from None
        if parser.has_section(section):
            values.update(parser[section])
    return values


def _warehouse(raw: str) -> str:
    """``LAKEMIX_WAREHOUSE`` as a URI: a folder becomes ``file://``; ``s3://`` needs a bucket."""
    parts = urlsplit(raw)
    if parts.scheme in REMOTE_SCHEMES:
        if not parts.netloc:
            raise StorageConfigError(
                f"LAKEMIX_WAREHOUSE={raw!r} names no bucket; use s3://bucket/prefix"
            )
        return raw.rstrip("/")
    if parts.scheme == "file":
        return raw.rstrip("/")
    if parts.scheme and len(parts.scheme) > 1:  # not a Windows drive letter
        raise StorageConfigError(
            f"LAKEMIX_WAREHOUSE={raw!r}: unsupported scheme {parts.scheme!r}; "
            "use a folder, file:// or s3://bucket/prefix"
        )
    return Path(raw).resolve().as_uri()


@dataclass(frozen=True)
class Settings:
    """Locations of the lakehouse parts.

    Attributes:
        home: Root folder of the embedded lakehouse (``LAKEMIX_HOME``, default ``./lakehouse``
            next to ``dbt_project.yml``).
        catalog_uri: SQLAlchemy URI of the Iceberg SQL catalog (``LAKEMIX_CATALOG_URI``,
            default SQLite under ``home``). May hold a password: print ``redacted_catalog_uri``.
        warehouse: Root of the Iceberg data and metadata files (``LAKEMIX_WAREHOUSE``): a
            folder (default ``home/warehouse``), ``file://`` or ``s3://bucket/prefix``.
        duckdb_path: The DuckDB database file dbt uses (``LAKEMIX_DUCKDB_PATH``). It stays on
            local disk, like the text store and the loader's token store under ``home``,
            whatever the warehouse.
        s3: Endpoint, region and credentials of an ``s3://`` warehouse (or of any warehouse
            when ``LAKEMIX_S3_ENDPOINT`` is set), else None.
        memory_limit: What one DuckDB session holds before it spills (``LAKEMIX_MEMORY_LIMIT``,
            DuckDB's syntax: ``2GB``, ``500MB``, ``50%``), for dbt's and every command's.
        duckdb_threads: DuckDB's threads per session (``LAKEMIX_DUCKDB_THREADS``).
    """

    home: Path
    catalog_uri: str = field(repr=False)
    warehouse: str
    duckdb_path: Path
    s3: S3Settings | None = None
    memory_limit: str = DEFAULT_MEMORY_LIMIT
    duckdb_threads: int = DEFAULT_DUCKDB_THREADS

    def __repr__(self) -> str:
        """Every setting, the catalog URI without its secrets."""
        return (
            f"Settings(home={self.home!r}, catalog_uri={self.redacted_catalog_uri!r}, "
            f"warehouse={self.warehouse!r}, duckdb_path={self.duckdb_path!r}, s3={self.s3!r}, "
            f"memory_limit={self.memory_limit!r}, duckdb_threads={self.duckdb_threads!r})"
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the settings from ``env`` (default: ``os.environ``)."""
        env = os.environ if env is None else env
        raw_home = Path(env.get("LAKEMIX_HOME", DEFAULT_HOME))
        if not raw_home.is_absolute():
            raw_home = (project_root() or Path.cwd()) / raw_home
        home = raw_home.resolve()
        # SQLite serializes writers: wait up to a minute for the lock instead of failing at once.
        catalog_uri = (
            env.get("LAKEMIX_CATALOG_URI") or f"sqlite:///{home / 'catalog.db'}?timeout=60"
        )
        warehouse = _warehouse(env.get("LAKEMIX_WAREHOUSE") or (home / "warehouse").as_uri())
        duckdb_path = Path(env.get("LAKEMIX_DUCKDB_PATH") or home / "lakemix.duckdb")
        # Also with a local warehouse when an endpoint is set: a rebuild's scratch lakehouse is
        # local but reads the live raw tables in the object store.
        remote = is_remote(warehouse) or bool(env.get("LAKEMIX_S3_ENDPOINT"))
        s3 = S3Settings.from_env(env) if remote else None
        memory_limit = env.get("LAKEMIX_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT
        if not _MEMORY.fullmatch(memory_limit):
            raise StorageConfigError(
                f"LAKEMIX_MEMORY_LIMIT={memory_limit!r}: give an amount like 2GB, 500MB or 50%"
            )
        threads = env.get("LAKEMIX_DUCKDB_THREADS") or str(DEFAULT_DUCKDB_THREADS)
        if not threads.strip().isdigit() or int(threads) < 1:
            raise StorageConfigError(
                f"LAKEMIX_DUCKDB_THREADS={threads!r}: give a whole number of threads, 1 or more"
            )
        return cls(
            home=home,
            catalog_uri=catalog_uri,
            warehouse=warehouse,
            duckdb_path=duckdb_path,
            s3=s3,
            memory_limit=memory_limit.strip(),
            duckdb_threads=int(threads),
        )

    @property
    def duckdb_temp_directory(self) -> Path:
        """Where DuckDB sessions spill (as dbt's, in profiles.yml): in the lakehouse, never in
        the working directory."""
        return self.home / "duckdb_tmp"

    @property
    def redacted_catalog_uri(self) -> str:
        """The catalog URI without its password."""
        return redact_uri(self.catalog_uri)

    @property
    def extension_directory(self) -> Path:
        """Where DuckDB keeps the extensions installed from the pip packages."""
        return self.home / "duckdb_extensions"
