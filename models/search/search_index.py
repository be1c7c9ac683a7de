"""The full-text index of search_documents: a Tantivy index on local disk beside the DuckDB
file (lakemix.search.index_path), brought up to date with the rows that changed since the last
build (lakemix.search.sync), and the table macro search.match_documents(query_text) over it.
The rows to (re-)index are read with the views of the text-holding tables narrowed to the data
files that hold them (lakemix.iceberg.views.narrowed): new documents are in the files this
build wrote, so the build does not decode every text. One row: what this build changed."""

from datetime import UTC, datetime


def model(dbt, session):
    import pyarrow as pa

    from lakemix import tables
    from lakemix.catalog import catalog
    from lakemix.iceberg.views import narrowed
    from lakemix.search import index_path, sync_index
    from lakemix.search.sql import macro_sql
    from lakemix.settings import Settings

    heap_mb = dbt.config.meta_get("writer_heap_mb")
    batch_rows = dbt.config.meta_get("batch_rows")
    rebuild = dbt.config.meta_get("rebuild")
    documents = dbt.ref("search_documents")
    settings = Settings.from_env()
    path = index_path(settings)
    texts = (tables.CLEAN_DOCUMENTS, tables.LANGUAGE_SCORED)  # search_documents' text columns
    result = sync_index(
        session,
        documents.sql_query(),
        path,
        heap_bytes=int(heap_mb) * 1_000_000,
        batch_rows=int(batch_rows),
        rebuild=str(rebuild).lower() == "true",
        narrow=lambda ids: narrowed(session, catalog(settings), texts, ids),
    )
    session.execute(macro_sql(dbt.this.schema, path))
    # The DuckDB fts index of earlier lakemix versions (GBs at 1M documents) is no longer read.
    session.execute(f"drop schema if exists fts_{dbt.this.schema}_search_documents cascade")
    return pa.table(
        {
            "index_path": [str(path)],
            "document_count": pa.array([result.documents], pa.int64()),
            "added_count": pa.array([result.added], pa.int64()),
            "deleted_count": pa.array([result.deleted], pa.int64()),
            "segment_count": pa.array([result.segments], pa.int64()),
            "is_rebuilt": [result.rebuilt],
            "synced_at": pa.array([datetime.now(UTC)], pa.timestamp("us", tz="UTC")),
        }
    )
