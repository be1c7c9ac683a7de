"""meta.build_stats: what each ``dbt build`` produced, appended by its on-run-end hook."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa

from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.tables import BUILD_STATS

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

SCHEMA = pa.schema(
    [
        ("invocation_id", pa.string()),
        ("recorded_at", pa.timestamp("us", tz="UTC")),
        # rows, rejection_rate, duplicate_rate, tokens, tests, test_status, duration_seconds;
        # per objective (lakemix.objectives.per_build.BUILD_METRICS): missing_fraction,
        # consistency_deviation, accuracy_lower_bound
        ("metric", pa.string()),
        # the table (rows), rule (rejection_rate), tokenizer (tokens), status (tests), test name
        ("dimension", pa.string()),
        ("language", pa.string()),  # ISO 639 code, '*' for all languages, null if not per language
        ("document_count", pa.int64()),
        ("value", pa.float64()),
        # test_status: pass, warn, fail, error or skipped; an objective: pass or fail
        ("note", pa.string()),
    ]
)


def append_build_stats(
    catalog: Catalog,
    invocation_id: str,
    rows_json: str,
    extra: list[dict[str, Any]] | None = None,
) -> int:
    """Append one build's statistics (a JSON list of rows with SCHEMA's other columns, and
    ``extra`` rows of the same form).

    Returns:
        The number of rows appended.
    """
    rows = [*(orjson.loads(rows_json or "[]") or []), *(extra or [])]
    now = datetime.now(UTC)
    names = [f.name for f in SCHEMA][2:]
    records = [
        {"invocation_id": invocation_id, "recorded_at": now, **{k: row.get(k) for k in names}}
        for row in rows
    ]
    for record in records:
        if not isinstance(record["metric"], str) or not record["metric"]:
            raise ValueError(f"every build statistic needs a metric, got {record!r}")
    table = pa.Table.from_pylist(records, schema=SCHEMA)
    existing = ensure_table(catalog, BUILD_STATS, SCHEMA)
    if {f.name for f in existing.schema().fields} != set(SCHEMA.names):
        with existing.update_schema() as update:  # a table made before a column was added
            update.union_by_name(SCHEMA)
    commit_with_retry(catalog, BUILD_STATS, lambda t: t.append(table))
    return len(records)
