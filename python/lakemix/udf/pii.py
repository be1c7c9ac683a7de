"""PII redaction: e-mail and IP addresses, phone and payment card numbers to typed placeholders.

Regular expressions and checks in Python (bench/pii.py measures recall and precision). Passes
run in a fixed order: e-mail, IPv6, IPv4, card, phone after a word that announces it, phone by
its shape; each later pass sees the earlier finds masked as "<...>", so a number inside an
address is never counted twice. Every pattern runs in linear time: repetitions are bounded or
possessive and start only where the previous character cannot continue them, so a 5 MB line
of digits, dots or "@" is one scan.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

_Accept = Callable[[re.Match[str]], tuple[int, int] | None]

# Bumped when a text's redaction changes: int_documents_pii_redacted refuses an incremental run
# over rows of another definition (its cache key names this module).
DEFINITION = 1

FIELDS = ("text", "email_count", "ip_address_count", "phone_number_count", "credit_card_count")
_PLACEHOLDERS = ("<EMAIL>", "<IP_ADDRESS>", "<PHONE_NUMBER>", "<CREDIT_CARD>")
_TEXT_TYPES = ("null", "string", "large_string", "string_view", "binary", "large_binary")

_LOCAL = r"[A-Za-z0-9._%+-]+"
_DOMAIN = r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,63}"
_EMAIL_CORE = f"{_LOCAL}@{_DOMAIN}"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4_CORE = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
# RE2 (DuckDB regexp_matches) has no lookaround, so the boundaries are spelled out as
# characters: each matches some substring exactly when the redaction pattern matches.
EMAIL_PATTERN_RE2 = _EMAIL_CORE
IPV4_PATTERN_RE2 = rf"(?:^|[^A-Za-z0-9.]){_IPV4_CORE}(?:$|[^0-9.]|\.$|\.[^0-9])"

# Found from the "@" (a fast scan), then the local part backwards: at most 64 characters
# (RFC 5321) and never into the previous address, so a.b@c.dex.y@e.fr gives two.
_AT_DOMAIN = re.compile(f"@{_DOMAIN}")
_LOCAL_PART = re.compile(rf"{_LOCAL}\Z")
# Not inside a word or after "1.", not followed by a digit or ".digit" (1.2.3.4.5 is a version).
_IPV4 = re.compile(rf"(?<![A-Za-z0-9.]){_IPV4_CORE}(?![0-9]|\.[0-9])")
_IPV4_HINT = re.compile(r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]")
# Full, compressed (one "::") or with an embedded IPv4; the ipaddress module checks the rest.
_HEX = r"[0-9A-Fa-f]{1,4}"
_V4 = r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}"
_IPV6 = re.compile(
    rf"(?<![A-Za-z0-9_:.])(?:(?:{_HEX}:){{7}}{_HEX}|(?:{_HEX}:){{6}}{_V4}"
    rf"|(?:{_HEX}(?::{_HEX}){{0,6}})?::(?:(?:{_HEX}:){{0,6}}(?:{_HEX}|{_V4}))?)"
    r"(?![A-Za-z0-9_:]|\.[0-9])"
)
_IPV6_HINT = re.compile(r"::|(?::[0-9A-Fa-f]{1,4}){5}")

# The number patterns start with a character class and look at the character before it only
# then: re skips in C to where the class matches, 4-5 times faster than a leading lookbehind.
# 13-19 digits, bare or in groups of 4 (4-6-5 for 15-digit Amex) split by one space or dash.
_CARD = re.compile(
    r"[0-9](?<![A-Za-z0-9_+.,/-].)(?:[0-9]{12,18}|[0-9]{3}(?P<a>[ -])[0-9]{6}(?P=a)[0-9]{4,5}"
    r"|[0-9]{3}(?P<b>[ -])[0-9]{4}(?P=b)[0-9]{4}(?:(?P=b)[0-9]{1,4}){0,2})"
    r"(?![A-Za-z0-9_]|[.,/-][0-9])"
)
# Issuer prefixes by length: Visa 4, Mastercard 2/5, Amex 34/37, Diners 30/36/38/39,
# Discover/UnionPay/Maestro 5/6, JCB 35/1800/2131, UATP 1 (so no ISBN, EAN or timestamp).
_ISSUERS = {
    13: ("4",),
    14: ("30", "36", "38", "39"),
    15: ("1", "2131", "34", "37", "5", "6"),
    16: ("2", "3", "4", "5", "6"),
    17: ("35", "4", "5", "6"),
    18: ("35", "4", "5", "6"),
    19: ("35", "4", "5", "6"),
}

_SEP = r"[ \u00a0.-]"
_AREA_SEP = r"(?:[ \u00a0]?[/-][ \u00a0]?|[ \u00a0.])"
_EXT = r"(?P<ext>[ \u00a0]?(?:x|ext\.?|extension)[ \u00a0]?[0-9]{1,6})?"
# Not part of a longer number or word.
_END = r"(?![A-Za-z0-9_]|[./-][0-9])"
_LETTER = r"A-Za-zА-Яа-яЁё"  # noqa: RUF001 (Latin and Cyrillic)
# A word that announces a phone number (tel, phone, mobile, fax, call, ...), punctuation or a
# few filler words ("call me at", "phone number:"), then anything phone-shaped.
_PHONE_AFTER_WORD = re.compile(
    rf"[TtPpMmCcHhKkFfDdWwSsAaТтФфМм电電手传傳](?<![{_LETTER}<_].)(?:"  # noqa: RUF001
    r"(?<=[Tt])(?i:[eé]l(?:[eé]phone|[eé]fon[eo]?)?|lf|fn)|(?<=[Pp])(?i:h(?:ones?)?)"
    r"|(?<=[Mm])(?i:ob(?:ile?)?|[oó]vil|essages?)|(?<=[Cc])(?i:ell(?:phone|ular)?|all|ontact)"
    r"|(?<=[Hh])(?i:andy|otline)|(?<=[Kk])(?i:ontakt)|(?<=[Ff])(?i:ax)|(?<=[Dd])(?i:esk|ial)"
    r"|(?<=[Ww])(?i:hatsapp)|(?<=[Ss])(?i:ms)|(?<=[Aa])(?i:nswering)"
    r"|(?<=[Тт])(?i:ел(?:ефон[а-я]{0,2})?)|(?<=[Фф])(?i:акс)|(?<=[Мм])(?i:об)"  # noqa: RUF001
    r"|(?<=[电電])[话話]|(?<=手)[机機]|(?<=[传傳])真)"
    rf"(?![{_LETTER}])[^0-9A-Za-z+(]{{0,4}}+"
    r"(?:(?i:me|us|at|on|to|is|no|nr|number|num)[^0-9A-Za-z+(]{1,4}+){0,3}+"
    r"(?P<loose>(?:\+[ \u00a0]?)?(?:\([0-9]{1,5}\)[ \u00a0]?)?[0-9]"
    rf"(?:{_AREA_SEP}?(?:[0-9]|\([0-9]{{1,4}}\))){{5,24}}+){_EXT}{_END}"
)
# Phone-shaped on its own; the first character is matched, then each shape goes on from it.
_PHONE_SHAPE = re.compile(
    r"[0-9+(](?<![A-Za-z0-9_+./-].)(?:"
    # +CC then groups, "(0)" or "(area)" allowed once: +46 (0)8 928 571 38, +1-984-182-0190
    rf"(?<=\+)(?P<intl>[0-9]{{1,15}}+(?:{_SEP}?\([0-9]{{1,4}}\))?"
    rf"(?:(?:{_SEP}|(?<=\)))[0-9]{{1,8}}+){{0,6}}+)"
    # (area) local: (555) 123-4567, (08) 8747 6301; not a year: (2005) 345-367 cites pages
    r"|(?<=\()(?P<paren>(?!(?:19|20)[0-9]{2}\))[0-9]{2,5}\)[ \u00a0]?[0-9]{2,8}+"
    r"(?:(?P<p>[ \u00a0.-])[0-9]{2,8}+(?:(?P=p)[0-9]{2,8}+){0,2}+)?)"
    # trunk prefix 0, area code, then one kind of separator: 0490 75 40 81, 0471 - 46 838
    rf"|(?<=0)(?P<trunk>[0-9]{{1,4}}+{_AREA_SEP}[0-9]{{2,8}}+"
    r"(?:(?P<t>[ \u00a0./-])[0-9]{2,8}+(?:(?P=t)[0-9]{2,8}+){0,3}+)?)"
    # North American: 555-123-4567, 555.123.4567, 1-800-555-1234
    r"|(?P<nanp>[0-9]{2}(?P<n>[ .-])[0-9]{3}(?P=n)[0-9]{4})"
    r"|(?<=1)(?P<nanp1>[ .-][0-9]{3}(?P<m>[ .-])[0-9]{3}(?P=m)[0-9]{4})"
    # not within a run of numbers, followed by "office", "fax", ...: 416 60 039 office
    rf"|(?<![0-9][ \u00a0].)(?P<tail>(?:{_SEP}?[0-9]){{5,24}}+{_END}"
    r"(?=[ \u00a0-]?\(?(?i:office|fax|mobile|cell|home|work|phone|tel)(?![a-z]))))"
    rf"{_EXT}{_END}"
)
# Digits allowed in the number (without extension) per kind of match.
_PHONE_DIGITS = {
    "intl": (8, 15),
    "paren": (7, 12),
    "trunk": (9, 13),
    "nanp": (10, 10),
    "nanp1": (11, 11),
    "tail": (7, 15),
    "loose": (7, 15),
}
# Phone-shaped but not phones: dates (2019-07-17, 17.07.2019) and US social security numbers.
_NOT_PHONE = re.compile(
    r"(?<![0-9])(?:(?:19|20)[0-9]{2}[./-][0-9]{1,2}[./-][0-9]{1,2}"
    r"|[0-9]{1,2}[./-][0-9]{1,2}[./-](?:19|20)[0-9]{2}"
    r"|[0-9]{3}-[0-9]{2}-[0-9]{4})(?![0-9])"
)
_NOT_DATE_SHAPED = frozenset(("intl", "nanp", "nanp1"))
_DIGITS = frozenset("0123456789")
# Digit groups split by spaces, in a run of such numbers (998 999 1000 1001), are a list.
_SPACED_DIGITS = re.compile(r"[0-9]+(?:[ \u00a0][0-9]+)+")
_NUMBER_BEFORE = re.compile(r"[0-9][ \u00a0]\Z")
_NUMBER_AFTER = re.compile(r"[ \u00a0][0-9]")


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        d = ord(char) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _emails(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _AT_DOMAIN.finditer(text):
        at = match.start()
        lo = max(spans[-1][1] if spans else 0, at - 64)
        if local := _LOCAL_PART.search(text, lo, at):
            spans.append((local.start(), match.end()))
    return spans


def _matches(pattern: re.Pattern[str], accept: _Accept, text: str) -> list[tuple[int, int]]:
    return [span for match in pattern.finditer(text) if (span := accept(match)) is not None]


def _whole(match: re.Match[str]) -> tuple[int, int] | None:
    return match.span()


def _ipv6(match: re.Match[str]) -> tuple[int, int] | None:
    candidate = match[0]
    # Code, not addresses: dead::beef (no digit), Abc::Def1 (mixed case).
    if _DIGITS.isdisjoint(candidate) or candidate.lower() != candidate != candidate.upper():
        return None
    try:
        ipaddress.IPv6Address(candidate)
    except ValueError:
        return None
    return match.span()


def _card(match: re.Match[str]) -> tuple[int, int] | None:
    digits = match[0].replace(" ", "").replace("-", "")
    issuer = digits.startswith(_ISSUERS.get(len(digits), ()))
    if issuer and len(set(digits)) > 1 and _luhn(digits):
        return match.span()
    return None


def _phone(match: re.Match[str], kind: str, start: int) -> tuple[int, int] | None:
    text = match.string
    number = text[start : match.start("ext") if match["ext"] else match.end()]
    low, high = _PHONE_DIGITS[kind]
    if not low <= sum(map(str.isdigit, number)) <= high or len(_DIGITS.intersection(number)) < 2:
        return None
    if kind not in _NOT_DATE_SHAPED and _NOT_PHONE.search(number):
        return None
    if _SPACED_DIGITS.fullmatch(number) and (
        _NUMBER_BEFORE.search(text, 0, start) or _NUMBER_AFTER.match(text, match.end())
    ):
        return None
    return start, match.end()


def _phone_after_word(match: re.Match[str]) -> tuple[int, int] | None:
    return _phone(match, "loose", match.start("loose"))


def _phone_shape(match: re.Match[str]) -> tuple[int, int] | None:
    kind = match.lastgroup  # the shape's group closes last, unless an extension follows
    if kind not in _PHONE_DIGITS:
        kind = next(k for k in _PHONE_DIGITS if match[k] is not None)
    return _phone(match, kind, match.start())


_AT = re.compile("@")
# Every card and phone number holds at least 7 digits (_PHONE_DIGITS, _ISSUERS) and, between
# two of its digits, at most 5 characters of " \u00a0./()-" (the widest gap is ") / (" in a
# loose number, "(12) / (34)"; the extension's digits are not counted). Masking earlier finds
# only puts "<", "\0" and ">" in the text, so a hint that fails on the text fails on every
# masked form of it: testing the unmasked text rules a pass out safely.
_NUMBER_HINT = "[0-9](?:[ \u00a0./()-]{0,5}[0-9]){6}"
_NUMBER = re.compile(_NUMBER_HINT)
# Cheap tests, one per kind of pass: a pass runs only on a text its hint matches.
HINTS: tuple[re.Pattern[str], ...] = (_AT, _IPV6_HINT, _IPV4_HINT, _NUMBER)
# (placeholder, index of its hint in HINTS, spans to replace in a text)
_PASSES: tuple[tuple[str, int, Callable[[str], list[tuple[int, int]]]], ...] = (
    ("<EMAIL>", 0, _emails),
    ("<IP_ADDRESS>", 1, partial(_matches, _IPV6, _ipv6)),
    ("<IP_ADDRESS>", 2, partial(_matches, _IPV4, _whole)),
    ("<CREDIT_CARD>", 3, partial(_matches, _CARD, _card)),
    ("<PHONE_NUMBER>", 3, partial(_matches, _PHONE_AFTER_WORD, _phone_after_word)),
    ("<PHONE_NUMBER>", 3, partial(_matches, _PHONE_SHAPE, _phone_shape)),
)
# A text none of the hints matches holds no PII: one RE2 scan over a whole Arrow array (no
# Python per text) leaves the full passes to the few texts that may hold some. The hints use
# no syntax that differs between Python's re and RE2.
CANDIDATE_PATTERN_RE2 = "|".join(hint.pattern for hint in HINTS)


def find_pii(text: str, *, hints: Sequence[bool] | None = None) -> list[tuple[str, int, int]]:
    """Find the PII in one text.

    Args:
        text: Any string.
        hints: Whether each pattern of ``HINTS`` matches ``text``, when a scan of many texts
            already knows (``redact_pii``); searched here when not given.

    Returns:
        ``(placeholder, start, end)`` of each span to replace, sorted by ``start``.
    """
    if hints is None:
        hints = [hint.search(text) is not None for hint in HINTS]
    found: list[tuple[str, int, int]] = []
    for placeholder, hint, find in _PASSES:
        # A pass finds nothing where its hint fails. Earlier finds are masked with "<", "\0"
        # and ">", which no hint matches, so a hint that fails on the text fails on the masked
        # text too: the text's own hints decide.
        spans = find(text) if hints[hint] else []
        if spans:
            # Later passes see "<...>" as they would see the placeholder, at the same offsets.
            pieces, last = [], 0
            for start, end in spans:
                pieces += [text[last:start], "<", "\0" * (end - start - 2), ">"]
                last = end
                found.append((placeholder, start, end))
            text = "".join([*pieces, text[last:]])
    return sorted(found, key=lambda span: span[1])


def redact_text(
    text: str, *, hints: Sequence[bool] | None = None
) -> tuple[str, int, int, int, int]:
    """Redact one text.

    Args:
        text: Any string.
        hints: As for :func:`find_pii`.

    Returns:
        The text with placeholders, then how many e-mail addresses, IP addresses, phone numbers
        and payment card numbers were replaced.
    """
    spans = find_pii(text, hints=hints)
    if not spans:
        return text, 0, 0, 0, 0
    pieces, last = [], 0
    for placeholder, start, end in spans:
        pieces += [text[last:start], placeholder]
        last = end
    pieces.append(text[last:])
    kinds = [span[0] for span in spans]
    email, ip, phone, card = (kinds.count(p) for p in _PLACEHOLDERS)
    return "".join(pieces), email, ip, phone, card


def _as_strings(chunk: pa.Array) -> pa.Array:
    """``chunk`` as a ``string`` array: views and nulls cast, bytes decoded (bad UTF-8 replaced)."""
    import pyarrow as pa

    if pa.types.is_null(chunk.type):
        return pa.nulls(len(chunk), pa.string())
    if pa.types.is_binary(chunk.type) or pa.types.is_large_binary(chunk.type):
        try:
            return chunk.cast(pa.string())  # valid UTF-8: no copy through Python
        except pa.ArrowInvalid:
            values = [v if v is None else v.decode("utf-8", "replace") for v in chunk.to_pylist()]
            return pa.array(values, pa.string())
    return chunk if pa.types.is_string(chunk.type) else chunk.cast(pa.string())


def redact_pii(texts: pa.Array | pa.ChunkedArray) -> pa.StructArray:
    """Replace e-mail and IP addresses, phone and payment card numbers with placeholders.

    Placeholders are ``<EMAIL>``, ``<IP_ADDRESS>`` (IPv4 and IPv6), ``<PHONE_NUMBER>`` (at
    least 7 digits: international, common national shapes, or announced by a word such as
    "tel" or "fax") and ``<CREDIT_CARD>`` (13-19 digits with a card issuer's prefix that pass
    the Luhn check). ``EMAIL_PATTERN_RE2`` and ``IPV4_PATTERN_RE2`` find in SQL what is
    redacted here, so a data test can check that none is left.

    One vectorized scan (``CANDIDATE_PATTERN_RE2``) rules out the texts that cannot hold PII;
    only the others go through :func:`redact_text`, with the same result as if all had.

    Args:
        texts: Strings (string, large_string, string_view) or UTF-8 bytes; nulls allowed.

    Returns:
        A struct array of the same length with ``text`` (null for null input) and the int64
        counts ``email_count``, ``ip_address_count``, ``phone_number_count`` and
        ``credit_card_count`` (0 for null input).

    Raises:
        TypeError: If ``texts`` is not an array of strings or bytes.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not any(getattr(pa.types, f"is_{name}")(texts.type) for name in _TEXT_TYPES):
        raise TypeError(f"texts must be an Arrow array of strings or bytes, got {texts.type}")
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    counts = np.zeros((len(FIELDS) - 1, len(texts)), dtype=np.int64)
    parts: list[pa.Array] = [pa.array([], pa.string())]
    offset = 0
    for raw in chunks:
        chunk = _as_strings(raw)
        may_hold = pc.fill_null(pc.match_substring_regex(chunk, CANDIDATE_PATTERN_RE2), False)
        rows = np.flatnonzero(np.asarray(may_hold, dtype=np.bool_))
        if len(rows):
            may = chunk.take(rows)
            # One scan per hint over the candidates only: no Python regex decides a pass.
            hints = zip(
                *(pc.match_substring_regex(may, h.pattern).to_pylist() for h in HINTS), strict=True
            )
            texts_and_hints = zip(may.to_pylist(), hints, strict=True)
            redacted = [redact_text(text, hints=hint) for text, hint in texts_and_hints]
            new_texts = pa.array([row[0] for row in redacted], pa.string())
            chunk = pc.replace_with_mask(chunk, may_hold, new_texts)
            counts[:, offset + rows] = np.array([row[1:] for row in redacted], np.int64).T
        parts.append(chunk)
        offset += len(chunk)
    arrays = [pa.concat_arrays(parts), *(pa.array(column) for column in counts)]
    return pa.StructArray.from_arrays(arrays, names=FIELDS)


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_redact_pii(text VARCHAR)`` as a vectorized Arrow UDF on ``conn``.

    It returns ``STRUCT(text VARCHAR, email_count BIGINT, ip_address_count BIGINT,
    phone_number_count BIGINT, credit_card_count BIGINT)``; NULL text reaches the function
    (and gives a NULL text with zero counts), and the function is deterministic.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, VARCHAR

    struct = duckdb.struct_type({"text": VARCHAR} | dict.fromkeys(FIELDS[1:], BIGINT))
    conn.create_function(
        "lakemix_redact_pii",
        lambda texts: redact_pii(texts),  # duckdb evaluates annotations: pass none
        [VARCHAR],
        struct,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
