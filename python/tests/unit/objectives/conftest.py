"""A DuckDB session with the marts the objectives read, empty."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest


@pytest.fixture
def conn() -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    connection.execute("create schema marts")
    connection.execute(
        "create table marts.fct_clean_documents (document_id varchar, source_id varchar, "
        "language varchar, url varchar, token_count bigint, character_count bigint, "
        "language_score double, pii_email_count bigint default 0, pii_ip_address_count bigint "
        "default 0, pii_phone_number_count bigint default 0, pii_credit_card_count bigint "
        "default 0, text varchar default 'x')"
    )
    connection.execute(
        "create table marts.fct_document_rejections (document_id varchar, source_id varchar, "
        "language varchar, duplicate_of_document_id varchar)"
    )
    yield connection
    connection.close()
