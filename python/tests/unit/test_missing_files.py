"""A lost table file, whoever reads it, becomes one line naming the table and ``lakemix verify``."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from lakemix.iceberg.missing import MissingTableFileError, describe, missing_files


def test_duckdb_pyarrow_and_s3_messages_name_the_table(tmp_path: Path) -> None:
    lost = tmp_path / "warehouse" / "marts" / "fct_clean_documents" / "data" / "x-00000.parquet"
    with pytest.raises(MissingTableFileError) as caught, missing_files():
        duckdb.connect().execute(f"select * from read_parquet('{lost}')")
    message = str(caught.value)
    assert message.startswith("marts.fct_clean_documents: a file of the table is missing: ")
    assert str(lost) in message and "lakemix verify" in message and "\n" not in message

    with (
        pytest.raises(MissingTableFileError, match=r"^raw\.documents: a file of the table is miss"),
        missing_files(),
    ):
        pq.read_table(tmp_path / "wh" / "raw.db" / "documents" / "data" / "f.parquet")

    remote = OSError("AWS Error NO_SUCH_KEY: s3://bucket/lake/raw/quarantine/data/q.parquet")
    described = describe(remote)
    assert described is not None and "raw.quarantine" in str(described)
    assert "s3://bucket/lake/raw/quarantine/data/q.parquet" in str(described)


def test_duckdb_iceberg_scan_s3_url_is_named_as_the_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """iceberg_scan names an object by its endpoint URL (message as DuckDB 1.5.5 prints it on
    SeaweedFS): the line names it s3://bucket/key, as the catalog and lakemix verify do."""
    monkeypatch.setenv("LAKEMIX_WAREHOUSE", "s3://lakemix-test/lake")
    monkeypatch.setenv("LAKEMIX_S3_ENDPOINT", "http://127.0.0.1:8333")
    key = "lakemix-test/lake/marts/fct_probe/data/00000-0-2ce9.parquet"
    error = duckdb.HTTPException(
        f"HTTP Error: HTTP GET error reading 'http://127.0.0.1:8333/{key}' in region "
        "'us-east-1' (HTTP 404 Not Found)\n\nNoSuchKey: The specified key does not exist."
    )
    described = str(describe(error))
    assert described.startswith(f"marts.fct_probe: a file of the table is missing: s3://{key} (")
    monkeypatch.setenv("LAKEMIX_S3_ENDPOINT", "http://127.0.0.1:9999")  # another server's URL
    assert f"missing: http://127.0.0.1:8333/{key} (" in str(describe(error))


def test_other_errors_pass_through(tmp_path: Path) -> None:
    assert describe(ValueError(f"{tmp_path}/a/b/data/c.parquet")) is None  # not an IO error
    assert describe(FileNotFoundError(tmp_path / "notes.txt")) is None  # not a table's file
    with pytest.raises(duckdb.CatalogException), missing_files():
        duckdb.connect().execute("select * from no_such_table")
