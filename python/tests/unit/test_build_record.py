"""meta.builds: a build's outcome and thresholds, recorded in the catalog and read back."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from lakemix import catalog
from lakemix.dbt.build_record import latest_build, record_build
from lakemix.settings import Settings
from lakemix.versions.builds import BuildStateError, last_build

SEED = [{"language": "*", "rule": "gopher_min_words", "threshold": 50.0}]


def test_the_last_recorded_build_is_read_back(lakehouse: Settings) -> None:
    cat = catalog(lakehouse)
    assert latest_build(cat) is None
    with pytest.raises(BuildStateError, match="no dbt build yet"):
        last_build(lakehouse)
    record_build(
        cat,
        "first",
        is_passed=False,
        failures_json='["model.lakemix.x: error"]',
        vars_json="{}",
        thresholds_json=None,
    )
    record_build(
        cat,
        "second",
        is_passed=True,
        failures_json="[]",
        vars_json='{"full_tests": true}',
        thresholds_json=orjson.dumps(SEED).decode(),
    )
    found = last_build(lakehouse)  # from the catalog: no DuckDB file exists
    assert not lakehouse.duckdb_path.exists()
    assert found["invocation_id"] == "second" and found["is_passed"] is True
    assert found["failures"] == [] and found["cli_vars"] == {"full_tests": True}
    assert found["quality_thresholds"] == SEED


@pytest.mark.parametrize(
    ("field", "value"),
    [("failures_json", '{"a": 1}'), ("vars_json", "[1]"), ("thresholds_json", '"x"')],
)
def test_a_malformed_record_is_refused(lakehouse: Settings, field: str, value: str) -> None:
    arguments: dict[str, Any] = {"failures_json": "[]", "vars_json": "{}"}
    arguments |= {"thresholds_json": None, field: value}
    with pytest.raises(ValueError, match="JSON"):
        record_build(catalog(lakehouse), "bad", is_passed=True, **arguments)
    assert latest_build(catalog(lakehouse)) is None
