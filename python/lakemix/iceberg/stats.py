"""Row counts read from Iceberg metadata (no data file is opened)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


def row_count(table: Table) -> int:
    """Rows in the current snapshot, from the manifests' record counts: the data files' rows
    less those their position deletes hide (lakemix writes each deleted row once:
    ``lakemix.iceberg.row_delta``)."""
    from lakemix.iceberg.row_delta import deleted_share

    share = deleted_share(table)
    return share.stored - share.deleted


def null_count(table: Table, column: str) -> int | None:
    """NULLs of a top-level ``column`` in the current snapshot, from the data files' column
    metrics; ``None`` when the metadata cannot tell exactly (a data file has no null count for
    the column, or holds NULLs and has a delete file, which may delete some of them: then
    scan). A file without NULLs has none left whatever its deletes (a synced mart's old files
    all carry position deletes, and its text has no NULL: counting them read every text)."""
    field_id = table.schema().find_field(column).field_id
    total = 0
    for task in table.scan().plan_files():
        counts = task.file.null_value_counts or {}
        if field_id not in counts:
            return None
        if counts[field_id] and task.delete_files:
            return None
        total += counts[field_id]
    return total


def table_row_counts(catalog: Catalog) -> list[tuple[str, int, int | None]]:
    """(namespace.table, rows, current snapshot id) for every table, sorted by name."""
    out = []
    for namespace in sorted(catalog.list_namespaces()):
        for ident in sorted(catalog.list_tables(namespace)):
            table = catalog.load_table(ident)
            snap = table.current_snapshot()
            out.append((".".join(ident), row_count(table), snap.snapshot_id if snap else None))
    return out


def per_source_counts(catalog: Catalog) -> list[tuple[str, int, int]]:
    """(source, documents, quarantined records) from the raw tables, via DuckDB ``iceberg_scan``."""
    from pyiceberg.exceptions import NoSuchTableError

    from lakemix import duck
    from lakemix.tables import RAW_DOCUMENTS, RAW_QUARANTINE

    try:
        docs = catalog.load_table(RAW_DOCUMENTS)
    except NoSuchTableError:
        return []
    conn = duck.connect()
    sql = f"select source, count(*) from iceberg_scan('{docs.metadata_location}') group by all"
    counts = {s: [n, 0] for s, n in conn.execute(sql).fetchall()}
    try:
        q = catalog.load_table(RAW_QUARANTINE)
        sql = f"select source, count(*) from iceberg_scan('{q.metadata_location}') group by all"
        for s, n in conn.execute(sql).fetchall():
            counts.setdefault(s, [0, 0])[1] = n
    except NoSuchTableError:
        pass
    return sorted((s, d, q_) for s, (d, q_) in counts.items())
