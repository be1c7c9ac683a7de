"""Main text of HTML pages: ``lakemix_main_text(html, extractor)``, one pass over Arrow.

The extractors (``bench/extract.py`` measures each on the same pages, accuracy and pages per
CPU second):

- ``resiliparse``: Resiliparse's ``extract_plain_text`` with ``main_content=True`` (DCLM's
  choice; C++ over the lexbor parser), list items as ``- `` lines, headings and paragraphs as
  lines of their own, no link targets or alt texts.
- ``trafilatura``: Trafilatura's ``extract`` (FineWeb's choice): more accurate, an order of
  magnitude slower.

The text keeps the page's structure as plain text (a line per heading, paragraph, list item and
table row); ``lakemix_normalize_text`` runs after it in the model. A page with no main text
gives an empty string (the cleaning floors reject it, with their reason).

Trafilatura runs on one long-lived Python thread of its own. It parses with lxml, whose parser
and dictionaries belong to the thread state that created them; DuckDB calls a UDF on its own
worker threads with a thread state made for the call and destroyed after it, so lxml used
there frees memory still in use (a build crashed with "double free or corruption").
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from lakemix.errors import LakemixError
from lakemix.udf.arrow import one_array

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Bumped when the text extracted from a page changes (for the default extractor too): the key
# (``lakemix.cache_key``) of each model that reads extracted text names it.
DEFINITION = 1
DEFAULT = "resiliparse"
EXTRACTORS = ("resiliparse", "trafilatura")


class UnknownExtractorError(LakemixError, ValueError):
    """An extractor name that is not one of ``EXTRACTORS``."""


def _resiliparse(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    tree = HTMLTree.parse(html)
    return extract_plain_text(
        tree,
        main_content=True,
        list_bullets=True,
        alt_texts=False,
        links=False,
        form_fields=False,
        noscript=False,
    )


def _trafilatura(html: str) -> str:
    import trafilatura

    text = trafilatura.extract(
        html,
        include_comments=False,
        include_tables=True,
        deduplicate=False,
        favor_precision=False,
    )
    return text or ""


@functools.cache
def extractor(name: str) -> Callable[[str], str]:
    """The function that gives a page's main text, by name.

    Raises:
        UnknownExtractorError: ``name`` is not one of ``EXTRACTORS``.
    """
    functions = {"resiliparse": _resiliparse, "trafilatura": _trafilatura}
    if name not in functions:
        raise UnknownExtractorError(
            f"unknown extractor {name!r} (var lakemix_extractor); choose one of: "
            f"{', '.join(EXTRACTORS)}"
        )
    return functions[name]


def main_text(html: str, name: str = DEFAULT) -> str:
    """The main text of one page; an empty string when the page has none or does not parse."""
    try:
        return extractor(name)(html)
    except UnknownExtractorError:
        raise
    except Exception:  # a page no parser reads has no main text
        return ""


# Extractors that must run on the one thread of ``_lxml_thread`` (see the module's docstring).
_ON_ITS_OWN_THREAD = frozenset({"trafilatura"})
_lxml_lock = threading.Lock()
_lxml_executor: ThreadPoolExecutor | None = None


def _lxml_thread() -> ThreadPoolExecutor:
    """The process's one thread for lxml-based extractors, started on first use."""
    global _lxml_executor
    with _lxml_lock:
        if _lxml_executor is None:
            _lxml_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lakemix-lxml")
        return _lxml_executor


def _texts(pages: list[str | None], names: list[str | None]) -> list[str | None]:
    return [
        None if html is None else main_text(html, name or DEFAULT)
        for html, name in zip(pages, names, strict=True)
    ]


def main_texts(pages: pa.Array | pa.ChunkedArray, names: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``main_text`` of every page (NULL stays NULL); ``names`` holds the extractor per row."""
    import pyarrow as pa

    pages_list = one_array(pages).to_pylist()
    names_list = one_array(names).to_pylist()
    if _ON_ITS_OWN_THREAD.intersection(names_list):
        out = _lxml_thread().submit(_texts, pages_list, names_list).result()
    else:
        out = _texts(pages_list, names_list)
    return pa.array(out, type=pa.large_string())


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_main_text(html VARCHAR, extractor VARCHAR) -> VARCHAR``."""
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import VARCHAR

    conn.create_function(
        "lakemix_main_text",
        lambda pages, names: main_texts(pages, names),  # duckdb evaluates annotations: none
        [VARCHAR, VARCHAR],
        VARCHAR,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
