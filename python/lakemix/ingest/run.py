"""``lakemix ingest``: raw files into ``raw.documents`` and ``raw.quarantine``, exactly once.

What a run prints is what it committed: a file's ``documents`` and ``quarantined`` counts are
set from the ledger entries its commits carried (``_settle``), never from what it read. A file
read while it changed, or that the file system would not let it read to the end, commits
nothing and is reported as not read, with the reason.
"""

from __future__ import annotations

import hashlib
import re
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.catalog import catalog as open_catalog
from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.ingest import formats, remote, schema
from lakemix.ingest.checked import CheckedFile, FileChangedError
from lakemix.ingest.inputs import DOCUMENTATION, IngestInputError, expand_paths
from lakemix.ingest.ledger import LedgerEntry, ingested_files, ledger_properties
from lakemix.ingest.mapping import FieldMapping
from lakemix.ingest.pages import Skipped
from lakemix.ingest.records import Document, Rejected
from lakemix.ingest.sink import ParquetSink
from lakemix.ingest.streams import OpenedFile, open_stream, read_errors
from lakemix.settings import Settings, is_remote
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table

__all__ = [
    "FileResult",
    "IngestInputError",
    "IngestResult",
    "document_id",
    "expand_paths",
    "ingest",
    "validate_source",
]

SOURCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
PROGRESS_EVERY = 512
INGESTED = "ingested"
ALREADY_INGESTED = "already ingested"
NOT_READ = "not read"
LOST_RACE = "ingested by a concurrent ingest while this one read it (its rows are counted there)"


@dataclass
class FileResult:
    """What happened to one input file. ``documents`` and ``quarantined`` count the rows this
    ingest committed; ``read`` the records it read."""

    path: str
    sha256: str
    format: str
    status: str = INGESTED  # or ALREADY_INGESTED, NOT_READ
    read: int = 0
    documents: int = 0
    quarantined: int = 0
    note: str = ""
    # records read but not stored, by kind (a web archive's requests, redirects, images...)
    not_stored: dict[str, int] = field(default_factory=dict)


@dataclass
class IngestResult:
    """The outcome of one ``ingest`` call."""

    ingest_id: str
    source: str
    files: list[FileResult] = field(default_factory=list)
    documents_snapshot_id: int | None = None
    quarantine_snapshot_id: int | None = None

    def total(self, name: str) -> int:
        """Sum of one counter (``read``, ``documents``, ``quarantined``) over the files."""
        return sum(int(getattr(f, name)) for f in self.files)

    @property
    def skipped(self) -> int:
        """Files left alone because their content was already ingested."""
        return sum(f.status == ALREADY_INGESTED for f in self.files)

    @property
    def read_files(self) -> int:
        """Files whose records this run read and committed."""
        return sum(f.status == INGESTED for f in self.files)

    @property
    def unreadable(self) -> list[FileResult]:
        """Files not read for a fault (unreadable, changed while read, not a regular file, ...),
        not the README or SOURCE files beside the data."""
        return [f for f in self.files if f.status == NOT_READ and f.note != DOCUMENTATION]

    @property
    def failed(self) -> bool:
        """Nothing was ingested because files could not be read (the command exits 1)."""
        return bool(self.files) and not self.read_files and bool(self.unreadable)


def validate_source(source: str) -> str:
    """Source names become table values and folder names: letters, digits, ``_.-`` only."""
    if not SOURCE_NAME.fullmatch(source):
        raise IngestInputError(
            f"invalid source name {source!r}: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return source


def document_id(source: str, record_id: str | None, sha256: str, offset: int) -> str:
    """Stable id: from the source and the record's own id, else from file content and offset."""
    key = (
        f"{source}\0id\0{record_id}"
        if record_id is not None
        else f"{source}\0at\0{sha256}\0{offset}"
    )
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _progress(total: int, enabled: bool | None) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc="ingest",
        disable=(not sys.stderr.isatty()) if enabled is None else not enabled,
        file=sys.stderr,
    )


def ingest(
    paths: Sequence[str | Path],
    *,
    source: str,
    fmt: str = "auto",
    text_field: str | None = None,
    id_field: str | None = None,
    url_field: str | None = None,
    drop_fields: tuple[str, ...] = (),
    max_record_bytes: int = formats.DEFAULT_MAX_RECORD_BYTES,
    settings: Settings | None = None,
    progress: bool | None = None,
    follow_symlinks: bool = False,
) -> IngestResult:
    """Append the documents in ``paths`` to ``raw.documents``; bad records to ``raw.quarantine``.

    Each table gets one snapshot per call, recording the input files. A file whose content
    (SHA-256) is already in ``raw.documents`` is skipped. Memory is bounded by one row group per
    table, whatever the file sizes. A file that cannot be read, or changes while it is read,
    is reported as not read (its status and note) and commits nothing; the others go on.

    Args:
        paths: Files or directories (walked for files of the format), or ``s3://`` objects
            and prefixes (listed likewise; each object is copied into a spool file of the
            lakehouse home and read from there, ``lakemix.ingest.remote``).
        source: Name of the corpus these files belong to.
        fmt: ``auto`` (by file name), ``jsonl``, ``parquet``, ``text``, ``oscar`` or ``hplt``.
        text_field: Field holding the text (JSONL/Parquet); default: ``text``, then ``content``.
        id_field: Field holding the record id; default ``id``.
        url_field: Field holding the URL; default ``url``, ``metadata.url``, then
            ``warc_headers.warc-target-uri``.
        drop_fields: Top-level fields to leave out of ``metadata``.
        max_record_bytes: Records longer than this are quarantined, never loaded whole.
        settings: Lakehouse settings; read from the environment when omitted.
        progress: Show a progress bar (default: when stderr is a terminal).
        follow_symlinks: Read files that symlinks in a walked directory lead to outside the
            given paths (by default they are listed as not read).

    Raises:
        IngestInputError: bad source, format or path; raised before anything is written.
    """
    validate_source(source)
    not_read: list[tuple[Path, str]] = []
    local = [p for p in paths if not is_remote(str(p))]
    uris = [str(p) for p in paths if is_remote(str(p))]
    if not paths:
        raise IngestInputError("no input paths given")
    files = expand_paths(local, fmt, not_read, follow_symlinks=follow_symlinks) if local else []
    remote_not_read: list[tuple[str, str]] = []
    s3 = remote.s3_settings() if uris else None
    remote_files = remote.expand_remote(uris, fmt, remote_not_read, s3) if s3 else []
    overrides = {"text": text_field, "id": id_field, "url": url_field, "drop": tuple(drop_fields)}
    cat = open_catalog(settings)
    run = _Run(
        source=source,
        ingest_id=uuid.uuid4().hex,
        ingested_at=datetime.now(UTC),
        documents=_table_with_columns(cat, RAW_DOCUMENTS, schema.DOCUMENTS_SCHEMA),
        quarantine=ensure_table(cat, RAW_QUARANTINE, schema.QUARANTINE_SCHEMA),
        overrides=overrides,
        max_record_bytes=max_record_bytes,
    )
    result = IngestResult(ingest_id=run.ingest_id, source=source)
    result.files.extend(
        FileResult(path=str(p), sha256="", format="", status=NOT_READ, note=reason)
        for p, reason in [*not_read, *remote_not_read]
    )
    reads: list[_Read] = []
    sizes = sum(_size(p) for p, _ in files) + sum(r.size for r in remote_files)
    run.bar = _progress(sizes, progress)
    try:
        for index, (path, concrete) in enumerate(files):
            outcome = FileResult(path=str(path), sha256="", format=concrete)
            result.files.append(outcome)
            read = run.read_file(index, path, concrete, outcome)
            if read is not None:
                reads.append(read)
        spool = (settings or Settings.from_env()).home / "spool"
        for index, item in enumerate(remote_files, start=len(files)):
            outcome = FileResult(path=item.uri, sha256="", format=item.fmt)
            result.files.append(outcome)
            assert s3 is not None
            with remote.spooled(item, s3, spool) as copy:
                read = run.read_file(index, copy, item.fmt, outcome)
            if read is not None:
                reads.append(read)
    finally:
        run.bar.close()
    props = {
        "lakemix.ingest_id": run.ingest_id,
        "lakemix.source": source,
        "lakemix.version": _version(),
    }
    # Quarantine first: if we stop between the two commits, the rerun re-reads the files
    # (documents were not committed) but finds their quarantine rows already in the ledger.
    entries = [r.entry(r.quarantined) for r in reads if r.quarantine_files is not None]
    files_of = {r.outcome.sha256: r.quarantine_files or [] for r in reads}
    result.quarantine_snapshot_id, quarantined = _commit(
        cat, RAW_QUARANTINE, entries, files_of, props
    )
    entries = [r.entry(r.documents) for r in reads]
    files_of = {r.outcome.sha256: r.document_files for r in reads}
    result.documents_snapshot_id, documented = _commit(cat, RAW_DOCUMENTS, entries, files_of, props)
    _settle(reads, documented=documented, quarantined=quarantined)
    return result


def _table_with_columns(cat: Any, identifier: str, wanted: Schema) -> Table:
    """The table, with the columns of ``wanted`` it lacks added (a lakehouse made by an
    earlier lakemix); a concurrent ingest adding them first is fine."""
    from pyiceberg.exceptions import CommitFailedException

    table = ensure_table(cat, identifier, wanted)
    if {f.name for f in wanted.fields} <= {f.name for f in table.schema().fields}:
        return table
    try:
        with table.update_schema() as update:
            update.union_by_name(wanted)
    except CommitFailedException:
        pass
    reloaded: Table = cat.load_table(identifier)
    return reloaded


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since it was listed: its turn will say so
        return 0


@dataclass
class _Read:
    """One file read into data files not yet committed: the rows it holds, per table."""

    outcome: FileResult
    source: str
    documents: int
    document_files: list[str]
    quarantined: int
    quarantine_files: list[str] | None  # None: an earlier ingest committed its quarantine rows

    def entry(self, rows: int) -> LedgerEntry:
        return LedgerEntry(
            path=self.outcome.path, sha256=self.outcome.sha256, source=self.source, rows=rows
        )


def _settle(reads: list[_Read], *, documented: set[str], quarantined: set[str]) -> None:
    """Count for each file the rows this run committed (the files whose checksum its
    commits recorded), and say why when that is not what it read."""
    for read in reads:
        outcome, sha = read.outcome, read.outcome.sha256
        outcome.documents = read.documents if sha in documented else 0
        outcome.quarantined = read.quarantined if sha in quarantined else 0
        if sha not in documented:
            outcome.status, outcome.note = ALREADY_INGESTED, LOST_RACE
        elif read.quarantined and sha not in quarantined:
            outcome.note = "its quarantine rows were committed by another ingest"


@dataclass(kw_only=True)
class _Run:
    """What every file of one ingest shares, and reading one file into uncommitted data files."""

    source: str
    ingest_id: str
    ingested_at: datetime
    documents: Table
    quarantine: Table
    overrides: dict[str, Any]
    max_record_bytes: int
    bar: Any = None
    consumed: int = 0  # bytes of the files finished so far, for the progress bar
    seen: set[str] = field(default_factory=set)  # checksums read in this run
    done_documents: dict[str, LedgerEntry] = field(init=False)
    done_quarantine: dict[str, LedgerEntry] = field(init=False)

    def __post_init__(self) -> None:
        self.done_documents = ingested_files(self.documents)
        self.done_quarantine = ingested_files(self.quarantine)

    def read_file(self, index: int, path: Path, fmt: str, outcome: FileResult) -> _Read | None:
        """Read ``path`` into data files; None when there is nothing of it to commit (already
        ingested, or not read: ``outcome`` says why)."""
        try:
            checked = CheckedFile(path)
        except OSError as exc:
            outcome.status, outcome.note = NOT_READ, f"cannot be read: {exc.strerror or exc}"
            return None
        with checked:
            try:
                return self._read_checked(index, checked, fmt, outcome)
            finally:
                self.consumed += checked.state.size
                self.bar.update(max(0, self.consumed - self.bar.n))

    def _read_checked(
        self, index: int, checked: CheckedFile, fmt: str, outcome: FileResult
    ) -> _Read | None:
        sha = outcome.sha256 = checked.sha256
        if sha in self.done_documents or sha in self.seen:
            first = self.done_documents.get(sha)
            outcome.status = ALREADY_INGESTED
            outcome.note = (
                f"same content as {first.path} (source {first.source})"
                if first
                else "same content as an earlier file in this run"
            )
            return None
        prefix = f"ingest-{self.ingest_id}-{index:05d}"
        doc_sink = ParquetSink(self.documents, schema.arrow_schema(schema.DOCUMENTS_SCHEMA), prefix)
        q_sink = ParquetSink(self.quarantine, schema.arrow_schema(schema.QUARANTINE_SCHEMA), prefix)
        common = {
            "source": self.source,
            "file": outcome.path,
            "file_sha256": sha,
            "ingested_at": self.ingested_at,
            "ingest_id": self.ingest_id,
        }
        mapping = _mapping(fmt, self.overrides)
        for item in _read(checked, fmt, mapping, self.max_record_bytes, self.bar):
            outcome.read += 1
            if isinstance(item, Skipped):
                outcome.not_stored[item.reason] = outcome.not_stored.get(item.reason, 0) + 1
            elif isinstance(item, Document):
                doc_sink.append(
                    _document_row(item, common), len(item.text) + len(item.metadata or "")
                )
            else:
                q_sink.append(
                    _quarantine_row(item, common), len(item.excerpt or "") + len(item.reason)
                )
        try:
            checked.verify()
        except (OSError, FileChangedError) as exc:
            doc_sink.discard()
            q_sink.discard()
            outcome.status, outcome.read = NOT_READ, 0
            outcome.note = (
                str(exc).removeprefix(f"{checked.path}: ")
                if isinstance(exc, FileChangedError)
                else f"read failed: {exc.strerror or exc}; nothing of it was committed"
            )
            return None
        self.seen.add(sha)
        quarantine_files: list[str] | None = None
        if sha in self.done_quarantine:  # committed by an earlier run that stopped before documents
            q_sink.discard()
        else:
            quarantine_files = q_sink.close()
        return _Read(
            outcome=outcome,
            source=self.source,
            documents=doc_sink.rows,
            document_files=doc_sink.close(),
            quarantined=q_sink.rows,
            quarantine_files=quarantine_files,
        )


def _document_row(item: Document, common: dict[str, Any]) -> dict[str, Any]:
    return {
        **common,
        "document_id": document_id(
            common["source"], item.record_id, common["file_sha256"], item.offset
        ),
        "url": item.url,
        "offset": item.offset,
        "line_number": item.line_number,
        "text": item.text,
        "metadata": item.metadata,
        "is_utf8_repaired": item.is_utf8_repaired,
        "record_id": item.record_id,
        "content_type": item.content_type,
        "charset": item.charset,
        "http_status": item.http_status,
        "fetched_at": item.fetched_at,
        "payload_digest": item.payload_digest,
        "record_offset": item.record_offset,
        "record_length": item.record_length,
    }


def _quarantine_row(item: Rejected, common: dict[str, Any]) -> dict[str, Any]:
    # the reason too: a broken stream is reported at the offset of the last record read,
    # which may itself have been rejected
    key = f"{common['file_sha256']}\0{item.offset}\0{item.reason}"
    return {
        **common,
        "quarantine_id": hashlib.blake2b(
            key.encode("utf-8", "surrogatepass"), digest_size=16
        ).hexdigest(),
        "offset": item.offset,
        "line_number": item.line_number,
        "reason": item.reason,
        "excerpt": item.excerpt,
    }


def _mapping(fmt: str, overrides: dict[str, Any]) -> FieldMapping:
    from lakemix.ingest import mapping

    base = mapping.HPLT if fmt == "hplt" else mapping.JSONL
    return base.with_overrides(**overrides)


def _read(
    checked: CheckedFile, fmt: str, mapping: FieldMapping, max_bytes: int, bar: Any
) -> Iterator[Document | Rejected | Skipped]:
    """Every item of one file; a broken file or stream ends as one more rejected record."""
    reader = formats.reader_for(fmt, mapping, max_bytes)
    start = bar.n
    last = 0
    try:
        raw = checked.reader()
        # reads the first bytes (compression, UTF-16), unless the format reads the file itself
        opened = OpenedFile(raw, raw) if fmt in formats.READS_FILE else open_stream(raw)
    except read_errors() as exc:
        yield Rejected(0, None, f"unreadable stream at its start: {type(exc).__name__}: {exc}")
        return
    try:
        for n, item in enumerate(reader(checked.path, opened), 1):
            yield item
            last = item.offset
            if n % PROGRESS_EVERY == 0:
                bar.update(max(0, start + opened.raw_position() - bar.n))
    except read_errors() as exc:
        yield Rejected(
            last, None, f"unreadable stream after offset {last}: {type(exc).__name__}: {exc}"
        )
    except Exception as exc:  # a malformed file must not abort the other files
        yield Rejected(last, None, f"unreadable file: {type(exc).__name__}: {exc}")
    finally:
        opened.close()


def _commit(
    cat: Any,
    identifier: str,
    entries: list[LedgerEntry],
    data_files: dict[str, list[str]],
    props: dict[str, str],
) -> tuple[int | None, set[str]]:
    """Add the data files of ``entries`` not yet in the table's ledger, as one snapshot.

    Returns:
        The snapshot's id (None when there was nothing left to commit) and the checksums of
        the entries it recorded: those a concurrent ingest committed first are not among them.
    """
    if not entries:
        return None, set()

    def attempt(table: Table) -> tuple[int | None, set[str]]:
        done = ingested_files(table)
        fresh = [e for e in entries if e.sha256 not in done]
        stale = [e for e in entries if e.sha256 in done]
        for entry in stale:  # a concurrent ingest committed the same content first
            for path in data_files.get(entry.sha256, []):
                table.io.delete(path)
            data_files.pop(entry.sha256, None)
        if not fresh:
            return None, set()
        paths = [p for e in fresh for p in data_files.get(e.sha256, [])]
        properties = {**props, **ledger_properties(fresh)}
        if paths:
            table.add_files(paths, snapshot_properties=properties)
        else:  # only a record that these files were read: an empty snapshot carries it
            from lakemix.ingest.schema import arrow_schema

            table.append(arrow_schema(table.schema()).empty_table(), snapshot_properties=properties)
        snapshot = _snapshot_of(table.refresh(), props["lakemix.ingest_id"])
        return snapshot, {e.sha256 for e in fresh}

    return commit_with_retry(cat, identifier, attempt)


def _snapshot_of(table: Table, ingest_id: str) -> int | None:
    """The id of the snapshot this ingest committed (later ones may exist)."""
    from pyiceberg.table.snapshots import ancestors_of

    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        if extra.get("lakemix.ingest_id") == ingest_id:
            return snapshot.snapshot_id
    return None


def _version() -> str:
    from lakemix import __version__

    return __version__
