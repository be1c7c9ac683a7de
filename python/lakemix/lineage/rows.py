"""Row lineage: one document from its raw file and offset through every decision to releases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakemix import tables
from lakemix.catalog import catalog as open_catalog
from lakemix.lineage.project import LineageError
from lakemix.settings import Settings
from lakemix.versions.refs import connect_at, scan_at
from lakemix.versions.release import list_releases

if TYPE_CHECKING:
    import duckdb
    from pyiceberg.catalog import Catalog

# Each step: a title, the table, and the columns shown for the document.
STEPS = (
    ("language", tables.LANGUAGE_SCORED, "language, script, language_score"),
    ("quality model", tables.QUALITY_SCORED, "quality_score"),
    ("quality", tables.QUALITY_FILTERED, "is_kept, failed_rules"),
    (
        "deduplication",
        tables.DEDUPLICATED,
        "cluster_id, cluster_size, cluster_kind, is_cluster_kept, kept_document_id, duplicate_kind",
    ),
    (
        "redaction",
        tables.PII_REDACTED,
        "pii_email_count, pii_ip_address_count, pii_phone_number_count, pii_credit_card_count",
    ),
    ("tokens", tables.TOKENIZED, "tokenizer, token_count"),
)
RAW_COLUMNS = (
    'source, url, file, file_sha256, "offset", line_number, ingest_id, ingested_at, '
    "is_utf8_repaired, length(text) as characters"
)
# What a fetched page's archive said of it (columns a lakehouse of an earlier lakemix may lack).
PAGE_COLUMNS = (
    "content_type",
    "charset",
    "http_status",
    "fetched_at",
    "record_id",
    "payload_digest",
    "record_offset",
    "record_length",
)


def _one(conn: duckdb.DuckDBPyConnection, sql: str, document_id: str) -> dict[str, Any] | None:
    import duckdb

    try:
        result = conn.execute(sql, [document_id])
    except duckdb.CatalogException:
        return None  # the table is not built yet
    row = result.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in result.description or []], row, strict=True))


def _ingest_snapshot(catalog: Catalog, ingest_id: str) -> int | None:
    table = catalog.load_table(tables.RAW_DOCUMENTS)
    for snapshot in table.metadata.snapshots:
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        if extra.get("lakemix.ingest_id") == ingest_id:
            return snapshot.snapshot_id
    return None


def _page(conn: duckdb.DuckDBPyConnection, document_id: str) -> dict[str, Any] | None:
    """A fetched page's columns of ``raw.documents`` (None for a text or a table without them)."""
    import duckdb

    try:
        found = _one(
            conn,
            f"select {', '.join(PAGE_COLUMNS)} from {tables.RAW_DOCUMENTS} where document_id = ?",
            document_id,
        )
    except duckdb.BinderException:  # raw.documents of an earlier lakemix: no page columns
        return None
    return found if found is not None and found["content_type"] is not None else None


def fetched_record(document_id: str, *, settings: Settings | None = None) -> str:
    """A fetched page as its archive holds it: the record's headers, then its block (the HTTP
    response), read again from the file the page was ingested from.

    Raises:
        LineageError: No raw document has this id, or it is not a page of a web archive.
        RecordNotFoundError: The archive no longer holds the record there.
    """
    from lakemix.ingest.webarchive import record_at

    settings = settings or Settings.from_env()
    conn = connect_at(None, settings=settings, catalog=open_catalog(settings))
    try:
        raw = _one(
            conn,
            f'select file, "offset", charset from {tables.RAW_DOCUMENTS} where document_id = ?',
            document_id,
        )
        page = _page(conn, document_id)
    finally:
        conn.close()
    if raw is None:
        raise LineageError(f"no raw document has id {document_id!r}")
    if page is None or (page["http_status"] is None and page["record_id"] is None):
        raise LineageError(f"document {document_id} is not a record of a web archive")
    record = record_at(
        raw["file"],
        offset=raw["offset"],
        record_offset=page["record_offset"],
        record_length=page["record_length"],
    )
    head = "\n".join(f"{name}: {value}" for name, value in record.headers.items())
    body = (record.block or b"").decode(raw["charset"] or "utf-8", errors="replace")
    return f"{head}\n\n{body}"


def document_lineage(document_id: str, *, settings: Settings | None = None) -> dict[str, Any]:
    """Everything the lakehouse knows about one document, step by step.

    Returns:
        ``raw`` (source, file, offset, ingest and its snapshot), one entry per step (language,
        quality rules, deduplication cluster, redaction, tokens; None where the document never
        reached it), ``outcome`` (clean or rejected and why), ``mixes`` (repeats and split in
        each built mix) and ``releases`` (the releases whose mix contains it).

    Raises:
        LineageError: No raw document has this id.
    """
    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    conn = connect_at(None, settings=settings, catalog=catalog)
    try:
        return _lineage(conn, catalog, settings, document_id)
    finally:
        conn.close()


def _lineage(
    conn: duckdb.DuckDBPyConnection, catalog: Catalog, settings: Settings, document_id: str
) -> dict[str, Any]:
    sql = f"select {RAW_COLUMNS} from {tables.RAW_DOCUMENTS} where document_id = ?"
    raw = _one(conn, sql, document_id)
    if raw is None:
        raise LineageError(f"no raw document has id {document_id!r}")
    raw["ingest_snapshot_id"] = _ingest_snapshot(catalog, raw["ingest_id"])
    page = _page(conn, document_id)
    raw.update({k: v for k, v in (page or {}).items() if v is not None})
    found: dict[str, Any] = {"document_id": document_id, "raw": raw}
    if page is not None and page["content_type"] == "text/html":
        found["extraction"] = _one(
            conn,
            f"select length(text) as main_text_characters from {tables.PAGES_EXTRACTED} "
            "where document_id = ?",
            document_id,
        )
        if found["extraction"] is not None:  # which extractor, as built
            from lakemix.dbt.cache_key import recorded_setting

            extracted = catalog.load_table(tables.PAGES_EXTRACTED)
            extractor = recorded_setting(extracted, "extractor") or "resiliparse (default)"
            found["extraction"] = {"extractor": extractor, **found["extraction"]}
    for title, table, columns in STEPS:
        sql = f"select {columns} from {table} where document_id = ?"
        found[title] = _one(conn, sql, document_id)
    if found["quality model"] is not None:  # which model scored it: its digest, as built
        from lakemix.dbt.cache_key import recorded_setting

        scored = catalog.load_table(tables.QUALITY_SCORED)
        found["quality model"]["model_sha256"] = recorded_setting(scored, "quality_model")
    sql = f"select 1 from {tables.CLEAN_DOCUMENTS} where document_id = ?"
    clean = _one(conn, sql, document_id)
    rejected = _one(
        conn,
        "select failed_rule_names, duplicate_of_document_id "
        f"from {tables.DOCUMENT_REJECTIONS} where document_id = ?",
        document_id,
    )
    found["outcome"] = "clean" if clean else ({"rejected": rejected} if rejected else "not built")
    names = (tables.mix_of(name) for _, name in catalog.list_tables(tables.MARTS))
    mixes = sorted(name for name in names if name is not None)
    found["mixes"] = {
        mix: _one(
            conn,
            f"select repeat_count, split from {tables.mix_table(mix)} where document_id = ?",
            document_id,
        )
        for mix in mixes
    }
    found["releases"] = []
    for manifest in list_releases(settings):
        mix = catalog.load_table(tables.mix_table(manifest.mix))
        member = _one(
            conn,
            f"select repeat_count, split from {scan_at(mix, manifest.tag)} where document_id = ?",
            document_id,
        )
        if member:
            found["releases"].append({"tag": manifest.tag, "mix": manifest.mix, **member})
    return found


def _failure_text(rule: dict[str, Any]) -> str:
    """One failed rule as the lineage says it: the measured value against the threshold, for
    a URL rule (int_documents_url_filtered) what matched where, for decontamination the item."""
    name, signal, source = rule["rule"], rule["signal"], rule.get("threshold_source")
    if rule.get("family") == "decontamination":
        return f"{name} ({rule['value']:g} {signal} shared with item {source})"
    if rule.get("family") != "url":
        return (
            f"{name} ({signal} {rule['value']} {rule['operator']} {rule['threshold']}"
            f"{', ' + source if source else ''})"
        )
    if name.startswith("url_blocklist:"):
        return f"{name} ({signal} on block list {source})"
    if name == "url_opt_out":
        return f"{name} ({source})"
    if name == "url_fetched_again":
        return f"{name} (a later fetch of the URL is kept: {source})"
    return (
        f"{name} ({rule['value']:g} of the seed's words in {signal}, rejected from "
        f"{rule['threshold']:g}; seed {source})"
    )


def format_document(lineage: dict[str, Any]) -> str:
    """The lineage of a document as indented text, in pipeline order."""
    lines = [f"document {lineage['document_id']}"]

    def section(title: str, value: Any) -> None:
        if value is None:
            lines.append(f"  {title}: (not reached)")
        elif isinstance(value, dict):
            lines.append(f"  {title}:")
            lines.extend(f"    {k}: {v}" for k, v in value.items())
        else:
            lines.append(f"  {title}: {value}")

    section("raw", lineage["raw"])
    if "extraction" in lineage:
        section("extraction", lineage["extraction"])
    for title, _, _ in STEPS:
        step = lineage[title]
        if title == "quality" and step is not None:
            rules = step["failed_rules"] or []
            failed = [_failure_text(r) for r in rules]
            step = {"is_kept": step["is_kept"], "failed": "; ".join(failed) or "none"}
        section(title, step)
    section("outcome", lineage["outcome"])
    lines.append("  mixes:")
    for name, member in lineage["mixes"].items():
        placed = f"{member['repeat_count']} x, {member['split']}" if member else "not sampled"
        lines.append(f"    {name}: {placed}")
    releases = ", ".join(
        f"{r['tag']} ({r['mix']}: {r['repeat_count']} x, {r['split']})" for r in lineage["releases"]
    )
    lines.append(f"  releases: {releases or 'none'}")
    return "\n".join(lines)
