"""The settings key of incremental models: what it holds and when a run is refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from lakemix.dbt.cache_key import PROPERTY, CacheKeyError, check, key_of, recorded


def table_with(properties: dict[str, str] | None) -> Any:
    if properties is None:
        return SimpleNamespace(current_snapshot=lambda: None)
    summary = SimpleNamespace(additional_properties=properties)
    return SimpleNamespace(current_snapshot=lambda: SimpleNamespace(summary=summary))


def test_the_key_is_sorted_settings_and_udf_definitions() -> None:
    key = key_of({"settings": {"seed": 1, "bands": 14}, "udfs": ["minhash", "jaccard"]})
    assert key == '{"settings":{"bands":14,"seed":1},"udfs":{"jaccard":2,"minhash":1}}'
    assert key_of({"settings": {"bands": 14, "seed": 1}, "udfs": ["jaccard", "minhash"]}) == key
    with pytest.raises(ModuleNotFoundError):
        key_of({"udfs": ["nonexistent"]})


def test_a_different_recorded_key_is_refused_with_the_way_out() -> None:
    key = key_of({"settings": {"seed": 1}})
    check(table_with({PROPERTY: key}), "intermediate.m", key)
    check(table_with({}), "intermediate.m", key)  # no key recorded (Spark, older lakemix)
    check(table_with(None), "intermediate.m", key)  # no snapshot yet
    other = key_of({"settings": {"seed": 2}})
    with pytest.raises(CacheKeyError, match=r"dbt run --select m\+ --full-refresh") as raised:
        check(table_with({PROPERTY: other}), "intermediate.m", key)
    assert other in str(raised.value) and key in str(raised.value)
    assert recorded(table_with({PROPERTY: other})) == other


def test_normalization_is_in_the_language_key_and_older_rows_stay_valid() -> None:
    """Normalized text feeds language ID: its definition is in the model's key. Rows stored
    before it was listed (same behaviour, definition 1) are not voided; a later bump is."""
    from pathlib import Path

    import lakemix.udf.normalize as normalize

    model = (
        Path(__file__).parents[3] / "models/intermediate/cleaning/int_documents_language_scored.sql"
    )
    assert "udfs=['langid', 'normalize', 'extract']" in model.read_text()
    now = key_of({"udfs": ["langid", "normalize", "extract"]})
    before = key_of({"udfs": ["langid"]})
    check(table_with({PROPERTY: before}), "intermediate.m", now)
    # main-text extraction joined the key at 1 too: rows of a lakehouse before it stay valid
    check(table_with({PROPERTY: key_of({"udfs": ["langid", "normalize"]})}), "intermediate.m", now)
    bumped = now.replace('"normalize":1', '"normalize":2')
    assert normalize.DEFINITION == 1 and bumped != now
    with pytest.raises(CacheKeyError):
        check(table_with({PROPERTY: before}), "intermediate.m", bumped)
    with pytest.raises(CacheKeyError):
        check(table_with({PROPERTY: now}), "intermediate.m", bumped)
