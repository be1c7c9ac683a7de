"""The token store of a release split: its documents' token ids in one memory-mapped Arrow file.

Built once per (release, split) by streaming the release's pinned Iceberg snapshots through
ibis (DuckDB backend, ``iceberg_scan``): the split's rows of ``marts.mix_<name>`` joined to
their text in ``marts.fct_clean_documents``, a batch at a time, tokenized with the tokenizer
the mix counted with (manifest var ``lakemix_tokenizer``), each document followed by the
end-of-text token. A release is immutable (its tag pins every snapshot), so the file is valid
for as long as the release exists; its name carries the release checksum. Readers map it into
memory and touch only the pages of the documents they read.

A first use is mostly start-up: importing pyiceberg to read the catalog, loading DuckDB's
Iceberg extension and the tokenizer's vocabulary. The last two load in C without the GIL, so
``Preload`` loads them in background threads while the caller reads the catalog.
"""

from __future__ import annotations

import functools
import os
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from lakemix import tables
from lakemix.iceberg.missing import missing_files
from lakemix.loader.order import document_key
from lakemix.settings import Settings
from lakemix.udf.tokens import DEFAULT_ENCODING, ENCODINGS, token_ids

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import duckdb
    from numpy.typing import NDArray

    from lakemix.versions.manifest import Manifest

SCHEMA = pa.schema(
    [
        ("document_id", pa.string()),
        ("language", pa.string()),
        ("document_key", pa.uint64()),
        ("repeat_count", pa.int64()),
        ("token_ids", pa.list_(pa.int32())),
    ]
)
# Documents per batch read: bounds the text and ids held at once while building.
BATCH_ROWS = 2048
# The DuckDB extensions that iceberg_scan needs (avro reads Iceberg's manifests).
SCAN_EXTENSIONS = ("avro", "iceberg")


def end_of_text(encoding: str) -> int:
    """The end-of-text token id of a quicktok encoding (appended to every document)."""
    from lakemix.udf.tokens import _tokenizer

    return int(_tokenizer(encoding).eot_token)


@functools.cache
def token_byte_lengths(encoding: str) -> NDArray[np.int32]:
    """Bytes of text each token id of ``encoding`` stands for (index: the id; 0 for special
    tokens such as end-of-text, which stand for none): a loss per byte compares languages
    whatever the tokenizer makes of their scripts (cl100k gives an English token about four
    bytes, an Armenian one about two)."""
    from lakemix.udf.tokens import _tokenizer

    tokenizer = _tokenizer(encoding)
    lengths = np.zeros(int(tokenizer.max_token_value) + 1, dtype=np.int32)
    for token in range(len(lengths)):
        if tokenizer.is_special_token(token):
            continue
        try:
            lengths[token] = len(tokenizer.decode_single_token_bytes(token))
        except (KeyError, ValueError):  # an id the vocabulary skips
            continue
    return lengths


def tokenizer_of(manifest: Manifest) -> str:
    """The encoding the release's mix counted tokens with."""
    encoding = manifest.tokenizer or DEFAULT_ENCODING
    if encoding not in ENCODINGS:
        raise ValueError(f"release {manifest.tag} uses unknown tokenizer {encoding!r}")
    return encoding


def store_path(
    manifest: Manifest, split: str, settings: Settings, *, encoding: str | None = None
) -> Path:
    """Where the token store of ``split`` of the release lives (tokenized with ``encoding``,
    by default the release's own tokenizer)."""
    encoding = encoding or tokenizer_of(manifest)
    name = f"{manifest.tag}-{manifest.checksum[:16]}-{split}-{encoding}.arrow"
    return settings.home / "loader" / name


def _json_copy(tag: str, settings: Settings) -> Manifest | None:
    """The JSON copy of release ``tag``'s manifest (``<home>/releases/<tag>.json``), if any.

    Raises:
        lakemix.versions.ManifestError: The file is not a release manifest (names the key).
    """
    import orjson

    from lakemix.versions.manifest import ManifestError, parse_manifest

    path = settings.home / "releases" / f"{tag}.json"
    if not path.is_file():
        return None
    try:
        document = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ManifestError(
            f"{path}: not JSON ({exc}); delete it to read the release from the catalog"
        ) from None
    return parse_manifest(document, str(path))


def built_manifest(tag: str, settings: Settings) -> Manifest | None:
    """The manifest of release ``tag`` if a store of it was built already, else None.

    Read from the JSON copy the release wrote (``<home>/releases/<tag>.json``), without opening
    the catalog: a store is built only after the catalog confirmed the release, and a release
    never changes, so this saves a loader's start-up the catalog round trip (about 2 s).
    """
    manifest = _json_copy(tag, settings)
    if manifest is None or manifest.tag != tag:
        return None
    prefix = store_path(manifest, "train", settings).name.rsplit("-", 2)[0]
    if not any((settings.home / "loader").glob(f"{prefix}-*.arrow")):
        return None
    return manifest


def _connect(settings: Settings) -> duckdb.DuckDBPyConnection:
    from lakemix.duck import connect

    return connect(settings=settings, extensions=SCAN_EXTENSIONS)


class Preload:
    """DuckDB with its Iceberg extension, and the tokenizer of ``encoding``, loaded in
    background threads (about 0.3 s of a first use, in C, without the GIL) while the caller
    reads the catalog. ``build_store`` takes the connection; ``close`` drops it if unused.

    Args:
        settings: The lakehouse.
        encoding: The tokenizer to load (a guess: the right one is loaded later if it differs).
    """

    def __init__(self, settings: Settings, encoding: str = DEFAULT_ENCODING) -> None:
        from lakemix.udf.tokens import _tokenizer

        self._settings = settings
        pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="lakemix-preload")
        self._connection: Future[duckdb.DuckDBPyConnection] | None
        self._connection = pool.submit(_connect, settings)
        if encoding in ENCODINGS:
            pool.submit(_tokenizer, encoding)
        pool.shutdown(wait=False)  # the threads end with their task

    def connection(self) -> duckdb.DuckDBPyConnection:
        """The connection (waiting for it), or a new one if it was taken already."""
        future, self._connection = self._connection, None
        return _connect(self._settings) if future is None else future.result()

    def close(self) -> None:
        """Close the connection once it is open, unless it was taken."""
        future, self._connection = self._connection, None
        if future is not None:
            future.add_done_callback(_close)


def _close(future: Future[duckdb.DuckDBPyConnection]) -> None:
    if future.exception() is None:
        future.result().close()


def preload_hint(tag: str | None, settings: Settings) -> str:
    """The encoding to preload for release ``tag``: from its manifest's JSON copy if there is
    one (read without the catalog, so only a guess), else the default."""
    try:
        manifest = None if tag is None else _json_copy(tag, settings)
        return DEFAULT_ENCODING if manifest is None else tokenizer_of(manifest)
    except (ValueError, KeyError):  # not JSON, or not a manifest
        return DEFAULT_ENCODING


def _batches(
    manifest: Manifest, split: str, settings: Settings, preload: Preload | None
) -> Iterator[pa.RecordBatch]:
    """The split's documents with their text, streamed through ibis (over the DuckDB
    connection, preloaded or new) from the pinned snapshots."""
    import ibis

    from lakemix.catalog import catalog
    from lakemix.iceberg.views import scan_sql

    mix_table = tables.mix_table(manifest.mix)
    snapshots = manifest.snapshots
    for name in (mix_table, tables.CLEAN_DOCUMENTS):
        if name not in snapshots:
            raise ValueError(f"release {manifest.tag} pins no snapshot of {name}")
    raw = preload.connection() if preload is not None else _connect(settings)
    try:
        con = ibis.duckdb.from_connection(raw)
        cat = catalog(settings)
        scans = {
            name: scan_sql(cat.load_table(name), snapshots[name].snapshot_id)
            for name in (mix_table, tables.CLEAN_DOCUMENTS)
        }
        mix = con.sql(f"select * from {scans[mix_table]}")
        clean = con.sql(f"select * from {scans[tables.CLEAN_DOCUMENTS]}")
        rows = mix.filter((mix.split == split) & (mix.repeat_count > 0)).select(
            "document_id", "language", "repeat_count"
        )
        texts = clean.select("document_id", "text")
        joined = rows.join(texts, "document_id")
        yield from joined.to_pyarrow_batches(chunk_size=BATCH_ROWS)
    finally:
        raw.close()


def build_store(
    manifest: Manifest,
    split: str,
    settings: Settings,
    *,
    preload: Preload | None = None,
    encoding: str | None = None,
) -> Path:
    """Write the token store of ``split`` (once; an existing store is reused).

    The file is written beside its final name and renamed into place, so concurrent builders
    (several ranks on one machine) never see a partial file. ``preload``: what the build
    needs, loading since before the catalog was read (closed if the store exists).
    ``encoding``: a tokenizer other than the release's (``lakemix export --tokenizer``).
    """
    if encoding is not None and encoding not in ENCODINGS:
        raise ValueError(f"unknown tokenizer {encoding!r}; choose one of {', '.join(ENCODINGS)}")
    path = store_path(manifest, split, settings, encoding=encoding)
    if path.exists():
        if preload is not None:
            preload.close()
        return path
    encoding = encoding or tokenizer_of(manifest)
    with missing_files():  # a lost file of the release's tables: one line, not a trace
        batches = _batches(manifest, split, settings, preload)
        write_store(path, batches, encoding, tag=manifest.tag, split=split)
    return path


def write_store(
    path: Path, batches: Iterable[pa.RecordBatch], encoding: str, **metadata: str
) -> None:
    """Tokenize ``batches`` of documents (``document_id``, ``language``, ``repeat_count``,
    ``text``) with ``encoding`` into the store file ``path``, ``metadata`` in its schema: written
    beside its final name and renamed into place, so readers never see a partial file."""
    eot = end_of_text(encoding)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    schema = SCHEMA.with_metadata({**metadata, "tokenizer": encoding, "eot": str(eot)})
    try:
        with pa.ipc.new_file(str(partial), schema) as writer:
            for batch in batches:
                writer.write_batch(_tokenized(batch, encoding, eot))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _tokenized(batch: pa.RecordBatch, encoding: str, eot: int) -> pa.RecordBatch:
    """A batch of documents with text -> the store's columns (ids end with ``eot``)."""
    ids = token_ids(batch.column("text"), encoding=encoding)
    counts = np.diff(np.asarray(ids.offsets, dtype=np.int64)) + 1
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    values = np.empty(int(offsets[-1]), dtype=np.int32)
    values[offsets[1:] - 1] = eot
    keep = np.ones(len(values), dtype=bool)
    keep[offsets[1:] - 1] = False
    values[keep] = np.asarray(ids.values, dtype=np.int32)
    document_ids = batch.column("document_id")
    keys = [document_key(d) for d in document_ids.to_pylist()]
    return pa.record_batch(
        [
            document_ids.cast(pa.string()),
            batch.column("language").cast(pa.string()),
            pa.array(keys, type=pa.uint64()),
            batch.column("repeat_count").cast(pa.int64()),
            pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(values)),
        ],
        schema=SCHEMA,
    )
