"""dbt's ``target`` for sqlfluff's jinja templater: the DuckDB target of profiles.yml."""

from __future__ import annotations

type = "duckdb"  # dbt names it so
name = "dev"
database = "lakemix"
schema = "main"
