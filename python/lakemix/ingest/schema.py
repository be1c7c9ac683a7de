"""Iceberg schemas of the raw layer: ``raw.documents`` and ``raw.quarantine``."""

from __future__ import annotations

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)

DOCUMENTS_SCHEMA = Schema(
    NestedField(1, "document_id", StringType(), required=True),
    NestedField(2, "source", StringType(), required=True),
    NestedField(3, "url", StringType(), required=False),
    NestedField(4, "file", StringType(), required=True),
    NestedField(5, "file_sha256", StringType(), required=True),
    NestedField(6, "offset", LongType(), required=True),
    NestedField(7, "line_number", LongType(), required=False),
    NestedField(8, "ingested_at", TimestamptzType(), required=True),
    NestedField(9, "ingest_id", StringType(), required=True),
    NestedField(10, "text", StringType(), required=True),
    NestedField(11, "metadata", StringType(), required=False),
    NestedField(12, "is_utf8_repaired", BooleanType(), required=True),
    # Fetched pages (web archives, HTML files); null for text corpora. Added after the first
    # release: the staging model reads them as null from snapshots written before.
    NestedField(13, "record_id", StringType(), required=False),
    NestedField(14, "content_type", StringType(), required=False),
    NestedField(15, "charset", StringType(), required=False),
    NestedField(16, "http_status", IntegerType(), required=False),
    NestedField(17, "fetched_at", TimestamptzType(), required=False),
    NestedField(18, "payload_digest", StringType(), required=False),
    NestedField(19, "record_offset", LongType(), required=False),
    NestedField(20, "record_length", LongType(), required=False),
)

QUARANTINE_SCHEMA = Schema(
    NestedField(1, "quarantine_id", StringType(), required=True),
    NestedField(2, "source", StringType(), required=True),
    NestedField(3, "file", StringType(), required=True),
    NestedField(4, "file_sha256", StringType(), required=True),
    NestedField(5, "offset", LongType(), required=True),
    NestedField(6, "line_number", LongType(), required=False),
    NestedField(7, "reason", StringType(), required=True),
    NestedField(8, "excerpt", StringType(), required=False),
    NestedField(9, "ingested_at", TimestamptzType(), required=True),
    NestedField(10, "ingest_id", StringType(), required=True),
)


def arrow_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema data files are written with (no field ids: ``add_files`` maps by name)."""
    return pa.schema([field.remove_metadata() for field in schema.as_arrow()])
