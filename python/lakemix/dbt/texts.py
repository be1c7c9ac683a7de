"""The text store's SQL functions, for the dbt models (macros ``store_text``, ``stored_text``).

``lakemix_store_text(target, replace, content_hash, text)`` returns ``content_hash`` (the md5 of
``text``: macro ``store_text``) and writes the texts of the rows a model run passes through it
to a new segment of the text store (``lakemix.text_store``), which the plugin commits after the
run's rows (``commit``). A run that fails leaves its segment uncommitted; the texts in it are
still right (their keys are their MD5), so a later run of the model in the same process commits
them with its own. ``lakemix_stored_text(content_hash)`` reads a text back, null when the store
lacks it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    import duckdb
    import pyarrow as pa

    from lakemix.text_store import TextStore, Writer


class TextFunctions:
    """The SQL functions over one ``TextStore``, and the segments model runs are writing."""

    def __init__(self, store: TextStore) -> None:
        self.store = store
        self._writers: dict[str, Writer] = {}
        self._lock = threading.Lock()

    def register(self, conn: duckdb.DuckDBPyConnection) -> None:
        """Add ``lakemix_store_text`` and ``lakemix_stored_text`` to ``conn``."""
        from duckdb.func import ARROW, SPECIAL
        from duckdb.sqltypes import BOOLEAN, VARCHAR

        conn.create_function(
            "lakemix_store_text",
            lambda target, replace, hashes, texts: self._store_text(target, replace, hashes, texts),
            [VARCHAR, BOOLEAN, VARCHAR, VARCHAR],
            VARCHAR,
            type=ARROW,
            side_effects=True,
        )
        conn.create_function(
            "lakemix_stored_text",
            lambda hashes: self.store.lookup(hashes),
            [VARCHAR],
            VARCHAR,
            type=ARROW,
            null_handling=SPECIAL,  # a hash the store lacks gives null
            side_effects=True,  # the store grows during a run: never fold or cache a call
        )

    def _store_text(self, target: Any, replace: Any, hashes: Any, texts: Any) -> pa.Array:
        if len(hashes):
            self._writer(str(target[0]), replace=bool(replace[0].as_py())).write(hashes, texts)
        return hashes

    def _writer(self, target: str, *, replace: bool) -> Writer:
        with self._lock:
            writer = self._writers.get(target)
            if writer is None or writer.replace != replace:
                if writer is not None:
                    writer.discard()
                writer = self._writers[target] = self.store.writer(replace=replace)
            return writer

    def commit(self, target: str) -> Path | None:
        """Commit the texts ``target``'s run wrote (after its rows): the new segment, or None.
        Then merge the segments of many incremental runs (``TextStore.compact``)."""
        with self._lock:
            writer = self._writers.pop(target, None)
        if writer is None:
            return None
        segment = writer.commit()
        self.store.compact()
        return segment
