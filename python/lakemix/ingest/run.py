"""``lakemix ingest``: raw files into ``raw.documents`` and ``raw.quarantine``, exactly once."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.catalog import catalog as open_catalog
from lakemix.errors import LakemixError
from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.ingest import formats, schema
from lakemix.ingest.ledger import LedgerEntry, ingested_files, ledger_properties
from lakemix.ingest.mapping import FieldMapping
from lakemix.ingest.records import Document, Rejected
from lakemix.ingest.sink import ParquetSink
from lakemix.ingest.streams import open_file, read_errors
from lakemix.settings import Settings
from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from pyiceberg.table import Table

SOURCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
PROGRESS_EVERY = 512


class IngestInputError(LakemixError, ValueError):
    """A path, source name or format that cannot be ingested (nothing was written)."""


@dataclass
class FileResult:
    """What happened to one input file."""

    path: str
    sha256: str
    format: str
    status: str = "ingested"  # or "already ingested"
    read: int = 0
    documents: int = 0
    quarantined: int = 0
    note: str = ""


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
        return sum(f.status == "already ingested" for f in self.files)

    @property
    def read_files(self) -> int:
        """Files whose records were read in this run."""
        return sum(f.status == "ingested" for f in self.files)


def validate_source(source: str) -> str:
    """Source names become table values and folder names: letters, digits, ``_.-`` only."""
    if not SOURCE_NAME.fullmatch(source):
        raise IngestInputError(
            f"invalid source name {source!r}: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return source


def expand_paths(
    paths: Sequence[str | Path],
    fmt: str,
    skipped: list[tuple[Path, str]] | None = None,
    *,
    follow_symlinks: bool = False,
) -> list[tuple[Path, str]]:
    """Files to read, with their concrete format. Directories are walked (sorted, no hidden
    files). Added to ``skipped`` with the reason, not read: documentation files found there
    (README, SOURCE.txt, ...), and symlinks whose target lies outside the given paths (a link
    to ``/etc/passwd`` in an input folder), unless ``follow_symlinks``.

    Raises:
        IngestInputError: a path does not exist, a directory holds no file of the format, or a
            file's format cannot be told.
    """
    if fmt not in formats.FORMATS:
        raise IngestInputError(
            f"unknown format {fmt!r}; choose one of: {', '.join(formats.FORMATS)}"
        )
    if not paths:
        raise IngestInputError("no input paths given")
    missing = [Path(p) for p in paths if not Path(p).exists()]
    if missing:
        broken = [
            f"{p} (a symlink that leads nowhere or to itself)" for p in missing if p.is_symlink()
        ]
        absent = [str(p) for p in missing if not p.is_symlink()]
        raise IngestInputError("no such file or directory: " + ", ".join([*absent, *broken]))
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    roots = tuple(Path(p).resolve() for p in paths)
    outside: list[tuple[Path, str]] = []
    for given in map(Path, paths):
        if given.is_dir():
            walked = sorted(_walk(given, roots, follow_symlinks=follow_symlinks, outside=outside))
            files = [p for p in walked if formats.accepts(p, fmt)]
            if skipped is not None:
                skipped.extend(
                    (p.resolve(), "documentation file")
                    for p in walked
                    if formats.is_documentation(p)
                )
            if not files:
                raise IngestInputError(f"{given}: no files of format {fmt!r} in this directory")
        elif given.is_file():
            files = [given]
        else:
            raise IngestInputError(f"{given}: not a regular file or directory")
        for path in files:
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            try:
                found.append((resolved, formats.detect_format(path, fmt)))
            except formats.UnknownFormatError as exc:
                raise IngestInputError(str(exc)) from None
    if skipped is not None:
        skipped.extend(outside)
    return found


def _is_inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _walk(
    root: Path,
    roots: Sequence[Path],
    *,
    follow_symlinks: bool,
    outside: list[tuple[Path, str]],
) -> Iterator[Path]:
    """Files below ``root``, hidden ones left out. A symlink whose target lies outside
    ``roots`` is listed in ``outside`` and not followed, unless ``follow_symlinks``."""
    way_out = "outside the given paths; --follow-symlinks reads it"
    walked: set[Path] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=follow_symlinks):
        real = Path(dirpath).resolve()
        if real in walked:  # a link loop, or a folder reached twice through links
            dirnames[:] = []
            continue
        walked.add(real)
        kept = []
        for name in dirnames:
            path = Path(dirpath) / name
            if name.startswith("."):
                continue
            if path.is_symlink() and not follow_symlinks:
                # Not walked: a link inside the roots leads to a folder walked where it lies.
                if not _is_inside(path.resolve(), roots):
                    outside.append((path.absolute(), f"link to folder {path.resolve()}, {way_out}"))
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() and not follow_symlinks and not _is_inside(path.resolve(), roots):
                if path.exists():
                    outside.append((path.absolute(), f"link to {path.resolve()}, {way_out}"))
                continue
            if path.is_file():
                yield path


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file's bytes, read in chunks."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


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
    table, whatever the file sizes.

    Args:
        paths: Files or directories (walked for files of the format).
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
    files = expand_paths(paths, fmt, not_read, follow_symlinks=follow_symlinks)
    overrides = {"text": text_field, "id": id_field, "url": url_field, "drop": tuple(drop_fields)}
    cat = open_catalog(settings)
    documents = ensure_table(cat, RAW_DOCUMENTS, schema.DOCUMENTS_SCHEMA)
    quarantine = ensure_table(cat, RAW_QUARANTINE, schema.QUARANTINE_SCHEMA)
    done_documents = ingested_files(documents)
    done_quarantine = ingested_files(quarantine)

    ingest_id = uuid.uuid4().hex
    result = IngestResult(ingest_id=ingest_id, source=source)
    result.files.extend(
        FileResult(path=str(p), sha256="", format="", status="not read", note=reason)
        for p, reason in not_read
    )
    ingested_at = datetime.now(UTC)
    doc_files: dict[str, list[str]] = {}
    q_files: dict[str, list[str]] = {}
    doc_entries: list[LedgerEntry] = []
    q_entries: list[LedgerEntry] = []
    bar = _progress(sum(p.stat().st_size for p, _ in files), progress)
    seen_sha: set[str] = set()
    consumed = 0  # bytes of the files finished so far, for the progress bar
    try:
        for index, (path, concrete) in enumerate(files):
            sha = file_sha256(path)
            outcome = FileResult(path=str(path), sha256=sha, format=concrete)
            result.files.append(outcome)
            if sha in done_documents or sha in seen_sha:
                first = done_documents.get(sha)
                outcome.status = "already ingested"
                outcome.note = (
                    f"same content as {first.path} (source {first.source})"
                    if first
                    else "same content as an earlier file in this run"
                )
                consumed += path.stat().st_size
                bar.update(consumed - bar.n)
                continue
            seen_sha.add(sha)
            mapping = _mapping(concrete, overrides)
            prefix = f"ingest-{ingest_id}-{index:05d}"
            doc_sink = ParquetSink(documents, schema.arrow_schema(schema.DOCUMENTS_SCHEMA), prefix)
            q_sink = ParquetSink(quarantine, schema.arrow_schema(schema.QUARANTINE_SCHEMA), prefix)
            common = {
                "source": source,
                "file": str(path),
                "file_sha256": sha,
                "ingested_at": ingested_at,
                "ingest_id": ingest_id,
            }
            for item in _read(path, concrete, mapping, max_record_bytes, bar):
                outcome.read += 1
                if isinstance(item, Document):
                    doc_sink.append(
                        {
                            **common,
                            "document_id": document_id(source, item.record_id, sha, item.offset),
                            "url": item.url,
                            "offset": item.offset,
                            "line_number": item.line_number,
                            "text": item.text,
                            "metadata": item.metadata,
                            "is_utf8_repaired": item.is_utf8_repaired,
                        },
                        len(item.text) + len(item.metadata or ""),
                    )
                    outcome.documents += 1
                else:
                    q_sink.append(
                        {
                            **common,
                            # the reason too: a broken stream is reported at the offset of
                            # the last record read, which may itself have been rejected
                            "quarantine_id": hashlib.blake2b(
                                f"{sha}\0{item.offset}\0{item.reason}".encode(
                                    "utf-8", "surrogatepass"
                                ),
                                digest_size=16,
                            ).hexdigest(),
                            "offset": item.offset,
                            "line_number": item.line_number,
                            "reason": item.reason,
                            "excerpt": item.excerpt,
                        },
                        len(item.excerpt or "") + len(item.reason),
                    )
                    outcome.quarantined += 1
            doc_files[sha] = doc_sink.close()
            doc_entries.append(
                LedgerEntry(path=str(path), sha256=sha, source=source, rows=outcome.documents)
            )
            if sha in done_quarantine:  # committed by an earlier run that stopped before documents
                q_sink.discard()
            else:
                q_files[sha] = q_sink.close()
                q_entries.append(
                    LedgerEntry(path=str(path), sha256=sha, source=source, rows=outcome.quarantined)
                )
            consumed += path.stat().st_size
            bar.update(consumed - bar.n)
    finally:
        bar.close()
    props = {
        "lakemix.ingest_id": ingest_id,
        "lakemix.source": source,
        "lakemix.version": _version(),
    }
    # Quarantine first: if we stop between the two commits, the rerun re-reads the files
    # (documents were not committed) but finds their quarantine rows already in the ledger.
    if q_entries:
        result.quarantine_snapshot_id = _commit(cat, RAW_QUARANTINE, q_entries, q_files, props)
    if doc_entries:
        result.documents_snapshot_id = _commit(cat, RAW_DOCUMENTS, doc_entries, doc_files, props)
    return result


def _mapping(fmt: str, overrides: dict[str, Any]) -> FieldMapping:
    from lakemix.ingest import mapping

    base = mapping.HPLT if fmt == "hplt" else mapping.JSONL
    return base.with_overrides(**overrides)


def _read(
    path: Path, fmt: str, mapping: FieldMapping, max_bytes: int, bar: Any
) -> Iterator[Document | Rejected]:
    """Every item of one file; a broken file or stream ends as one more rejected record."""
    reader = formats.reader_for(fmt, mapping, max_bytes)
    start = bar.n
    last = 0
    try:
        opened = open_file(path)  # reads the first bytes (compression, UTF-16)
    except OSError as exc:
        yield Rejected(0, None, f"cannot open file: {exc.strerror or exc}")
        return
    except read_errors() as exc:
        yield Rejected(0, None, f"unreadable stream at its start: {type(exc).__name__}: {exc}")
        return
    try:
        for n, item in enumerate(reader(path, opened), 1):
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
) -> int | None:
    """Add the data files of ``entries`` not yet in the table's ledger, as one snapshot."""

    def attempt(table: Table) -> int | None:
        done = ingested_files(table)
        fresh = [e for e in entries if e.sha256 not in done]
        stale = [e for e in entries if e.sha256 in done]
        for entry in stale:  # a concurrent ingest committed the same content first
            for path in data_files.get(entry.sha256, []):
                table.io.delete(path)
            data_files.pop(entry.sha256, None)
        if not fresh:
            return None
        paths = [p for e in fresh for p in data_files.get(e.sha256, [])]
        properties = {**props, **ledger_properties(fresh)}
        if paths:
            table.add_files(paths, snapshot_properties=properties)
        else:  # only a record that these files were read: an empty snapshot carries it
            from lakemix.ingest.schema import arrow_schema

            table.append(arrow_schema(table.schema()).empty_table(), snapshot_properties=properties)
        return _snapshot_of(table.refresh(), props["lakemix.ingest_id"])

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
