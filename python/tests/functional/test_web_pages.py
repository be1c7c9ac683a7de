"""Web archives and HTML pages through the pipeline: ingest keeps the page as fetched with what
its archive says of it, the build extracts its main text (the language comes from that text),
and another extractor refuses an incremental build until a full refresh re-extracts."""

from __future__ import annotations

import gzip
import hashlib
import io
import shutil
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from lakemix import catalog, duck
from lakemix.iceberg import ensure_table
from lakemix.ingest import IngestInputError, ingest, remote
from lakemix.ingest.schema import DOCUMENTS_SCHEMA, arrow_schema
from lakemix.lineage.rows import fetched_record
from lakemix.settings import Settings
from lakemix.storage import filesystem
from lakemix.tables import PAGES_EXTRACTED, RAW_DOCUMENTS
from lakemix.udf.registry import register_all
from tests.conftest import CORPORA, UNREVIEWED, WEB, copied_release, dbt, run, services_env
from tests.functional.test_s3 import S3_VARIABLES

LAKEMIX = str(Path(sys.executable).with_name("lakemix"))
WHIRLWIND = CORPORA / "html" / "commoncrawl_whirlwind"
PAGES = sorted((CORPORA / "html" / "trafilatura_eval" / "pages").glob("*.html.gz"))[:4]


# (URL, fetched, extra HTTP headers, extra <head> markup) of a crawl with one page per URL rule
CRAWL = [
    ("https://casino.example/poker", "2024-03-01", [], ""),
    ("https://example.net/private/notes", "2024-03-01", [], ""),
    ("https://example.net/free-xxx-pictures", "2024-03-01", [], ""),
    ("https://example.net/sexy-teen-cams", "2024-03-01", [], ""),
    ("https://mypornhubmirror.example.net/x", "2024-03-01", [], ""),
    ("https://example.net/opted-out", "2024-03-01", [("X-Robots-Tag", "noai")], ""),
    ("https://example.net/meta-opted-out", "2024-03-01", [], '<meta name="robots" content="noai">'),
    ("https://Example.net:443/story#comments", "2024-01-01", [], ""),
    ("https://example.net/story", "2024-06-01", [], ""),
    ("https://example.net/public/essay", "2024-03-01", [], ""),
]
URL_RULES = {
    "https://casino.example/poker": "url_blocklist:gambling",
    "https://example.net/private/notes": "url_blocklist:do-not-train",
    "https://example.net/free-xxx-pictures": "url_banned_word",
    "https://example.net/sexy-teen-cams": "url_soft_banned_words",
    "https://mypornhubmirror.example.net/x": "url_banned_subword",
    "https://example.net/opted-out": "url_opt_out",
    "https://example.net/meta-opted-out": "url_opt_out",
    "https://Example.net:443/story#comments": "url_fetched_again",
}


def write_crawl(path: Path) -> None:
    """A WARC of one short article per URL of ``CRAWL``, fetched when it says."""
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=True)
        for i, (url, fetched, headers, head) in enumerate(CRAWL):
            body = (
                f"<html><head><title>Page {i}</title>{head}</head><body><article><p>"
                + f"Article number {i} tells a story of its own in plain words. " * 20
                + "</p></article></body></html>"
            ).encode()
            http = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8"), *headers], "HTTP/1.1"
            )
            record = writer.create_warc_record(
                url,
                "response",
                payload=io.BytesIO(body),
                http_headers=http,
                warc_headers_dict={"WARC-Date": f"{fetched}T00:00:00Z"},
            )
            writer.write_record(record)


def rows(settings: Settings, sql: str) -> list[tuple[object, ...]]:
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    register_all(conn)  # the staging view calls the normalization UDF
    try:
        return [tuple(r) for r in conn.execute(sql).fetchall()]
    finally:
        conn.close()


def test_pages_are_ingested_as_fetched_and_extracted_in_the_build(
    lakehouse: Settings, tmp_path: Path
) -> None:
    out = run([LAKEMIX, "ingest", str(WHIRLWIND), "--source", "cc"]).stdout
    assert "records read but not stored (not pages): 2 warcinfo record" in out
    pages = tmp_path / "pages"
    pages.mkdir()
    for page in PAGES:
        shutil.copy(page, pages / page.name)
    assert ingest([pages], source="pages").total("documents") == len(PAGES)
    ingest([WEB / "dolma_cc_en_head"], source="dolma", fmt="jsonl")
    write_crawl(tmp_path / "crawl.warc.gz")
    ingest([tmp_path / "crawl.warc.gz"], source="crawl")
    ut1 = tmp_path / "blacklists" / "gambling" / "domains"
    ut1.parent.mkdir(parents=True)
    ut1.write_text("casino.example\n")
    added = run([LAKEMIX, "blocklist", "add", str(ut1.parent.parent), "--name", "ut1"]).stdout
    assert added == "ut1: 1 domains in category gambling\n"
    (tmp_path / "mine.txt").write_text("example.net/private/notes/\n")
    dnt = ["--name", "mine", "--kind", "url", "--category", "do-not-train"]
    run([LAKEMIX, "blocklist", "add", str(tmp_path / "mine.txt"), *dnt])

    raw = catalog(lakehouse).load_table(RAW_DOCUMENTS).scan().to_arrow().to_pylist()
    [page] = [r for r in raw if r["source"] == "cc" and r["content_type"] == "text/html"]
    assert page["url"] == "https://an.wikipedia.org/wiki/Escopete" and page["http_status"] == 200
    assert page["record_id"] == "urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6"
    assert page["payload_digest"] == "sha1:RY7PLBUFQNI2FFV5FTUQK72W6SNPXLQU"
    assert (page["record_offset"], page["record_length"]) == (1023, 17351)
    assert page["fetched_at"].isoformat() == "2024-05-18T01:58:10+00:00"
    assert {r["content_type"] for r in raw if r["source"] == "dolma"} == {None}

    dbt("build", tmp=tmp_path)
    extracted = dict(
        rows(lakehouse, "select document_id, text from intermediate.int_pages_extracted")
    )
    assert len(extracted) == 1 + len(PAGES) + len(CRAWL)
    assert all("<" not in text[:500] for text in extracted.values())
    german = gzip.decompress(PAGES[0].read_bytes()).decode("utf-8", "replace")
    assert len(min(extracted.values(), key=len)) < len(german) / 5
    languages = rows(
        lakehouse,
        "select l.source_id, l.language, length(l.text) from "
        "intermediate.int_documents_language_scored l where l.source_id in ('cc', 'pages')",
    )
    assert len(languages) == 2 + len(PAGES)  # the WET record's text too
    assert all(lang != "und" for _, lang, _ in languages)
    # each page ends kept or rejected with a reason (the staging accounting test holds)
    ended = rows(
        lakehouse,
        "select count(*) from (select document_id from marts.fct_clean_documents union all "
        "select document_id from marts.fct_document_rejections) where document_id in "
        "(select document_id from intermediate.int_pages_extracted)",
    )
    assert ended == [(1 + len(PAGES) + len(CRAWL),)]

    # each URL rule rejects its page, with the rule's name; the rest fail none of them
    failed = rows(
        lakehouse,
        "select d.url, list_filter(coalesce(r.failed_rule_names, []), n -> n like 'url%') "
        "from staging.stg_raw__documents d left join marts.fct_document_rejections r "
        "using (document_id) where d.source_id = 'crawl'",
    )
    assert dict(failed) == {url: [URL_RULES[url]] if url in URL_RULES else [] for url, *_ in CRAWL}
    [(reason,)] = rows(
        lakehouse,
        "select list_filter(failed_rules, f -> f.rule = 'url_blocklist:gambling')[1] "
        "from marts.fct_document_rejections where failed_rules is not null "
        "and list_contains(failed_rule_names, 'url_blocklist:gambling')",
    )
    assert reason["threshold_source"] == "ut1" and reason["signal"] == "host"
    # the whirlwind page and its WET conversion are one fetch of one URL: one of them is kept
    by_rule = dict(
        rows(
            lakehouse,
            "select rule, sum(rejected_document_count) from marts.fct_rule_rejections "
            "where rule like 'url%' group by rule",
        )
    )
    assert by_rule == {
        **{"url_blocklist:gambling": 1, "url_blocklist:do-not-train": 1, "url_opt_out": 2},
        **{"url_banned_word": 1, "url_soft_banned_words": 1, "url_banned_subword": 1},
        "url_fetched_again": 2,
    }
    again = rows(
        lakehouse,
        "select d.source_id, d.url from staging.stg_raw__documents d "
        "join marts.fct_document_rejections r using (document_id) "
        "where list_contains(r.failed_rule_names, 'url_fetched_again') order by 1",
    )
    assert again == [
        ("cc", "https://an.wikipedia.org/wiki/Escopete"),
        ("crawl", "https://Example.net:443/story#comments"),
    ]

    [(casino,)] = rows(
        lakehouse,
        "select document_id from staging.stg_raw__documents where url like '%casino%'",
    )
    explained = run([LAKEMIX, "lineage", str(casino)]).stdout
    assert "url_blocklist:gambling (host on block list ut1)" in explained

    # lineage: the page's archive fields, the extraction step, and the record as fetched
    shown = run([LAKEMIX, "lineage", page["document_id"]]).stdout
    assert "record_offset: 1023" in shown and "http_status: 200" in shown
    assert "extraction:\n    extractor: resiliparse (default)\n    main_text_characters:" in shown
    fetched = run([LAKEMIX, "lineage", page["document_id"], "--fetched"]).stdout
    assert fetched.startswith("warc-type: response\n") and "\n\nHTTP/1.1 200 OK" in fetched

    # a benchmark added after the build: the next (incremental) one checks every document
    # against it and rejects the page that holds one of its items' 13-word n-grams
    planted = tmp_path / "planted.jsonl"
    planted.write_text(
        '{"id": "q1", "question": "Article number 9 tells a story of its own in plain words.'
        ' Article number 9 tells what?", "answer": "A story."}\n'
        '{"id": "q2", "question": "Too short to check?", "answer": "Yes."}\n'
    )
    added = run([LAKEMIX, "benchmark", "add", str(planted), "--name", "planted"]).stdout
    assert added.startswith("planted: 2 items\nplanted: 1 items of fewer than 13 words")
    dbt("build", tmp=tmp_path)
    contaminated = rows(
        lakehouse,
        "select d.url, r.failed_rules from marts.fct_document_rejections r "
        "join staging.stg_raw__documents d using (document_id) "
        "where list_contains(r.failed_rule_names, 'decontamination:planted')",
    )
    assert [url for url, _ in contaminated] == ["https://example.net/public/essay"]
    [failure] = [f for f in contaminated[0][1] if f["family"] == "decontamination"]
    assert failure["threshold_source"] == "q1" and failure["value"] >= 1

    # another extractor: the incremental build refuses, the full refresh re-extracts
    other = "{lakemix_extractor: trafilatura}"
    refused = dbt("build", "--vars", other, tmp=tmp_path, check=False)
    assert refused.returncode != 0 and "--full-refresh" in refused.stdout
    dbt("build", "--full-refresh", "--vars", other, tmp=tmp_path)
    again = dict(rows(lakehouse, "select document_id, text from intermediate.int_pages_extracted"))
    assert again.keys() == extracted.keys() and again != extracted


def test_a_raw_table_of_an_earlier_lakemix_gains_the_page_columns(
    lakehouse: Settings, tmp_path: Path
) -> None:
    old = Schema(*DOCUMENTS_SCHEMA.fields[:12])
    table = ensure_table(catalog(lakehouse), RAW_DOCUMENTS, old)
    row = {
        "document_id": "d1",
        "source": "old",
        "url": None,
        "file": "/old.jsonl",
        "file_sha256": "0" * 64,
        "offset": 0,
        "line_number": 1,
        "ingested_at": datetime(2026, 1, 1, tzinfo=UTC),
        "ingest_id": "i1",
        "text": "An  old   document.",
        "metadata": None,
        "is_utf8_repaired": False,
    }
    table.append(pa.Table.from_pylist([row], schema=arrow_schema(old)))
    # the staging model reads the columns the table does not have yet as NULL
    dbt("run", "--select", "stg_raw__documents", tmp=tmp_path)
    staged = rows(
        lakehouse, "select text, content_type, record_offset from staging.stg_raw__documents"
    )
    assert staged == [("An old document.", None, None)]
    ingest([WHIRLWIND], source="cc")
    table = catalog(lakehouse).load_table(RAW_DOCUMENTS)
    assert {"content_type", "record_offset"} <= set(table.schema().column_names)
    scanned = table.scan().to_arrow()
    assert scanned.num_rows == 3 and scanned["content_type"].null_count == 1


def test_archives_on_s3_are_ingested_once_and_their_records_read_again(
    lakehouse: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = services_env(*S3_VARIABLES)
    monkeypatch.setenv("LAKEMIX_S3_ENDPOINT", server["LAKEMIX_TEST_S3_ENDPOINT"])
    monkeypatch.setenv("AWS_REGION", server["LAKEMIX_TEST_S3_REGION"])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", server["LAKEMIX_TEST_S3_ACCESS_KEY_ID"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", server["LAKEMIX_TEST_S3_SECRET_ACCESS_KEY"])
    prefix = f"{server['LAKEMIX_TEST_S3_BUCKET']}/inputs-{uuid.uuid4().hex[:12]}"
    fs, _ = filesystem(remote.s3_settings(), f"s3://{prefix}")
    for name in ("whirlwind.warc.gz", "whirlwind.warc.wet.gz", "LICENSE"):
        with fs.open_output_stream(f"{prefix}/crawl/{name}", compression=None) as out:
            out.write((WHIRLWIND / name).read_bytes())
    try:
        first = ingest([f"s3://{prefix}/crawl/"], source="cc", fmt="warc")
        by_file = {f.path.rsplit("/", 1)[-1]: f for f in first.files}
        assert by_file["LICENSE"].status == "not read"
        assert by_file["whirlwind.warc.gz"].documents == 1
        local = hashlib.sha256((WHIRLWIND / "whirlwind.warc.gz").read_bytes()).hexdigest()
        assert by_file["whirlwind.warc.gz"].sha256 == local  # the object's bytes, as stored
        assert by_file["whirlwind.warc.wet.gz"].documents == 1
        assert not list((lakehouse.home / "spool").iterdir())  # each copy removed after
        raw = catalog(lakehouse).load_table(RAW_DOCUMENTS).scan().to_arrow().to_pylist()
        [page] = [r for r in raw if r["content_type"] == "text/html"]
        assert page["file"] == f"s3://{prefix}/crawl/whirlwind.warc.gz"
        again = ingest([f"s3://{prefix}/crawl/whirlwind.warc.gz"], source="cc")
        assert again.total("documents") == 0 and again.skipped == 1
        fetched = fetched_record(page["document_id"], settings=lakehouse)
        assert "warc-target-uri: https://an.wikipedia.org/wiki/Escopete" in fetched
        with pytest.raises(IngestInputError, match="no such object or prefix"):
            ingest([f"s3://{prefix}/nothing-here/"], source="cc")
    finally:
        fs.delete_dir(f"{prefix}")


def test_a_lakehouse_built_before_extraction_is_told_to_build_not_given_a_trace(
    demo_release: Path, tmp_path: Path
) -> None:
    with copied_release(demo_release, tmp_path) as settings:
        catalog(settings).drop_table(PAGES_EXTRACTED)  # as a lakemix before pages left it
        refused = run([LAKEMIX, "release", "demo_unimax", "--tag", "v2", *UNREVIEWED], check=False)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert f"{PAGES_EXTRACTED}, a model the mix depends on, was never built" in refused.stderr
    assert "run `dbt build`, then release" in refused.stderr
