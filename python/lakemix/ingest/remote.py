"""Input files on an object store (``s3://bucket/prefix``), read as local files are.

A prefix is listed like a directory (recursively, sorted, files of the format; documentation
files listed as not read). Each object is copied once into a spool file beside the lakehouse
(``LAKEMIX_HOME/spool``) and ingested from there: its checksum, records and exactly-once
record are those of the bytes copied, and ``raw.documents.file`` names its ``s3://`` URI. One
object is spooled at a time and removed after its ingest, so the disk needs room for the
largest object, and memory stays bounded. The object store is reached with the warehouse's S3
settings (``LAKEMIX_S3_ENDPOINT``, the AWS variables or profile), whatever the warehouse is.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from lakemix.ingest import formats
from lakemix.ingest.inputs import DOCUMENTATION, IngestInputError
from lakemix.settings import S3Settings
from lakemix.storage import StorageError, explain, filesystem, uri_of

CHUNK_BYTES = 8 << 20


def s3_settings() -> S3Settings:
    """The S3 settings of the environment (those of an ``s3://`` warehouse too)."""
    return S3Settings.from_env(os.environ)


@dataclass(frozen=True)
class RemoteFile:
    """An object to ingest: its URI, size and concrete format."""

    uri: str
    size: int
    fmt: str


def expand_remote(
    uris: Sequence[str], fmt: str, not_read: list[tuple[str, str]], s3: S3Settings
) -> list[RemoteFile]:
    """The objects ``uris`` name (an object, or every object under a prefix), with their
    format; documentation files under a prefix go to ``not_read``.

    Raises:
        IngestInputError: an object or prefix does not exist, holds no file of the format, or
            a file's format cannot be told; or the object store refused the listing.
    """
    import pyarrow.fs as pafs

    found: list[RemoteFile] = []
    for uri in uris:
        fs, path = filesystem(s3, uri)
        try:
            info = fs.get_file_info(path)
            if info.type == pafs.FileType.Directory:
                listed = fs.get_file_info(pafs.FileSelector(path, recursive=True))
                files = sorted(
                    (i for i in listed if i.type == pafs.FileType.File), key=lambda i: i.path
                )
            elif info.type == pafs.FileType.File:
                files = [info]
            else:
                raise IngestInputError(f"no such object or prefix: {uri}")
        except OSError as exc:
            raise IngestInputError(str(explain(exc, s3, uri, "the input"))) from None
        kept = []
        for item in files:
            name = PurePosixPath(item.path)
            object_uri = uri_of(uri, item.path)
            if info.type == pafs.FileType.Directory:
                if formats.is_documentation(Path(name.name)):
                    not_read.append((object_uri, DOCUMENTATION))
                    continue
                if not formats.accepts(Path(name.name), fmt):
                    continue
            try:
                concrete = formats.detect_format(Path(name.name), fmt)
            except formats.UnknownFormatError as exc:
                raise IngestInputError(f"{object_uri}: {exc}") from None
            kept.append(RemoteFile(object_uri, item.size or 0, concrete))
        if not kept:
            raise IngestInputError(f"{uri}: no files of format {fmt!r} under this prefix")
        found.extend(kept)
    return found


@contextlib.contextmanager
def spooled(remote: RemoteFile, s3: S3Settings, folder: Path) -> Iterator[Path]:
    """The object copied into a spool file of ``folder``, removed when the context ends.

    Raises:
        StorageError: the object store refused the read (the message says what to check).
    """
    folder.mkdir(parents=True, exist_ok=True)
    local = folder / f"{os.getpid()}-{hashlib.sha1(remote.uri.encode()).hexdigest()[:16]}"
    local = local.with_name(local.name + "".join(PurePosixPath(remote.uri).suffixes[-2:]))
    fs, path = filesystem(s3, remote.uri)
    try:
        # compression=None: pyarrow would otherwise gunzip a .gz object on the way
        with fs.open_input_stream(path, compression=None) as source, local.open("wb") as target:
            while chunk := source.read(CHUNK_BYTES):
                target.write(chunk)
        yield local
    except OSError as exc:
        if isinstance(exc, StorageError):
            raise
        raise explain(exc, s3, remote.uri, "the input") from None
    finally:
        local.unlink(missing_ok=True)


def open_remote(uri: str) -> Any:
    """An object opened for reading at random (a pyarrow ``NativeFile``)."""
    fs, path = filesystem(s3_settings(), uri)
    return fs.open_input_file(path)
