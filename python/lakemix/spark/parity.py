"""Fingerprints of what a build produced, to compare two engines' builds of the same tables.

A fingerprint is order-independent (a row count and a 128-bit sum of row hashes, as
``lakemix.versions.checksum``), read through DuckDB from one Iceberg snapshot of each table:
the clean set, the duplicate clusters and the mix, whichever engine wrote them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lakemix.catalog import catalog as open_catalog
from lakemix.settings import Settings
from lakemix.tables import CLEAN_DOCUMENTS, DUPLICATE_CLUSTERS, mix_table

# What a row of each table contributes: its key, and the values both engines must agree on.
_ROW_KEYS = {
    CLEAN_DOCUMENTS: (
        "concat_ws('|', document_id, source_id, language, script, round(language_score, 9),"
        " round(quality_score, 9), md5(text), token_count, duplicate_cluster_size, pii_email_count,"
        " pii_ip_address_count, pii_phone_number_count, pii_credit_card_count)"
    ),
    DUPLICATE_CLUSTERS: (
        "concat_ws('|', cluster_id, cluster_size, cluster_kind, kept_document_id,"
        " array_to_string(member_document_ids, ','))"
    ),
}


@dataclass(frozen=True)
class BuildFingerprint:
    """What one build left in the lakehouse, as comparable strings."""

    clean_documents: str
    duplicate_clusters: str
    mix: str | None

    def differences(self, other: BuildFingerprint) -> list[str]:
        """Names of the parts that differ from ``other`` (empty: the builds agree)."""
        return [
            name
            for name in ("clean_documents", "duplicate_clusters", "mix")
            if getattr(self, name) != getattr(other, name)
        ]


def current_snapshots(tables: list[str], settings: Settings | None = None) -> dict[str, int]:
    """The current snapshot id of each ``schema.table``."""
    catalog = open_catalog(settings)
    snapshots = {}
    for name in tables:
        snapshot = catalog.load_table(name).current_snapshot()
        if snapshot is None:
            raise ValueError(f"{name} has no snapshot: build it first")
        snapshots[name] = snapshot.snapshot_id
    return snapshots


def fingerprint(
    snapshots: Mapping[str, int], *, mix: str | None = None, settings: Settings | None = None
) -> BuildFingerprint:
    """Fingerprint the clean set, the clusters and (with ``mix``) ``marts.mix_<mix>``.

    Args:
        snapshots: Snapshot id per table name (``marts.fct_clean_documents``, ...).
        mix: The mix name, whose table must be in ``snapshots``.
        settings: Where the lakehouse lives.
    """
    from lakemix.duck import connect
    from lakemix.versions.checksum import mix_checksum
    from lakemix.versions.refs import scan_at

    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    conn = connect(settings=settings)
    try:
        scans = {name: scan_at(catalog.load_table(name), snapshots[name]) for name in snapshots}
        parts = {}
        for table, row_key in _ROW_KEYS.items():
            count, upper, lower = conn.execute(
                f"""
                select count(*), coalesce(sum(md5_number_upper({row_key})), 0),
                    coalesce(sum(md5_number_lower({row_key})), 0)
                from {scans[table]}
                """
            ).fetchone() or (0, 0, 0)
            parts[table] = f"{count}-{int(upper) % 2**64:016x}{int(lower) % 2**64:016x}"
        mix_sum = None
        if mix is not None:
            mix_sum = mix_checksum(conn, scans[mix_table(mix)], scans[CLEAN_DOCUMENTS])
        return BuildFingerprint(parts[CLEAN_DOCUMENTS], parts[DUPLICATE_CLUSTERS], mix_sum)
    finally:
        conn.close()
