"""Full-text search over every document: a Tantivy index kept up to date by ``dbt build``.

``search`` (Python and ``lakemix search``), ``search.match_documents(query)`` (SQL on the DuckDB
file), ``sync_index`` (the ``search_index`` model). The index lives in ``index_path``: a folder
on local disk beside the DuckDB file.
"""

from __future__ import annotations

from lakemix.search.index import SearchIndexError, index_path
from lakemix.search.query import SearchError, SearchHit, SearchQueryError, match, search
from lakemix.search.sync import SyncResult, sync_index

__all__ = [
    "SearchError",
    "SearchHit",
    "SearchIndexError",
    "SearchQueryError",
    "SyncResult",
    "index_path",
    "match",
    "search",
    "sync_index",
]
