"""Register every lakemix UDF on a DuckDB connection."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# Modules with a ``register(conn)``; imported when registering, not at import time.
MODULES = (
    *("components", "jaccard", "langid", "minhash", "normalize", "pii", "quality", "tokens"),
)


def register_all(conn: duckdb.DuckDBPyConnection) -> None:
    """Add every lakemix UDF (``lakemix_language``, ``lakemix_minhash_bands``, ...) to ``conn``."""
    for name in MODULES:
        importlib.import_module(f"lakemix.udf.{name}").register(conn)
