"""``lakemix verify``: every file the catalog references exists, has its size and reads.

For each table, the snapshots checked (the current one, a release's tag, or every tag) are
walked through their manifest lists and manifests to the data and delete files. Each file is
opened through the table's FileIO (local disk or ``s3://`` alike), its size compared with the
manifest's, and its Parquet footer read; its row count is compared with the manifest's. That
reads a few kilobytes per file, so it finds a file lost, cut short or grown, not one damaged
inside its pages: ``deep`` reads and decodes every page (every byte of every file; the summary
line says how many) and checks the pages' CRCs where the writer stored them. Problems are
reported per table with the way to repair them: rebuild a model, take a raw file's ingest out
(``lakemix ingest-remove``, which never reads the files it drops) and ingest its input files
again, or restore from a copy of the warehouse.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakemix.catalog import DamagedTableError
from lakemix.catalog import catalog as open_catalog
from lakemix.errors import LakemixError
from lakemix.ingest.history import live_ingests
from lakemix.ingest.ledger import INGEST_PROPERTY
from lakemix.settings import Settings
from lakemix.tables import INTERMEDIATE, MARTS, RAW, SNAPSHOTS, STAGING, mix_of_any

if TYPE_CHECKING:
    from pyiceberg.io import FileIO
    from pyiceberg.table import Table

MODEL_NAMESPACES = (STAGING, INTERMEDIATE, MARTS, SNAPSHOTS)


class VerifyError(LakemixError, ValueError):
    """``verify`` was asked for something that does not exist (a tag no table has)."""


@dataclass(frozen=True)
class Problem:
    """One file that is missing, the wrong size, unreadable or holding other rows."""

    path: str
    kind: str  # "missing", "size", "unreadable", "rows", "metadata"
    detail: str
    refs: tuple[str, ...]  # the snapshots that reference it: "current", "tag v1", ...
    ingest_id: str | None = None  # raw tables: the ingest whose snapshot added the file


@dataclass(frozen=True)
class IngestInputs:
    """A live ingest of a raw table that a damaged file belongs to: what to ingest again."""

    source: str
    paths: tuple[str, ...]


@dataclass
class TableReport:
    """What ``verify`` found in one table."""

    name: str
    files: int = 0
    bytes: int = 0  # of the files checked (what ``deep`` reads)
    deep: bool = False  # every page was read
    snapshots: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ingests: dict[str, IngestInputs] = field(default_factory=dict)  # live ones with problems

    @property
    def ok(self) -> bool:
        """Every file checked is there, complete and readable."""
        return not self.problems


def _refs(table: Table, tag: str | None, all_tags: bool) -> dict[int, list[str]]:
    """Snapshot id -> the names it is checked under."""
    chosen: dict[int, list[str]] = {}
    current = table.metadata.current_snapshot_id
    if tag is None and current is not None:
        chosen.setdefault(current, []).append("current")
    for name, ref in table.metadata.refs.items():
        if ref.snapshot_ref_type != "tag":
            continue
        if all_tags or name == tag:
            chosen.setdefault(ref.snapshot_id, []).append(f"tag {name}")
    return chosen


def check_file(
    io: FileIO, path: str, size: int, rows: int, *, deep: bool
) -> tuple[str, str] | None:
    """``(kind, detail)`` of what is wrong with one data or delete file, or None.

    Opens the file through ``io`` (so ``s3://`` works like a local path), compares its size
    with the manifest's, reads its Parquet footer and compares the footer's row count with the
    manifest's; ``deep`` decodes every row group and counts its rows too, checking the
    pages' CRCs where the writer stored them.
    """
    import pyarrow.parquet as pq

    source = io.new_input(path)
    try:
        if not source.exists():
            return "missing", "no such file"
        actual = len(source)
    except OSError as exc:
        return "missing", f"cannot stat: {exc}"
    if actual != size:
        return "size", f"{actual:,} bytes, the manifest records {size:,}"
    try:
        with source.open() as stream:
            parquet = pq.ParquetFile(stream, page_checksum_verification=deep)
            footer_rows = parquet.metadata.num_rows
            if footer_rows != rows:
                return "rows", f"footer says {footer_rows:,} rows, the manifest {rows:,}"
            if deep:
                read = sum(
                    parquet.read_row_group(i).num_rows for i in range(parquet.num_row_groups)
                )
                if read != rows:
                    return "rows", f"{read:,} rows read, the manifest records {rows:,}"
    except Exception as exc:  # any decoding error of a damaged file is a finding, not a crash
        return "unreadable", f"{type(exc).__name__}: {exc}"
    return None


def verify_table(table: Table, *, tag: str | None, all_tags: bool, deep: bool) -> TableReport:
    """Check every data and delete file of the chosen snapshots of ``table``."""
    name = ".".join(table.name()[-2:])
    report = TableReport(name, deep=deep)
    chosen = _refs(table, tag, all_tags)
    seen: dict[str, Problem | None] = {}
    referenced_by: dict[str, list[str]] = {}
    added_by: dict[str, int | None] = {}
    io = table.io
    for snapshot_id, names in chosen.items():
        report.snapshots.extend(names)
        snapshot = table.snapshot_by_id(snapshot_id)
        if snapshot is None:
            report.problems.append(
                Problem(str(snapshot_id), "metadata", "snapshot not in metadata", tuple(names))
            )
            continue
        try:
            entries = [
                entry
                for manifest in snapshot.manifests(io)
                for entry in manifest.fetch_manifest_entry(io, discard_deleted=True)
            ]
        except Exception as exc:  # a lost manifest list or manifest
            report.problems.append(
                Problem(
                    snapshot.manifest_list, "metadata", f"{type(exc).__name__}: {exc}", tuple(names)
                )
            )
            continue
        for entry in entries:
            data = entry.data_file
            path = data.file_path
            referenced_by.setdefault(path, []).extend(names)
            if path in seen:
                continue
            added_by[path] = entry.snapshot_id
            report.bytes += data.file_size_in_bytes
            found = check_file(io, path, data.file_size_in_bytes, data.record_count, deep=deep)
            seen[path] = None if found is None else Problem(path, found[0], found[1], ())
    report.files = len(seen)
    ingest_of = _ingests_by_snapshot(table) if name.partition(".")[0] == RAW else {}
    for path, problem in seen.items():
        if problem is not None:
            refs = tuple(dict.fromkeys(referenced_by[path]))
            added = added_by[path]
            ingest_id = ingest_of.get(added) if added is not None else None
            report.problems.append(Problem(path, problem.kind, problem.detail, refs, ingest_id))
    if ingest_of:
        live = live_ingests(table)
        for ingest_id in {p.ingest_id for p in report.problems if "current" in p.refs}:
            if ingest_id in live:
                ledger = live[ingest_id][2]
                report.ingests[ingest_id] = IngestInputs(
                    source=str(ledger[0]["source"]) if ledger else "",
                    paths=tuple(sorted({str(e["path"]) for e in ledger})),
                )
    return report


def _ingests_by_snapshot(table: Table) -> dict[int, str]:
    """Snapshot id -> the id of the ingest that committed it, for a raw table."""
    found = {}
    for snapshot in table.metadata.snapshots:
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        if INGEST_PROPERTY in extra:
            found[snapshot.snapshot_id] = extra[INGEST_PROPERTY]
    return found


def repair_hint(report: TableReport) -> list[str]:
    """How to put the table's files back, one line each."""
    namespace, _, table_name = report.name.partition(".")
    hints = []
    tags = sorted({r[4:] for p in report.problems for r in p.refs if r.startswith("tag ")})
    current = any("current" in p.refs for p in report.problems)
    if any(p.kind == "metadata" for p in report.problems):
        return [
            f"`lakemix recover-metadata {report.name}` (back to its newest metadata file that "
            "reads; the commits after it are dropped), or restore the table from a backup"
        ]
    if namespace == RAW:
        for ingest_id, inputs in sorted(report.ingests.items()):
            paths = " ".join(shlex.quote(p) for p in inputs.paths)
            hints.append(
                f"`lakemix ingest-remove {ingest_id}` (drops the ingest's files, damaged or not, "
                f"without reading them), then `lakemix ingest {paths} --source "
                f"{shlex.quote(inputs.source)}` (its {len(inputs.paths)} input files again)"
            )
        if any("current" in p.refs and p.ingest_id not in report.ingests for p in report.problems):
            hints.append(
                "restore the files from a copy of the warehouse (raw rows exist nowhere else)"
            )
    elif namespace == MARTS and (mix := mix_of_any(table_name)) is not None and current:
        hints.append(f"`lakemix mix build {mix}`")
    elif namespace in MODEL_NAMESPACES and current:
        hints.append(f"`dbt build --full-refresh --select {table_name}+`")
    elif current:
        hints.append("restore the files from a copy of the warehouse")
    if tags:
        hints.append(
            f"release tag(s) {', '.join(tags)} read these files: restore them from a copy of the "
            "warehouse, or `lakemix rebuild TAG` to check a rebuild gives the same mix"
        )
    return hints


def verify(
    *,
    tag: str | None = None,
    all_tags: bool = False,
    deep: bool = False,
    settings: Settings | None = None,
) -> list[TableReport]:
    """Check every table of the lakehouse (``verify_table``), sorted by name.

    Raises:
        VerifyError: ``tag`` is given and no table has it.
    """
    catalog = open_catalog(settings)
    reports = []
    for namespace in sorted(catalog.list_namespaces()):
        for identifier in sorted(catalog.list_tables(namespace)):
            try:
                table = catalog.load_table(identifier)
            except DamagedTableError as exc:  # named in the report, the others still checked
                reports.append(_damaged_metadata(".".join(identifier[-2:]), str(exc)))
                continue
            if tag is not None and tag not in table.metadata.refs:
                continue
            reports.append(verify_table(table, tag=tag, all_tags=all_tags, deep=deep))
    if tag is not None and not reports:
        raise VerifyError(f"no table has the tag {tag!r}; `lakemix versions` lists the releases")
    return reports


def _damaged_metadata(name: str, message: str) -> TableReport:
    """The report of a table whose current metadata file does not read."""
    detail = message.split(": ", 1)[-1].split("; ", 1)[0]
    problem = Problem(
        path="(current metadata file)", kind="metadata", detail=detail, refs=("current",)
    )
    return TableReport(name=name, snapshots=["current"], problems=[problem])


def format_reports(reports: list[TableReport]) -> str:
    """The per-table lines ``lakemix verify`` prints; the last says what was read (every page,
    or sizes and footers and how many bytes ``--deep`` would read)."""
    lines = []
    for report in reports:
        where = ", ".join(report.snapshots) or "no snapshot"
        if report.ok:
            lines.append(f"ok      {report.name}: {report.files} files ({where})")
            continue
        lines.append(
            f"BROKEN  {report.name}: {len(report.problems)} of {report.files} files ({where})"
        )
        for problem in report.problems:
            refs = f" [{', '.join(problem.refs)}]" if problem.refs else ""
            lines.append(f"        {problem.kind}: {problem.path}: {problem.detail}{refs}")
        lines.extend(f"        repair: {hint}" for hint in repair_hint(report))
    broken = sum(not r.ok for r in reports)
    files = sum(r.files for r in reports)
    size = sum(r.bytes for r in reports) / 1e6
    deep = bool(reports) and all(r.deep for r in reports)
    lines.append(
        f"{len(reports)} tables, {files} files checked: "
        + (f"{broken} tables broken" if broken else "all files present and readable")
        + (
            f" (every page read: {size:,.1f} MB)"
            if deep
            else f" (sizes and footers only: damage inside a file's pages needs `--deep`, "
            f"which reads all {size:,.1f} MB)"
        )
    )
    return "\n".join(lines)


def summary(reports: list[TableReport]) -> dict[str, Any]:
    """Counts for scripts and benchmarks: tables, files, broken tables, problems."""
    return {
        "tables": len(reports),
        "files": sum(r.files for r in reports),
        "broken_tables": sum(not r.ok for r in reports),
        "problems": sum(len(r.problems) for r in reports),
    }
