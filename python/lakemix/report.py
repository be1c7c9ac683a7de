"""Plain-text summaries printed by the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

if TYPE_CHECKING:
    from lakemix.ingest import IngestResult
    from lakemix.mix.plan import MixPlan


def table(rows: Sequence[Sequence[object]], header: Sequence[str], out: TextIO) -> None:
    """Print ``rows`` as an aligned table; numbers are right-aligned."""
    cells = [[str(h) for h in header]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(isinstance(r[i], int | float) for r in rows) for i in range(len(header))]
    for n, r in enumerate(cells):
        out.write(
            "  ".join(
                c.rjust(w) if numeric[i] else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()
            + "\n"
        )
        if n == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def _fmt(value: object) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.3f}"
    return str(value)


def print_ingest(result: IngestResult, out: TextIO) -> None:
    """Per-file and total counts of one ingest."""
    rows = [(f.path, f.status, f.read, f.documents, f.quarantined, f.note) for f in result.files]
    table(rows, ("file", "status", "read", "ingested", "quarantined", "note"), out)
    out.write(
        f"\nsource {result.source}: {len(result.files)} files, "
        f"{result.total('read'):,} records read, "
        f"{result.total('documents'):,} ingested, {result.total('quarantined'):,} quarantined, "
        f"{result.skipped} files skipped (already ingested)\n"
    )
    not_stored: dict[str, int] = {}
    for f in result.files:
        for reason, n in f.not_stored.items():
            not_stored[reason] = not_stored.get(reason, 0) + n
    if not_stored:
        counts = sorted(not_stored.items(), key=lambda kv: (-kv[1], kv[0]))
        out.write(
            "records read but not stored (not pages): "
            + ", ".join(f"{n:,} {reason}" for reason, n in counts)
            + "\n"
        )
    if result.documents_snapshot_id is not None:
        out.write(
            f"{RAW_DOCUMENTS} snapshot {result.documents_snapshot_id} (ingest {result.ingest_id})\n"
        )
    elif result.quarantine_snapshot_id is not None:
        out.write(
            f"{RAW_QUARANTINE} snapshot {result.quarantine_snapshot_id} "
            f"(ingest {result.ingest_id})\n"
        )
    elif result.failed:
        out.write(
            f"nothing ingested: {len(result.unreadable)} file(s) not read (the note of each says "
            "why)\n"
        )
    elif result.files and not result.read_files:
        out.write("nothing new to ingest: every file was already ingested\n")


def print_ingests(out: TextIO) -> None:
    """Every ingest still in the raw tables (``lakemix ingests``), oldest first."""
    from lakemix.catalog import catalog
    from lakemix.ingest.history import list_ingests

    records = list_ingests(catalog())
    if not records:
        out.write("no ingests: `lakemix ingest PATH --source NAME` adds files\n")
        return
    rows = [
        (
            r.ingest_id,
            r.committed_at.strftime("%Y-%m-%d %H:%M:%S"),
            r.source,
            len(r.files),
            r.documents,
            r.quarantined,
        )
        for r in records
    ]
    table(rows, ("ingest", "committed (UTC)", "source", "files", "documents", "quarantined"), out)


def print_tables(out: TextIO) -> None:
    """Rows per Iceberg table (pyiceberg's count) and documents per source."""
    from lakemix.catalog import catalog
    from lakemix.iceberg.stats import per_source_counts, table_row_counts

    cat = catalog()
    counts = table_row_counts(cat)
    table(
        [(name, rows, str(snap)) for name, rows, snap in counts], ("table", "rows", "snapshot"), out
    )
    per_source = per_source_counts(cat)
    if per_source:
        out.write("\n")
        table(per_source, ("source", "documents", "quarantined"), out)


def print_plan(plan: MixPlan, out: TextIO) -> None:
    """The per-language table of a mix plan."""
    spec = plan.spec
    setting = {"temperature": f"alpha {spec.alpha}", "unimax": f"max epochs {spec.max_epochs}"}
    out.write(
        f"mix {spec.name}: {spec.strategy} ({setting.get(spec.strategy, 'explicit weights')}), "
        f"budget {spec.token_budget:,} {spec.tokenizer} tokens, seed {spec.seed}\n"
    )
    rows = [
        (
            p.language,
            round(p.available_tokens),
            f"{p.target_share:.2%}",
            f"{p.feasible_share:.2%}",
            round(p.sampled_tokens),
            p.epochs,
            p.note,
        )
        for p in plan.languages
    ]
    table(rows, ("language", "available", "target", "feasible", "sampled", "epochs", "note"), out)
    total = sum(p.sampled_tokens for p in plan.languages)
    out.write(f"total sampled: {round(total):,} tokens\n")
