"""dbt-duckdb integration: the ``lakemix`` plugin and the ``iceberg`` materialization's store."""
