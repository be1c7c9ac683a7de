"""Which build's vars a release records: the build that wrote the clean documents, not the
mix's own build after it (``lakemix mix build`` passes only ``lakemix_mix``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from lakemix.catalog import catalog as open_catalog
from lakemix.iceberg import ensure_table
from lakemix.settings import Settings
from lakemix.tables import CLEAN_DOCUMENTS
from lakemix.versions import builds
from tests.conftest import ROOT

FILTERS = {"lakemix_filter_families": ["language", "fineweb"]}


def record_builds(settings: Settings, *recorded: tuple[str, dict[str, Any]]) -> None:
    """``main.lakemix_builds`` as the ``record_build_result`` hook writes it, oldest first."""
    settings.duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    conn = duckdb.connect(str(settings.duckdb_path))
    conn.execute(
        "create table main.lakemix_builds (invocation_id varchar, finished_at timestamptz, "
        "is_passed boolean, failures json, cli_vars json)"
    )
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for i, (invocation, cli_vars) in enumerate(recorded):
        conn.execute(
            "insert into main.lakemix_builds values (?, ?, true, '[]', ?)",
            [invocation, start + timedelta(minutes=i), orjson.dumps(cli_vars).decode()],
        )
    conn.close()


def write_clean(settings: Settings, invocation: str) -> None:
    """A snapshot of the clean documents written by dbt invocation ``invocation``."""
    rows = pa.table({"document_id": ["d1"]})
    table = ensure_table(open_catalog(settings), CLEAN_DOCUMENTS, rows.schema)
    table.append(rows, snapshot_properties={"lakemix.dbt_invocation_id": invocation})


def test_the_vars_are_those_of_the_build_that_wrote_the_clean_documents(
    lakehouse: Settings,
) -> None:
    record_builds(lakehouse, ("filters", FILTERS), ("mix", {"lakemix_mix": "demo_unimax"}))
    write_clean(lakehouse, "filters")
    assert builds.last_build(lakehouse)["invocation_id"] == "mix"
    found = builds.data_vars(open_catalog(lakehouse), lakehouse, ROOT)
    assert found["lakemix_filter_families"] == FILTERS["lakemix_filter_families"]
    assert found["lakemix_minhash_bands"] == 14  # the rest from dbt_project.yml
    assert "lakemix_mix" not in found


def test_a_clean_snapshot_of_an_unrecorded_invocation_gives_the_last_builds_vars(
    lakehouse: Settings,
) -> None:
    record_builds(lakehouse, ("mix", {"lakemix_mix": "demo_unimax"}), ("filters", FILTERS))
    write_clean(lakehouse, "a-dbt-run")  # `dbt run` records no build
    found = builds.data_vars(open_catalog(lakehouse), lakehouse, ROOT)
    assert found["lakemix_filter_families"] == FILTERS["lakemix_filter_families"]
    assert builds.build_of(lakehouse, "a-dbt-run") is None
    assert builds.build_of(lakehouse, "filters") is not None
