"""Small helpers over pyiceberg shared by ingest, the dbt plugin and the CLI."""

from __future__ import annotations

from lakemix.iceberg.commit import commit_with_retry
from lakemix.iceberg.tables import ensure_namespace, ensure_table, local_path

__all__ = ["commit_with_retry", "ensure_namespace", "ensure_table", "local_path"]
