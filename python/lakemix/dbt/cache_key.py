"""What an incremental model's stored rows were computed with, so that a changed setting is
refused instead of silently mixing rows of two definitions.

An incremental model keeps the rows of earlier runs; they equal a full rebuild's only while the
settings they were computed with (MinHash vars, the definition of a UDF) stay the same. The
macro ``lakemix.cache_key`` names them; the plugin records the key in the snapshot each run
commits (property ``lakemix.cache_key``) and refuses an incremental run whose key differs from
the one of the current snapshot, naming the full refresh that fixes it. A snapshot without a
key (written by Spark, whose runs do not record one, or by a lakemix before this check) is
taken as it is: the run records its key.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import orjson

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    from pyiceberg.table import Table

PROPERTY = "lakemix.cache_key"


class CacheKeyError(LakemixError, ValueError):
    """An incremental run's settings differ from those of the rows already stored."""


def key_of(spec: dict[str, Any]) -> str:
    """The key of ``{"settings": {...}, "udfs": [module, ...]}``: the settings and each named
    ``lakemix.udf`` module's ``DEFINITION`` (bumped when its results change), as sorted JSON."""
    udfs = {}
    for name in sorted(spec.get("udfs") or []):
        module = importlib.import_module(f"lakemix.udf.{name}")
        udfs[name] = int(module.DEFINITION)
    key = {"settings": spec.get("settings") or {}, "udfs": udfs}
    return orjson.dumps(key, option=orjson.OPT_SORT_KEYS).decode()


def recorded(table: Table) -> str | None:
    """The key recorded by the run behind ``table``'s current snapshot."""
    snapshot = table.current_snapshot()
    if snapshot is None or snapshot.summary is None:
        return None
    value = snapshot.summary.additional_properties.get(PROPERTY)
    return None if value is None else str(value)


def recorded_setting(table: Table, name: str) -> Any:
    """One setting of the key recorded by the run behind ``table``'s current snapshot (None when
    the run recorded no key or no such setting): e.g. the quality model's digest."""
    key = recorded(table)
    if key is None:
        return None
    return (orjson.loads(key).get("settings") or {}).get(name)


def _listed_later(before: str, key: str) -> bool:
    """Whether ``key`` differs from ``before`` only by UDFs at their first definition (1) that
    ``before`` does not list: a UDF added to a model's key after rows were stored under the same
    behaviour (normalization joined the language model's key at 1) does not void them."""
    old, new = orjson.loads(before), orjson.loads(key)
    added = {k: v for k, v in new["udfs"].items() if k not in old.get("udfs", {})}
    if not added or any(v != 1 for v in added.values()):
        return False
    return bool({**old, "udfs": {**old.get("udfs", {}), **added}} == new)


def check(table: Table, identifier: str, key: str) -> None:
    """Raise if ``table``'s current rows recorded a key other than ``key``.

    Raises:
        CacheKeyError: With both keys and the command that rebuilds the model.
    """
    before = recorded(table)
    if before is None or before == key or _listed_later(before, key):
        return
    model = identifier.rsplit(".", 1)[-1]
    raise CacheKeyError(
        f"{identifier} holds rows computed with {before}; this run's are {key}. Its rows would no "
        f"longer equal a full rebuild: rebuild it and what depends on it with "
        f"`dbt run --select {model}+ --full-refresh`"
    )
