"""lakemix_main_text: the main text of pages, the same from Python and DuckDB."""

from __future__ import annotations

import gzip

import duckdb
import pyarrow as pa
import pytest

from lakemix.udf import extract
from tests.conftest import CORPORA

PAGE = sorted((CORPORA / "html" / "trafilatura_eval" / "pages").glob("*.html.gz"))[0]
ARTICLE = """<html><head><title>t</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About us</a></nav>
<article><h1>A heading</h1>
<p>The first paragraph of the article says something worth reading, at some length, with a
full stop at its end.</p>
<ol><li>One item of a list, a whole sentence of the article's own prose.</li>
<li>Another item of the list, again a sentence that belongs to the text.</li></ol>
<p>A second paragraph goes on with more of the same kind of prose, so that the page has a main
text a reader would want.</p></article>
<footer>Copyright 2026 Example Corp. All rights reserved. Impressum.</footer>
</body></html>"""


@pytest.mark.parametrize("name", extract.EXTRACTORS)
def test_each_extractor_keeps_the_article_and_its_structure(name: str) -> None:
    text = extract.main_text(ARTICLE, name)
    assert "The first paragraph of the article" in text and "A second paragraph" in text
    assert "Another item of the list" in text
    assert "<" not in text and "Impressum" not in text
    lines = text.splitlines()
    # a line each, marked as an item ("1." or "- ")
    assert any(
        line.strip().endswith("One item of a list, a whole sentence of the article's own prose.")
        for line in lines
    )


def test_bulleted_lists_are_lost_by_the_default_and_kept_by_trafilatura() -> None:
    """Resiliparse's main-content rules take every <ul> for navigation (docs/pipeline.md)."""
    bulleted = ARTICLE.replace("<ol>", "<ul>").replace("</ol>", "</ul>")
    assert "One item of a list" not in extract.main_text(bulleted, "resiliparse")
    assert "- One item of a list" in extract.main_text(bulleted, "trafilatura")


def test_no_main_text_is_an_empty_string_and_null_stays_null() -> None:
    assert extract.main_text("") == ""
    assert extract.main_text("<html><body><nav><a href='/'>x</a></nav></body></html>") == ""
    out = extract.main_texts(pa.array([None, ARTICLE]), pa.array(["resiliparse", None]))
    assert out[0].as_py() is None and "first paragraph" in out[1].as_py()


def test_an_unknown_extractor_is_named_with_the_choices() -> None:
    with pytest.raises(extract.UnknownExtractorError, match="choose one of: resiliparse, traf"):
        extract.main_text(ARTICLE, "boilerpipe")


def test_duckdb_gives_what_python_gives() -> None:
    html = gzip.decompress(PAGE.read_bytes()).decode("utf-8", "replace")
    conn = duckdb.connect()
    extract.register(conn)
    [(text,)] = conn.execute("select lakemix_main_text(?, 'resiliparse')", [html]).fetchall()
    assert text == extract.main_text(html) and len(text) > 200


def test_trafilatura_runs_on_one_thread_of_its_own_whatever_thread_duckdb_calls_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    threads: dict[str, set[str]] = {name: set() for name in extract.EXTRACTORS}
    main_text = extract.main_text

    def recorded(html: str, name: str = extract.DEFAULT) -> str:
        threads[name].add(threading.current_thread().name)
        return main_text(html, name)

    monkeypatch.setattr(extract, "main_text", recorded)
    conn = duckdb.connect(config={"threads": 4})
    extract.register(conn)
    conn.register("pages", pa.table({"html": [ARTICLE] * 3_000}))
    for name in extract.EXTRACTORS:
        [(kept,)] = conn.execute(
            "select count(*) from pages where lakemix_main_text(html, ?) like '%first paragraph%'",
            [name],
        ).fetchall()
        assert kept == 3_000
    # lxml's parser and dictionaries belong to the thread state that made them
    assert len(threads["trafilatura"]) == 1
    assert next(iter(threads["trafilatura"])).startswith("lakemix-lxml")
    assert not any(name.startswith("lakemix-lxml") for name in threads["resiliparse"])
