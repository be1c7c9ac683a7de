"""URLs as the URL filters read them, and the opt-outs a page declares.

- ``lakemix_url_parts(url)``: the normalised URL and what block lists match on: the host, the
  registered domain (the Public Suffix List's ICANN section, as it ships in ``publicsuffixlist``)
  and the key of the UT1 ``urls`` lists (host without ``www.``, path and query, no scheme), plus
  the URL's letters and digits run together (what banned subwords are searched in). NULL for
  what is no http(s) URL.
- ``lakemix_url_words(url)``: the URL's words (lower case, split at every other character), what
  banned words are looked up in.
- ``lakemix_robots_opt_out(html, metadata)``: ``noai`` where the page opts out of AI training,
  said where: the ``X-Robots-Tag`` header kept in the metadata (``{"http": {...}}``) or a
  ``<meta name="robots">`` tag in the page's head; NULL otherwise.

Normalisation follows RFC 3986's safe steps and what crawlers add: scheme and host in lower case,
the host in IDNA (punycode) without a trailing dot, the default port and the user info dropped,
dot segments removed, characters a URL cannot hold percent-encoded (a space as ``%20``),
escapes in upper case and those of unreserved characters decoded, the fragment and tracking
parameters (``utm_*``, ``fbclid``, ``gclid``...) dropped, an empty path as ``/``. Two fetches
of the same page under spellings that differ only in these ways have the same normalised URL.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

import orjson

from lakemix.udf.arrow import one_array

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Bumped when a function here gives another result for some input: the cache key of the model
# that stores its results names it.
DEFINITION = 1

# The fields of ``lakemix_url_parts``'s struct, in order.
PART_NAMES = ("normalized", "host", "registered_domain", "key", "letters")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING = re.compile(r"^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi)$")
_ESCAPE = re.compile(r"%([0-9a-fA-F]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# What stays as it is in a path or a query: RFC 3986's reserved and unreserved characters and
# the escapes already there ('%'); anything else (spaces, quotes, non-ASCII) is encoded.
_PATH_SAFE = "/%:@!$&'()*+,;=~"
_QUERY_SAFE = _PATH_SAFE + "?"
_NOT_WORD = re.compile(r"[\W_]+")

# Opt-outs: a directive list ("noai, noimageai") not scoped to one named crawler.
_NOAI = re.compile(r"(?:^|[\s,])noai(?:$|[\s,])")
_CRAWLER = re.compile(r"[a-z0-9_*-]+")
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
_HEAD_BYTES = 65_536
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


@functools.cache
def _suffixes() -> Any:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True)


def _escapes(part: str) -> str:
    """Escapes in upper case; those of unreserved characters decoded."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    return _ESCAPE.sub(fix, part)


def _without_dot_segments(path: str) -> str:
    out: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    joined = "/".join(out)
    return joined if joined.startswith("/") else "/" + joined


def _host(raw: str) -> str | None:
    host = raw.strip().rstrip(".").lower()
    if not host:
        return None
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:  # a label IDNA refuses (too long, odd characters): as written
        return host


def registered_domain(host: str) -> str:
    """The domain a registrant holds (``news.bbc.co.uk`` -> ``bbc.co.uk``); an IP address, a
    public suffix or a name without one (``localhost``) is its own."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    return _suffixes().privatesuffix(host) or host


def url_parts(url: str | None) -> dict[str, str] | None:
    """The normalised URL, host, registered domain, block-list key and letters of ``url``; None
    for what is no http(s) URL."""
    if url is None:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # an unbalanced bracket, a port out of range
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = _host(parts.hostname)
    if host is None:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    path = _without_dot_segments(_escapes(quote(parts.path, safe=_PATH_SAFE)))
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and not _TRACKING.match(pair.partition("=")[0].lower())
    ]
    query = _escapes(quote("&".join(kept), safe=_QUERY_SAFE))
    tail = path + (f"?{query}" if query else "")
    key = (host.removeprefix("www.") + tail).rstrip("/")
    return {
        "normalized": f"{scheme}://{netloc}{tail}",
        "host": host,
        "registered_domain": registered_domain(host),
        "key": key,
        "letters": _NOT_WORD.sub("", unquote(url).lower()),
    }


def normalized_host(entry: str) -> str | None:
    """The host of an entry of a UT1 ``domains`` list (``Example.COM``), as ``url_parts`` gives
    the hosts of URLs."""
    entry = entry.strip()
    parts = url_parts(entry if "://" in entry else f"http://{entry}")
    return None if parts is None else parts["host"]


def url_key(entry: str) -> str | None:
    """The key of an entry of a UT1 ``urls`` list (``example.com/some/page``, no scheme), as
    ``url_parts`` gives it for the URLs it names."""
    entry = entry.strip()
    parts = url_parts(entry if "://" in entry else f"http://{entry}")
    return None if parts is None else parts["key"]


def url_words(url: str | None) -> list[str] | None:
    """The URL's words: lower case, split at every character that is no letter or digit."""
    if url is None:
        return None
    return [word for word in _NOT_WORD.split(unquote(url).lower()) if word]


def _meta_robots(html: str) -> str | None:
    head = html[:_HEAD_BYTES]
    end = head.lower().find("</head>")
    for tag in _META.findall(head if end < 0 else head[:end]):
        attributes = {
            m.group(1).lower(): (m.group(2) or m.group(3) or m.group(4) or "")
            for m in _ATTRIBUTE.finditer(tag)
        }
        is_robots = attributes.get("name", "").strip().lower() == "robots"
        if is_robots and _NOAI.search(attributes.get("content", "").lower()):
            return "meta robots: noai"
    return None


def _header_robots(metadata: str | None) -> str | None:
    if not metadata or "x-robots-tag" not in metadata.lower():
        return None
    try:
        kept = orjson.loads(metadata)
    except orjson.JSONDecodeError:
        return None
    http = kept.get("http") if isinstance(kept, dict) else None
    value = http.get("x-robots-tag") if isinstance(http, dict) else None
    if not isinstance(value, str):
        return None
    for line in value.lower().split("\n"):
        # "otherbot: noai" speaks to that crawler only ("*: noai" to all); a directive that takes
        # a value ("max-snippet: 20") is no crawler's name
        scope, colon, rest = line.partition(":")
        if colon and _CRAWLER.fullmatch(scope.strip()) and scope.strip() not in _VALUED:
            if scope.strip() != "*":
                continue
            line = rest
        if _NOAI.search(line):
            return "X-Robots-Tag: noai"
    return None


def robots_opt_out(html: str | None, metadata: str | None) -> str | None:
    """Where the page opts out of AI training (``X-Robots-Tag: noai`` or ``meta robots:
    noai``), or None."""
    return _header_robots(metadata) or (None if html is None else _meta_robots(html))


def _parts_array(urls: pa.Array | pa.ChunkedArray) -> pa.Array:
    import pyarrow as pa

    values = [url_parts(url) for url in one_array(urls).to_pylist()]
    return pa.array(values, type=pa.struct([(name, pa.string()) for name in PART_NAMES]))


def _words_array(urls: pa.Array | pa.ChunkedArray) -> pa.Array:
    import pyarrow as pa

    values = [url_words(url) for url in one_array(urls).to_pylist()]
    return pa.array(values, type=pa.list_(pa.string()))


def _opt_outs_array(
    pages: pa.Array | pa.ChunkedArray, metadata: pa.Array | pa.ChunkedArray
) -> pa.Array:
    import pyarrow as pa

    values = [
        robots_opt_out(html, meta)
        for html, meta in zip(
            one_array(pages).to_pylist(), one_array(metadata).to_pylist(), strict=True
        )
    ]
    return pa.array(values, type=pa.string())


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_url_parts``, ``lakemix_url_words`` and ``lakemix_robots_opt_out``."""
    import duckdb as duckdb_module
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import VARCHAR

    parts = duckdb_module.struct_type({name: VARCHAR for name in PART_NAMES})
    conn.create_function(
        "lakemix_url_parts",
        lambda urls: _parts_array(urls),  # duckdb evaluates annotations: none
        [VARCHAR],
        parts,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    conn.create_function(
        "lakemix_url_words",
        lambda urls: _words_array(urls),
        [VARCHAR],
        duckdb_module.list_type(VARCHAR),
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    conn.create_function(
        "lakemix_robots_opt_out",
        lambda pages, metadata: _opt_outs_array(pages, metadata),
        [VARCHAR, VARCHAR],
        VARCHAR,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
