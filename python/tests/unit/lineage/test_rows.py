"""Row lineage closes its DuckDB session whatever happens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from lakemix.lineage import LineageError, rows
from lakemix.settings import Settings


def test_connection_closed_when_the_document_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[duckdb.DuckDBPyConnection] = []

    def connect_at(version: Any, **_: Any) -> duckdb.DuckDBPyConnection:
        conn = duckdb.connect()
        conn.execute("create schema raw")
        conn.execute(
            "create table raw.documents (document_id varchar, source varchar, url varchar, "
            'file varchar, file_sha256 varchar, "offset" bigint, line_number bigint, '
            "ingest_id varchar, ingested_at timestamp, is_utf8_repaired boolean, text varchar)"
        )
        opened.append(conn)
        return conn

    monkeypatch.setattr(rows, "open_catalog", lambda settings: object())
    monkeypatch.setattr(rows, "connect_at", connect_at)
    with pytest.raises(LineageError, match="no raw document has id 'nope'"):
        rows.document_lineage("nope", settings=Settings.from_env({"LAKEMIX_HOME": str(tmp_path)}))
    assert len(opened) == 1
    with pytest.raises(duckdb.ConnectionException, match="closed"):
        opened[0].execute("select 1")
