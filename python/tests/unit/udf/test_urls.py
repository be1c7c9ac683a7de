"""URLs as the URL filters read them: one spelling per page, the parts block lists match, the
words banned words are looked up in, and the opt-outs a page declares."""

from __future__ import annotations

import duckdb
import orjson
import pytest

from lakemix.udf import urls


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        (
            "HTTPS://WWW.Example.COM:443/a/./b/../c d?utm_source=x&q=1#top",
            "https://www.example.com/a/c%20d?q=1",
        ),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:8080/%7euser/%2f?", "http://example.com:8080/~user/%2F"),
        ("http://user:pw@Bücher.de./straße", "http://xn--bcher-kva.de/stra%C3%9Fe"),
        ("  http://example.com/x?b=2&a=1&fbclid=z  ", "http://example.com/x?b=2&a=1"),
    ],
)
def test_spellings_of_one_page_normalize_alike(given: str, normalized: str) -> None:
    parts = urls.url_parts(given)
    assert parts is not None and parts["normalized"] == normalized


@pytest.mark.parametrize(
    "given", ["ftp://example.com/f", "example.com/page", "not a url", "http://", "http://[::1"]
)
def test_what_is_no_http_url_has_no_parts(given: str) -> None:
    assert urls.url_parts(given) is None


def test_hosts_domains_and_keys_are_what_ut1_lists_hold() -> None:
    parts = urls.url_parts("https://www.news.BBC.co.uk/sport/?id=1")
    assert parts is not None
    assert (parts["host"], parts["registered_domain"]) == ("www.news.bbc.co.uk", "bbc.co.uk")
    assert parts["key"] == "news.bbc.co.uk/sport/?id=1"
    assert urls.url_key("www.news.bbc.co.uk/sport/?id=1") == parts["key"]
    assert urls.normalized_host("Bücher.DE") == "xn--bcher-kva.de"
    assert urls.registered_domain("192.168.1.1") == "192.168.1.1"
    assert urls.registered_domain("co.uk") == "co.uk"  # a public suffix is its own


def test_words_and_letters_are_lower_case_and_decoded() -> None:
    url = "https://www.Free-PORN_site.com/hot%20video?id=3"
    assert urls.url_words(url) == [
        "https",
        "www",
        "free",
        "porn",
        "site",
        "com",
        "hot",
        "video",
        "id",
        "3",
    ]
    parts = urls.url_parts(url)
    assert parts is not None and "freepornsite" in parts["letters"]


@pytest.mark.parametrize(
    ("header", "opted_out"),
    [
        ("noai", True),
        ("noindex, noai, noimageai", True),
        ("*: noai", True),
        ("max-snippet: 20, noai", True),
        ("googlebot: noai", False),  # speaks to another crawler only
        ("noimageai", False),  # images only
        ("noindex", False),
    ],
)
def test_the_x_robots_tag_header_opts_out_unless_scoped_to_another_crawler(
    header: str, opted_out: bool
) -> None:
    metadata = orjson.dumps({"http": {"x-robots-tag": header}}).decode()
    assert (urls.robots_opt_out(None, metadata) == "X-Robots-Tag: noai") is opted_out


def test_a_meta_robots_tag_in_the_head_opts_out() -> None:
    head = "<html><head><META content=\"noindex, NoAI\" name='Robots'></head><body>x</body>"
    assert urls.robots_opt_out(head, None) == "meta robots: noai"
    in_body = "<html><head></head><body><meta name=robots content=noai></body>"
    assert urls.robots_opt_out(in_body, None) is None
    other = '<html><head><meta name="description" content="noai"></head>'
    assert urls.robots_opt_out(other, '{"http": {"content-language": "en"}}') is None


def test_duckdb_gives_what_python_gives() -> None:
    conn = duckdb.connect()
    urls.register(conn)
    url = "HTTP://Example.com/a b"
    [(parts, words, opt_out)] = conn.execute(
        "select lakemix_url_parts(?), lakemix_url_words(?), lakemix_robots_opt_out(null, ?)",
        [url, url, '{"http": {"x-robots-tag": "noai"}}'],
    ).fetchall()
    assert parts == urls.url_parts(url) and words == urls.url_words(url)
    assert opt_out == "X-Robots-Tag: noai"
    [(none,)] = conn.execute("select lakemix_url_parts('mailto:a@b.c')").fetchall()
    assert none is None
