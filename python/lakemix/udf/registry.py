"""Register every lakemix UDF on a DuckDB connection."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# Modules with a ``register(conn)``; imported when registering, not at import time.
MODULES = (
    *("components", "extract", "jaccard", "langid", "minhash", "normalize", "pii", "quality"),
    *("ngrams", "quality_model", "tokens", "urls"),
)


def register_all(conn: duckdb.DuckDBPyConnection) -> None:
    """Add every lakemix UDF (``lakemix_language``, ``lakemix_minhash_bands``, ...) to ``conn``."""
    for name in MODULES:
        importlib.import_module(f"lakemix.udf.{name}").register(conn)


def release(name: str) -> None:
    """Drop what UDF module ``name`` loaded on first use (its ``release()``), where it has one.

    Raises:
        ValueError: If ``name`` is no UDF module with a ``release()``.
    """
    module = importlib.import_module(f"lakemix.udf.{name}") if name in MODULES else None
    if module is None or not hasattr(module, "release"):
        modules = {m: importlib.import_module(f"lakemix.udf.{m}") for m in MODULES}
        known = ", ".join(m for m, found in modules.items() if hasattr(found, "release"))
        raise ValueError(f"no UDF module {name!r} to release; known: {known}")
    module.release()
