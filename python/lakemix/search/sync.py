"""Bring the search index up to date with a relation of documents, paying for changed rows only.

The index folder holds, beside Tantivy's files, ``lakemix_documents.parquet``: the id and a
fingerprint (a hash of every column but the text) of each document the index holds. A build
compares the relation's ids and fingerprints with it (DuckDB reads those small columns only):

* a document that is new, or whose fingerprint changed (it moved between kept and rejected,
  its rules or duplicate changed), is (re-)added: its row, text included, is read and indexed;
* a document that is gone from the relation, or changed, is deleted by its id.

Tantivy writes the additions as new segments and merges segments in the background (its log
merge policy), so a build costs what changed, not the corpus. A sync marks the folder
(``lakemix_sync.pending``) before Tantivy's commit and clears the mark once the fingerprint
file is written: the sync after one that stopped in between deletes each document it adds by id
first, so nothing is indexed twice. Only then: Tantivy holds every delete until the commit
(about 1.3 KB each, 130 MB for 100,000 documents). Memory is bounded by ``heap_bytes`` (the
writer's indexing buffer, flushed to a segment when full) and ``batch_rows`` (rows read from
DuckDB at a time), not by the corpus.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.search.index import COLUMNS, SearchIndexError, open_index

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    import tantivy

# Given the ids to read, a connection on which relation_sql reads them cheaply (and the ids
# registered as ``narrowed_keys``): lakemix.iceberg.views.narrowed.
Narrow = Callable[["pa.Table"], AbstractContextManager["duckdb.DuckDBPyConnection"]]

STATE_FILE = "lakemix_documents.parquet"
# Present from just before a commit until the state file matches it (module docstring).
PENDING_FILE = "lakemix_sync.pending"
# Every column of the relation but the key and the text: a change in any re-indexes the document.
FINGERPRINT_COLUMNS = tuple(c for c in COLUMNS if c not in ("score", "document_id", "text"))
MIN_HEAP_BYTES = 15_000_000  # Tantivy needs at least 15 MB for a one-thread writer.
LOW_DISK_BYTES = 1_000_000_000  # a failed write blames the disk under this (or 1% of it) free


@dataclass(frozen=True)
class SyncResult:
    """What a sync changed.

    Attributes:
        documents: Documents in the index afterwards.
        added: Documents (re-)indexed by this sync.
        deleted: Documents deleted (gone or changed; a changed one is also in ``added``).
        segments: Index segments afterwards.
        rebuilt: The index was made from scratch (none yet, or asked for).
    """

    documents: int
    added: int
    deleted: int
    segments: int
    rebuilt: bool


def _fingerprint_sql(relation_sql: str) -> str:
    columns = ", ".join(FINGERPRINT_COLUMNS)
    return f"select document_id, hash({columns}) as fingerprint from ({relation_sql}) as documents"


def _document(row: dict[str, Any]) -> tantivy.Document:
    """A relation row as an index document (nulls left out; lists joined by commas)."""
    import tantivy

    doc = tantivy.Document()
    for name, value in row.items():
        if value is None:
            continue
        if name == "ingested_at":
            doc.add_integer("ingested_at_us", int(value.timestamp() * 1_000_000))
        elif name == "failed_rule_names":
            if value:
                doc.add_text(name, ",".join(value))
        elif name == "is_clean":
            doc.add_boolean(name, bool(value))
        elif name == "language_score":
            doc.add_float(name, float(value))
        elif name == "file_offset":
            doc.add_integer(name, int(value))
        else:
            doc.add_text(name, str(value))
    return doc


def _rows(result: duckdb.DuckDBPyConnection, batch_rows: int) -> Iterator[dict[str, Any]]:
    reader = result.to_arrow_reader(batch_rows)
    for batch in reader:
        yield from batch.to_pylist()


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _count(conn: duckdb.DuckDBPyConnection, table: str) -> int:
    row = conn.execute(f"select count(*) from {table}").fetchone()
    return int(row[0]) if row else 0


@contextlib.contextmanager
def _whole(conn: duckdb.DuckDBPyConnection, ids: pa.Table) -> Iterator[duckdb.DuckDBPyConnection]:
    """``sync_index``'s reader without ``narrow``: the relation as it is, the ids beside it."""
    conn.register("narrowed_keys", ids)
    try:
        yield conn
    finally:
        conn.unregister("narrowed_keys")


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Tantivy's failures while writing (a full disk, most likely: its indexing thread then
    reports only that it was killed) as a SearchIndexError that says where and how much room
    is left."""
    try:
        yield
    except ValueError as exc:
        disk = shutil.disk_usage(path)
        free = disk.free / 1e6
        # Tantivy raises ValueError for any failure: blame the disk only when it is nearly full.
        full = disk.free < max(LOW_DISK_BYTES, disk.total // 100)
        hint = "make room, then run `dbt build` again (the index holds every document's text)"
        raise SearchIndexError(
            f"writing the search index at {path} failed ({exc}); its disk has {free:,.0f} MB "
            f"free{': ' + hint if full else ''}"
        ) from None


def _writer(index: tantivy.Index, heap_bytes: int, path: Path) -> tantivy.IndexWriter:
    try:
        return index.writer(max(heap_bytes, MIN_HEAP_BYTES), 1)
    except ValueError as exc:
        raise SearchIndexError(
            f"cannot write the search index at {path} ({exc}): is another `dbt build` running?"
        ) from None


def _write(
    conn: duckdb.DuckDBPyConnection,
    relation_sql: str,
    writer: tantivy.IndexWriter,
    batch_rows: int,
    *,
    added: int,
    rebuilt: bool,
    repair: bool,
    narrow: Narrow | None,
) -> int:
    """Delete the documents gone or changed and add the ``added`` new and changed ones (the
    tables ``search_sync_*``); returns the deletes."""
    deleted = 0
    gone = conn.execute(
        "select document_id from search_sync_before anti join search_sync_now "
        "using (document_id, fingerprint)"
    )
    for row in _rows(gone, batch_rows):
        writer.delete_documents_by_term("document_id", row["document_id"])
        deleted += 1
    if added and rebuilt:
        for row in _rows(conn.execute(f"select * from ({relation_sql}) as documents"), batch_rows):
            writer.add_document(_document(row))
    elif added:
        ids = conn.execute("select document_id from search_sync_added").to_arrow_table()
        with (narrow or functools.partial(_whole, conn))(ids) as reader:
            rows = (
                f"select * from ({relation_sql}) as documents "
                "semi join narrowed_keys using (document_id)"
            )
            for row in _rows(reader.execute(rows), batch_rows):
                if repair:
                    writer.delete_documents_by_term("document_id", row["document_id"])
                writer.add_document(_document(row))
    return deleted


def sync_index(
    conn: duckdb.DuckDBPyConnection,
    relation_sql: str,
    path: Path,
    *,
    heap_bytes: int = 128_000_000,
    batch_rows: int = 2_000,
    rebuild: bool = False,
    narrow: Narrow | None = None,
) -> SyncResult:
    """Make the index at ``path`` hold exactly the rows of ``relation_sql``.

    Args:
        conn: DuckDB connection that can read ``relation_sql``.
        relation_sql: A query with the columns of ``search.search_documents`` (``document_id``,
            ``text`` and ``FINGERPRINT_COLUMNS``), one row per document.
        path: The index folder (made when missing).
        heap_bytes: Indexing buffer of the writer (memory), at least 15 MB.
        batch_rows: Rows read from DuckDB at a time.
        rebuild: Drop the index and index every row.
        narrow: Reads the rows to (re-)index of a sync that is not a rebuild, given their ids
            (``lakemix.iceberg.views.narrowed``: only the data files that hold them); by
            default ``relation_sql`` is read whole and joined with the ids.

    Raises:
        SearchIndexError: The index is locked by another writer or cannot be opened.
    """
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be at least 1, got {batch_rows}")
    state, pending = path / STATE_FILE, path / PENDING_FILE
    rebuilt = rebuild or not state.is_file() or not (path / "meta.json").is_file()
    if rebuilt and path.exists():
        shutil.rmtree(path)
    index = open_index(path, create=True)
    repair = pending.is_file()  # the last sync committed, then stopped before its state file

    conn.execute(
        f"create or replace temp table search_sync_now as {_fingerprint_sql(relation_sql)}"
    )
    previous = "select * from search_sync_now limit 0" if rebuilt else f"from {_literal(state)}"
    conn.execute(f"create or replace temp table search_sync_before as {previous}")
    conn.execute(
        "create or replace temp table search_sync_added as "
        "select document_id from search_sync_now anti join search_sync_before "
        "using (document_id, fingerprint)"
    )
    added_count = _count(conn, "search_sync_added")
    writer = _writer(index, heap_bytes, path)
    with _writing(path):
        deleted = _write(
            conn,
            relation_sql,
            writer,
            batch_rows,
            added=added_count,
            rebuilt=rebuilt,
            repair=repair,
            narrow=narrow,
        )
        pending.touch()
        writer.commit()
        writer.wait_merging_threads()

    temporary = path / (STATE_FILE + ".tmp")
    conn.execute(f"copy search_sync_now to {_literal(temporary)} (format parquet)")
    os.replace(temporary, state)
    pending.unlink()
    for table in ("search_sync_now", "search_sync_before", "search_sync_added"):
        conn.execute(f"drop table {table}")
    index.reload()
    searcher = index.searcher()
    return SyncResult(
        documents=searcher.num_docs,
        added=added_count,
        deleted=deleted,
        segments=searcher.num_segments,
        rebuilt=rebuilt,
    )
