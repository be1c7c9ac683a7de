"""A content checksum of a mix that does not depend on row order or partitioning."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

_MOD = 1 << 64


def mix_checksum(conn: duckdb.DuckDBPyConnection, mix_scan: str, clean_scan: str) -> str:
    """``<rows>-<128-bit hex>``: the sum, modulo 2^64 per half, of the MD5 of every row.

    A row is the document id, its repeat count, its split and the MD5 of the (redacted) text
    the loader will read, so the checksum changes when membership, repeats, splits or text do.

    Args:
        conn: A DuckDB session with the Iceberg extension.
        mix_scan: SQL relation of the mix (``iceberg_scan(...)`` at some snapshot).
        clean_scan: SQL relation of ``marts.fct_clean_documents`` at the matching snapshot.
    """
    row = conn.execute(
        f"""
        with rows_keyed as (
            select concat_ws('|', mix.document_id, mix.repeat_count, mix.split, md5(clean.text))
                as row_key
            from {mix_scan} as mix
            left join {clean_scan} as clean using (document_id)
        )
        select
            count(*),
            coalesce(sum(md5_number_upper(row_key)), 0),
            coalesce(sum(md5_number_lower(row_key)), 0)
        from rows_keyed
        """
    ).fetchone()
    assert row is not None
    count, upper, lower = (int(v) for v in row)
    return f"{count}-{upper % _MOD:016x}{lower % _MOD:016x}"
