"""Web archives and HTML pages: every record type and compression, where each record lies, and
the records that break (truncated, malformed, undecodable, oversized, charsets that lie).

The archives are written here with warcio (the reference WARC writer), from real pages of
../shared/corpora/html.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections import Counter
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from lakemix.ingest.pages import Skipped, decode_payload, read_html, read_warc
from lakemix.ingest.records import Document, Rejected
from tests.conftest import CORPORA

HTML = CORPORA / "html"
WHIRLWIND = HTML / "commoncrawl_whirlwind"
PAGES = sorted((HTML / "trafilatura_eval" / "pages").glob("*.html.gz"))[:3]
LIMIT = 64 << 20


def _response(writer: WARCWriter, url: str, body: bytes, headers: list[tuple[str, str]]) -> None:
    http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
    record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
    writer.write_record(record)


def write_warc(path: Path, *, per_record_gzip: bool = True, extra: bool = True) -> list[str]:
    """A WARC of the three pages (plus a request, an image, a 404 and a metadata record when
    ``extra``); returns the pages' URLs."""
    urls = []
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=per_record_gzip)
        for i, page in enumerate(PAGES):
            url = f"https://example.org/page/{i}"
            urls.append(url)
            if extra:
                request = writer.create_warc_record(
                    url, "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                )
                writer.write_record(request)
            _response(
                writer,
                url,
                gzip.decompress(page.read_bytes()),
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Language", "de")],
            )
        if extra:
            _response(
                writer, "https://example.org/a.png", b"\x89PNG....", [("Content-Type", "image/png")]
            )
            http = StatusAndHeaders(
                "404 Not Found", [("Content-Type", "text/html")], protocol="HTTP/1.1"
            )
            gone = writer.create_warc_record(
                "https://example.org/gone",
                "response",
                payload=io.BytesIO(b"<html>gone</html>"),
                http_headers=http,
            )
            writer.write_record(gone)
            meta = writer.create_warc_record(
                "https://example.org/page/0",
                "metadata",
                payload=io.BytesIO(b"fetchTimeMs: 12\r\n"),
                warc_content_type="application/warc-fields",
            )
            writer.write_record(meta)
    return urls


def read(path: Path, limit: int = LIMIT) -> list[Document | Skipped | Rejected]:
    with path.open("rb") as f:
        return list(read_warc(io.BufferedReader(f), limit))


def documents(items: list[Document | Skipped | Rejected]) -> list[Document]:
    return [i for i in items if isinstance(i, Document)]


def test_per_record_gzip_gives_each_page_and_where_it_lies(tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    urls = write_warc(path)
    items = read(path)
    docs = documents(items)
    assert [d.url for d in docs] == urls
    skipped = Counter(i.reason for i in items if isinstance(i, Skipped))
    assert skipped == {
        "request record": 3,
        "content type image/png": 1,
        "HTTP status 404": 1,
        "metadata record": 1,
    }
    assert not [i for i in items if isinstance(i, Rejected)]
    data = path.read_bytes()
    for doc in docs:
        assert doc.content_type == "text/html" and doc.http_status == 200
        assert doc.record_id and doc.payload_digest and doc.fetched_at is not None
        assert doc.metadata == '{"http":{"content-language":"de"}}'
        # one range read and one gunzip give the record back
        assert doc.record_offset is not None and doc.record_length is not None
        member = data[doc.record_offset : doc.record_offset + doc.record_length]
        decoder = zlib.decompressobj(wbits=31)
        record = decoder.decompress(member)
        assert decoder.eof and not decoder.unused_data
        assert record.startswith(b"WARC/1.") and f"WARC-Target-URI: {doc.url}".encode() in record
    page = gzip.decompress(PAGES[0].read_bytes()).decode("utf-8")
    assert docs[0].text == page


@pytest.mark.parametrize("compression", ["whole-file gzip", "none"])
def test_other_compressions_read_the_same_pages(tmp_path: Path, compression: str) -> None:
    plain = tmp_path / "crawl.warc"
    write_warc(plain, per_record_gzip=False)
    path = plain
    if compression == "whole-file gzip":
        path = tmp_path / "whole.warc.gz"
        path.write_bytes(gzip.compress(plain.read_bytes()))
    expected = documents(read(tmp_path / "crawl.warc"))
    docs = documents(read(path))
    assert [(d.url, d.text, d.offset) for d in docs] == [
        (d.url, d.text, d.offset) for d in expected
    ]
    assert all(d.record_offset is None and d.record_length is None for d in docs)
    raw = plain.read_bytes()
    assert all(raw[d.offset :].startswith(b"WARC/1.") for d in docs)


def test_common_crawl_warc_and_wet() -> None:
    [page] = documents(read(WHIRLWIND / "whirlwind.warc.gz"))
    assert page.url == "https://an.wikipedia.org/wiki/Escopete" and page.charset == "utf-8"
    assert page.text.lstrip().lower().startswith("<!doctype html")
    [text] = documents(read(WHIRLWIND / "whirlwind.warc.wet.gz"))
    assert text.content_type == "text/plain" and text.url == page.url
    assert "Escopete" in text.text and "<" not in text.text[:200]
    assert documents(read(WHIRLWIND / "whirlwind.warc.wat.gz")) == []


def test_a_truncated_last_member_keeps_the_records_before_it(tmp_path: Path) -> None:
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, extra=False)
    whole = documents(read(path))
    data = path.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: whole[-1].record_offset + 200])  # type: ignore[operator]
    items = read(cut)
    assert [d.url for d in documents(items)] == [d.url for d in whole[:-1]]
    [rejected] = [i for i in items if isinstance(i, Rejected)]
    assert "cut off" in rejected.reason
    # a corrupt member in the middle: the records before it are kept, and it is named
    bad = bytearray(data)
    start = whole[1].record_offset
    assert start is not None
    bad[start + 30 : start + 60] = b"\x00" * 30
    corrupt = tmp_path / "corrupt.warc.gz"
    corrupt.write_bytes(bytes(bad))
    items = read(corrupt)
    assert [d.url for d in documents(items)] == [whole[0].url]
    assert any(isinstance(i, Rejected) and "corrupt gzip member" in i.reason for i in items)


def test_malformed_records_are_rejected_and_reading_goes_on(tmp_path: Path) -> None:
    good = tmp_path / "good.warc"
    write_warc(good, per_record_gzip=False, extra=False)
    body = good.read_bytes()
    broken = (
        b"this is not a record\r\nnor this\r\n\r\n"
        + b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: many\r\n\r\n"
        + body
    )
    path = tmp_path / "broken.warc"
    path.write_bytes(broken)
    items = read(path)
    reasons = [i.reason for i in items if isinstance(i, Rejected)]
    assert reasons[0].startswith("not a WARC or ARC record")
    assert reasons[1] == "malformed WARC record: Content-Length many"
    assert len(documents(items)) == 3
    # a record whose block ends before its Content-Length
    short = tmp_path / "short.warc"
    short.write_bytes(body[: len(body) - 500])
    items = read(short)
    assert len(documents(items)) == 2
    assert any(isinstance(i, Rejected) and i.reason.startswith("record truncated") for i in items)


def test_a_record_over_the_limit_is_skipped_not_loaded(tmp_path: Path) -> None:
    path = tmp_path / "big.warc.gz"
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=True)
        big = b"<html><body><p>" + b"word " * (1 << 20) + b"</p></body></html>"  # 5 MB
        _response(writer, "https://example.org/big", big, [("Content-Type", "text/html")])
        _response(
            writer, "https://example.org/small", b"<p>small</p>", [("Content-Type", "text/html")]
        )
    items = read(path, limit=1 << 20)
    assert [type(i).__name__ for i in items] == ["Rejected", "Document"]
    assert items[0].reason == f"record longer than {1 << 20} bytes"  # type: ignore[union-attr]
    assert [d.url for d in documents(read(path))] == [
        "https://example.org/big",
        "https://example.org/small",
    ]


def test_fifty_megabyte_page(tmp_path: Path) -> None:
    path = tmp_path / "huge.warc.gz"
    page = (
        b"<html><body>"
        + b"<p>A paragraph of the page.</p>\n" * (50 * (1 << 20) // 32)
        + b"</body></html>"
    )
    with path.open("wb") as f:
        _response(
            WARCWriter(f, gzip=True),
            "https://example.org/huge",
            page,
            [("Content-Type", "text/html")],
        )
    [doc] = documents(read(path))
    assert len(doc.text) == len(page) and doc.record_length == path.stat().st_size


def test_charsets_that_lie_and_charsets_that_are_only_in_the_page() -> None:
    utf8 = "<html><body>Grüße aus Köln</body></html>".encode()
    decoded = decode_payload(utf8, "iso-8859-1")  # the header lies: the bytes are UTF-8
    assert not isinstance(decoded, str) and decoded.charset == "utf-8" and "Grüße" in decoded.text
    cyrillic = '<html><head><meta charset="windows-1251"></head><body>Привет, мир</body></html>'
    decoded = decode_payload(cyrillic.encode("cp1251"), None)
    assert not isinstance(decoded, str) and decoded.charset == "cp1251" and "Привет" in decoded.text
    latin = "<p>Café crème</p>".encode("latin-1")
    decoded = decode_payload(latin, "ISO-8859-1")
    assert not isinstance(decoded, str) and decoded.charset == "cp1252" and "Café" in decoded.text
    sjis = "<p>日本語のページです。東京都の天気は晴れ。</p>".encode("shift_jis")
    decoded = decode_payload(sjis, None)  # declared nowhere: guessed
    assert not isinstance(decoded, str) and "東京都" in decoded.text


def test_chunked_and_gzip_encoded_payloads(tmp_path: Path) -> None:
    body = gzip.compress(b"<html><body><p>Encoded page</p></body></html>")
    chunked = (
        b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:10], body[10:]))
        + b"0\r\n\r\n"
    )
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Encoding: gzip\r\n\r\n" + chunked
    )
    record = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.org/e\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        + f"Content-Length: {len(http)}\r\n\r\n".encode()
        + http
        + b"\r\n\r\n"
    )
    path = tmp_path / "encoded.warc"
    path.write_bytes(record)
    [doc] = documents(read(path))
    assert doc.text == "<html><body><p>Encoded page</p></body></html>"
    brotli = record.replace(b"Content-Encoding: gzip", b"Content-Encoding: br  ")
    path.write_bytes(brotli)
    [rejected] = read(path)
    assert isinstance(rejected, Rejected) and rejected.reason == "content encoding br is not read"


def test_arc_records(tmp_path: Path) -> None:
    page = (
        b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>An old page</body></html>"
    )
    filedesc = b"1 0 Example\nURL IP-address Archive-date Content-type Archive-length\n"
    arc = (
        f"filedesc://old.arc 0.0.0.0 19990101000000 text/plain {len(filedesc)}\n".encode()
        + filedesc
        + b"\n"
        + f"http://example.com/ 10.0.0.1 19990102030405 text/html {len(page)}\n".encode()
        + page
        + b"\n"
    )
    path = tmp_path / "old.arc.gz"
    path.write_bytes(gzip.compress(arc))
    items = read(path)
    [doc] = documents(items)
    assert doc.url == "http://example.com/" and doc.text.endswith("An old page</body></html>")
    assert doc.fetched_at is not None and doc.fetched_at.isoformat() == "1999-01-02T03:04:05+00:00"
    assert [i.reason for i in items if isinstance(i, Skipped)] == ["warcinfo record"]


def test_an_html_file_is_one_page() -> None:
    with gzip.open(PAGES[0]) as f:
        [doc] = list(read_html(f, LIMIT))  # type: ignore[arg-type]
    assert isinstance(doc, Document) and doc.content_type == "text/html" and doc.url is None
    [too_long] = list(read_html(io.BytesIO(b"<p>" * 100), 200))
    assert isinstance(too_long, Rejected) and too_long.reason == "document longer than 200 bytes"
