"""User-defined functions: pure functions over Arrow arrays, registered in DuckDB for dbt models.

Each module has its function(s) and a ``register(conn)`` that adds them to a DuckDB
connection; ``register_all`` adds every lakemix UDF (the dbt plugin calls it).
"""

from __future__ import annotations

from lakemix.udf import langid, minhash, tokens
from lakemix.udf.langid import identify_language, text_script
from lakemix.udf.minhash import jaccard_estimate, minhash_bands, minhash_signatures
from lakemix.udf.registry import register_all, release
from lakemix.udf.tokens import token_counts, token_ids

__all__ = [
    "identify_language",
    "jaccard_estimate",
    "langid",
    "minhash",
    "minhash_bands",
    "minhash_signatures",
    "register_all",
    "release",
    "text_script",
    "token_counts",
    "token_ids",
    "tokens",
]
