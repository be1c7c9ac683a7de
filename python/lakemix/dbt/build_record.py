"""meta.builds: each ``dbt build``'s outcome, in the lakehouse's catalog.

The ``record_build_result`` on-run-end hook appends one row per build (through the plugin's
``lakemix_record_build`` UDF): whether it passed, what failed, its ``--vars``, and the quality
thresholds seed as the build loaded it. Readers (``lakemix report``, ``lakemix release``) take
it from here, not from the DuckDB file, which a running ``dbt build`` holds locked; and a
lakehouse copied or restored as a folder or a bucket prefix keeps it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa

from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.tables import BUILDS

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

SCHEMA = pa.schema(
    [
        ("invocation_id", pa.string()),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("is_passed", pa.bool_()),
        ("failures", pa.string()),  # JSON list of "unique_id: status"
        ("cli_vars", pa.string()),  # JSON object: the build's --vars
        ("quality_thresholds", pa.string()),  # JSON list of the seed's rows; null: not built
    ]
)


def _json_list(raw: str | None, what: str) -> list[Any]:
    found = orjson.loads(raw) if raw else []
    if not isinstance(found, list):
        raise ValueError(f"{what} must be a JSON list, got {raw!r}")
    return found


def record_build(
    catalog: Catalog,
    invocation_id: str,
    *,
    is_passed: bool,
    failures_json: str,
    vars_json: str,
    thresholds_json: str | None,
) -> int:
    """Append one build's outcome to ``meta.builds``.

    Args:
        catalog: The lakehouse's catalog.
        invocation_id: dbt's id of the build.
        is_passed: Every model and error-severity test passed.
        failures_json: JSON list of what failed (``unique_id: status``).
        vars_json: JSON object of the build's ``--vars``.
        thresholds_json: JSON list of the rows of ``seeds.quality_thresholds`` as the build left
            it, or None when the build made no such seed.

    Returns:
        1, the number of rows appended.

    Raises:
        ValueError: ``failures_json`` or ``thresholds_json`` is not a JSON list, or
            ``vars_json`` not a JSON object.
    """
    _json_list(failures_json, "failures")
    if thresholds_json is not None:
        _json_list(thresholds_json, "quality_thresholds")
    variables = orjson.loads(vars_json) if vars_json else {}
    if not isinstance(variables, dict):
        raise ValueError(f"a build's vars must be a JSON object, got {vars_json!r}")
    row = {
        "invocation_id": invocation_id,
        "finished_at": datetime.now(UTC),
        "is_passed": bool(is_passed),
        "failures": failures_json or "[]",
        "cli_vars": orjson.dumps(variables).decode(),
        "quality_thresholds": thresholds_json,
    }
    table = pa.Table.from_pylist([row], schema=SCHEMA)
    ensure_table(catalog, BUILDS, SCHEMA)
    commit_with_retry(catalog, BUILDS, lambda t: t.append(table))
    return 1


def latest_build(catalog: Catalog) -> dict[str, Any] | None:
    """The last build recorded in ``meta.builds``, or None when none is (no build yet, or a
    lakehouse last built before lakemix recorded builds there).

    Returns:
        ``invocation_id``, ``finished_at`` (ISO), ``is_passed``, ``failures`` (list),
        ``cli_vars`` (dict) and ``quality_thresholds`` (list of rows, or None).
    """
    rows = _rows(catalog)
    return _build(max(rows, key=lambda r: r["finished_at"])) if rows else None


def latest_data_build(catalog: Catalog) -> dict[str, Any] | None:
    """The last build recorded in ``meta.builds`` that was not a ``lakemix mix build`` (those
    run dbt with the var ``lakemix_mix`` and build only the mix's models): the build whose tests
    judged the documents. None when none is recorded."""
    rows = [r for r in _rows(catalog) if not orjson.loads(r["cli_vars"]).get("lakemix_mix")]
    return _build(max(rows, key=lambda r: r["finished_at"])) if rows else None


def recorded_build(catalog: Catalog, invocation_id: str) -> dict[str, Any] | None:
    """The build of dbt invocation ``invocation_id`` in ``meta.builds`` (as ``latest_build``
    gives one), or None when it is not recorded there."""
    found = [row for row in _rows(catalog) if row["invocation_id"] == invocation_id]
    return _build(found[0]) if found else None


def _rows(catalog: Catalog) -> list[dict[str, Any]]:
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

    try:
        table = catalog.load_table(BUILDS)
    except (NoSuchTableError, NoSuchNamespaceError):
        return []
    rows: list[dict[str, Any]] = table.scan().to_arrow().to_pylist()
    return rows


def _build(row: dict[str, Any]) -> dict[str, Any]:
    thresholds = row["quality_thresholds"]
    return {
        "invocation_id": row["invocation_id"],
        "finished_at": row["finished_at"].isoformat(),
        "is_passed": bool(row["is_passed"]),
        "failures": orjson.loads(row["failures"]),
        "cli_vars": orjson.loads(row["cli_vars"]),
        "quality_thresholds": orjson.loads(thresholds) if thresholds is not None else None,
    }
