"""Words: datatrove's word splitting (spaCy's blank English tokenizer) as numba kernels.

See the package docstring for the rules. ``tables`` builds the character flags and the
exceptions' tables once per process; ``tokenize`` splits a run of code points into tokens and
``sentence_count`` counts what spaCy's sentencizer finds among them.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from lakemix.udf.quality.affixes import language_exceptions, spacy_rules
from lakemix.udf.quality.chars import (
    C4_PHRASES,
    F_AFFIXED_FIRST,
    F_AFFIXED_LAST,
    F_CAT_P,
    F_DIGIT,
    F_DOT_AFTER,
    F_EXC_FIRST,
    F_EXC_LAST,
    F_HOST,
    F_ICON,
    F_INFIX,
    F_LETTER,
    F_LOWER,
    F_PREFIX,
    F_QUOTE,
    F_SCHEME,
    F_SENT_END,
    F_SPACE,
    F_SUFFIX,
    F_UPPER,
    SPACY_CURRENCY,
    SPACY_UNITS,
    char_tables,
    code_points,
    padded_rows,
)
from lakemix.udf.quality.exceptions import base_exceptions, english_exceptions
from lakemix.udf.quality.hashing import HB, HLEN, hash_key, mix64
from lakemix.udf.quality.jit import inline, jit, refresh_cache
from lakemix.udf.quality.segment import DROPPED, break_flags

_EL_PATTERN = 8  # in a row of exceptions: affixed, tokens, their lengths (6), pattern, lengths


ENGLISH, BASE = 0, 1  # the first two rule sets


class Tables(NamedTuple):
    flags: np.ndarray  # uint32 per code point
    lower: np.ndarray  # int32 per code point: first character of chr(c).lower()
    # One rule set per spaCy language the splitting knows: English's, the base rules (every
    # language's exceptions only), then one per language with exceptions of its own
    # (``word_exceptions.json``): its exceptions and whether a hyphen after a digit is an infix.
    sets: list[tuple[dict[str, tuple[int, ...]], bool]]
    rules: dict[str, int]  # lid.176 label -> its rule set, for labels with their own
    # Each rule set for the kernels, built on first use (None until then): the exceptions' hash
    # table (int64 rows: key, number or -1), the exceptions (int32 rows: matched across tokens,
    # number of tokens, their lengths), the longest exception, units and currencies, C4
    # phrases (int32 rows: length, code points), and the hyphen flag.
    built: list[tuple[Any, ...] | None]
    units: np.ndarray  # spaCy's units and currencies (int32 rows: length, code points)
    phrases: np.ndarray  # C4's phrases, the same way


_BUILDING = threading.Lock()


def english_rules(language: str | None) -> bool:
    """Whether text of ``language`` is split with English's exceptions (English, or unknown)."""
    return language is None or language == "en"


def rules_of(language: str | None) -> int:
    """The rule set that splits text of ``language`` (an index for ``kernels``)."""
    if english_rules(language):
        return ENGLISH
    return tables().rules.get(language or "", BASE)


def kernels(needed: Iterable[int]) -> tuple[tuple[Any, ...], ...]:
    """Every rule set for the kernels, those in ``needed`` built (the others as the base rules).

    The tuple has the same length and types whatever is needed, so numba compiles the kernels
    once; a language's exceptions (up to 16k, Indonesian) are only tabled when its text comes.
    """
    t = tables()
    with _BUILDING:
        for i in sorted(set(needed) | {ENGLISH, BASE}):
            if t.built[i] is None:
                exceptions, hd = t.sets[i]
                t.built[i] = (
                    *_exception_tables(exceptions, t.flags, t.units, hd),
                    t.units,
                    t.phrases,
                    hd,
                )
        base = t.built[BASE]
        return tuple(k if k is not None else base for k in t.built)  # type: ignore[misc]


def _language_exceptions() -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """lid.176 label -> spaCy language, and each spaCy language's exceptions and infix flag."""
    data = spacy_rules()
    return data["languages"], data["rules"]


@functools.cache
def tables() -> Tables:
    """Character flags and the rule sets' exceptions, read on first use (0.3 s)."""
    refresh_cache()
    flags, lower = char_tables()
    base = base_exceptions()
    labels, spacy_rules = _language_exceptions()
    sets: list[tuple[dict[str, tuple[int, ...]], bool]] = [(english_exceptions(), True)]
    sets.append((base, False))
    position = {}
    for language, entry in sorted(spacy_rules.items()):
        position[language] = len(sets)
        sets.append((language_exceptions(entry, base), bool(entry["hyphen_after_digit"])))
    for exceptions, _ in sets:
        flags[[ord(orth[0]) for orth in exceptions]] |= F_EXC_FIRST
        flags[[ord(orth[-1]) for orth in exceptions]] |= F_EXC_LAST
    rules = {label: position[language] for label, language in labels.items()}
    units = padded_rows(SPACY_UNITS.split() + SPACY_CURRENCY.split())
    phrases = padded_rows(list(C4_PHRASES))
    return Tables(flags, lower, sets, rules, [None] * len(sets), units, phrases)


def _exception_tables(
    exceptions: dict[str, tuple[int, ...]], flags: np.ndarray, units: np.ndarray, hd: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    """The exceptions' hash table (int64 rows: key, number or -1), the exceptions (int32 rows:
    matched across tokens, number of tokens, their lengths, the pattern's) and the longest
    (``hd``: the rules split a hyphen after a digit, as English's do).

    Marks the first and last characters of exceptions with affixes in ``flags``.
    """
    slots = 1 << (2 * len(exceptions)).bit_length()
    ex = np.zeros((slots, 2), dtype=np.int64)
    ex[:, 1] = -1
    emax = max(map(len, exceptions))
    el = np.zeros((len(exceptions), _EL_PATTERN + 1 + emax), dtype=np.int32)
    no_exceptions = np.full((1, 2), -1, dtype=np.int64)
    ts, te, ss, se = (np.empty(emax + 1, np.int32) for _ in range(4))
    for number, (orth, parts) in enumerate(exceptions.items()):
        codes = code_points(orth)
        key = np.uint64(hash_key(codes, 0, len(codes)))
        slot = int(mix64(key)) & (slots - 1)
        while ex[slot, 1] >= 0:
            slot = (slot + 1) & (slots - 1)
        ex[slot] = key.view(np.int64), number
        # spaCy matches an exception across tokens only if it has a prefix, suffix or infix.
        # and then as the tokens its text gives without exceptions (the PhraseMatcher pattern).
        el[number, :2] = _has_affix(codes, flags, units, hd), len(parts)
        el[number, 2 : 2 + len(parts)] = parts
        if el[number, 0]:
            flags[ord(orth[0])] |= F_AFFIXED_FIRST
            flags[ord(orth[-1])] |= F_AFFIXED_LAST
            args = (flags, no_exceptions, el, emax, units, ts, te, 0, ss, se, hd)
            n = _tokenize_piece(codes, 0, len(codes), *args)
            el[number, _EL_PATTERN] = n
            el[number, _EL_PATTERN + 1 : _EL_PATTERN + 1 + n] = te[:n] - ts[:n]
    return ex, el, emax


@inline
def _special(cp: Any, s: int, e: int, fl: Any, ex: Any) -> int:
    """Number of the spaCy exception equal to cp[s:e], or -1 (ex: the exceptions' table).

    The tables are passed as arrays, not in a tuple: numba passes tuples by value, which
    costs more than these lookups.
    """
    if e <= s or (fl[cp[s]] & F_EXC_FIRST) == 0 or (fl[cp[e - 1]] & F_EXC_LAST) == 0:
        return -1
    key = hash_key(cp, s, e)
    mask = len(ex) - 1
    i = np.int64(mix64(key)) & mask
    while ex[i, 1] >= 0:
        if ex[i, 0] == np.int64(key):
            return int(ex[i, 1])
        i = (i + 1) & mask
    return -1


# --- Kernels: spaCy's English tokenizer ---------------------------------------------------------


@jit
def has_flag(fl: Any, c: int, flag: int) -> bool:
    return bool(fl[c] & flag)


@jit
def _is_unit(cp: Any, p: int, e: int, un: Any) -> bool:
    for k in range(len(un)):
        if un[k, 0] == e - p:
            same = True
            for j in range(e - p):
                if un[k, 1 + j] != cp[p + j]:
                    same = False
                    break
            if same:
                return True
    return False


@inline
def _prefix_length(cp: Any, s: int, e: int, fl: Any) -> int:
    c = cp[s]
    if c == 46:  # r"\.\.+"
        r = s
        while r < e and cp[r] == 46:
            r += 1
        return r - s if r - s >= 2 else 0
    if c == 43:  # r"\+(?![0-9])"
        return 0 if s + 1 < e and has_flag(fl, cp[s + 1], F_DIGIT) else 1
    if has_flag(fl, c, F_PREFIX):
        return 1
    if c == 85 and s + 2 < e and cp[s + 1] == 83 and cp[s + 2] == 36:  # US$
        return 3
    if (c == 67 or c == 65) and s + 1 < e and cp[s + 1] == 36:  # C$ A$
        return 2
    return 0


@jit
def _suffix_length(cp: Any, s: int, e: int, fl: Any, un: Any) -> int:
    """Length of the leftmost suffix match (spaCy searches ``(?:p1$|p2$|...)``)."""
    if e <= s:
        return 0
    best = e
    last = cp[e - 1]
    if last == 46:
        r = e - 1
        while r > s and cp[r - 1] == 46:
            r -= 1
        if e - r >= 2:
            best = r
    if e - s >= 2 and best > e - 2:
        prev = cp[e - 2]
        ellipses = prev == 0x2026 and last == 0x2026
        if ellipses or ((prev == 39 or prev == 0x2019) and (last == 115 or last == 83)):
            best = e - 2
    for p in range(max(s + 1, e - un.shape[1] + 1), min(best, e)):
        if (
            has_flag(fl, cp[p - 1], F_DIGIT)
            and not has_flag(fl, cp[p], F_DIGIT)
            and _is_unit(cp, p, e, un)
        ):
            best = p
            break
    if best == e:
        prev = cp[e - 2] if e - s >= 2 else -1
        plus = last == 43 and prev >= 0 and has_flag(fl, prev, F_DIGIT)  # (?<=[0-9])\+
        if plus or has_flag(fl, last, F_SUFFIX):  # or punctuation, quotes, symbols
            best = e - 1
        elif last == 46 and prev >= 0:
            before = cp[e - 3] if e - s >= 3 else -1
            upper = before >= 0 and has_flag(fl, before, F_UPPER) and has_flag(fl, prev, F_UPPER)
            degrees = before == 0xB0 and (prev | 32 == 99 or prev | 32 == 102 or prev | 32 == 107)
            if upper or degrees or has_flag(fl, prev, F_DOT_AFTER):  # two capitals, °C. °F. °K.
                best = e - 1
    return e - best


@jit
def _infix_length(cp: Any, i: int, s: int, e: int, fl: Any, hd: bool) -> int:
    """Length of spaCy's infix at cp[i] (0: none); ``hd``: a hyphen after a digit is one.

    English's infixes split ``30-an`` at the hyphen; the base rules (every other language
    whose tokenizer adds no infixes of its own) split a hyphen only between letters.
    """
    c = cp[i]
    if (fl[c] & F_INFIX) == 0:
        return 0
    nxt = cp[i + 1] if i + 1 < e else -1
    if c == 46 and nxt == 46:
        r = i
        while r < e and cp[r] == 46:
            r += 1
        return r - i
    if c == 0x2026 or has_flag(fl, c, F_ICON):
        return 1
    if i == s:
        return 0
    prev = cp[i - 1]
    if nxt < 0:
        return 0
    arithmetic = c == 43 or c == 45 or c == 42 or c == 94
    if arithmetic and has_flag(fl, prev, F_DIGIT) and (has_flag(fl, nxt, F_DIGIT) or nxt == 45):
        return 1
    if c == 46 and has_flag(fl, prev, F_LOWER | F_QUOTE) and has_flag(fl, nxt, F_UPPER | F_QUOTE):
        return 1
    if c == 44 and has_flag(fl, prev, F_LETTER) and has_flag(fl, nxt, F_LETTER):
        return 1
    if has_flag(fl, prev, F_LETTER | F_DIGIT):
        # spaCy's hyphens, tried in this order before a letter: - en-dash em-dash -- --- 2 em ~
        n = 0
        hyphen = c == 45 or c == 0x2013 or c == 0x2014 or c == 126
        if hyphen and (hd or has_flag(fl, prev, F_LETTER)):
            if has_flag(fl, nxt, F_LETTER):
                n = 1
            elif c == 45 and nxt == 45:
                if i + 2 < e and has_flag(fl, cp[i + 2], F_LETTER):
                    n = 2
                elif i + 3 < e and cp[i + 2] == 45 and has_flag(fl, cp[i + 3], F_LETTER):
                    n = 3
            elif c == 0x2014 and nxt == 0x2014 and i + 2 < e and has_flag(fl, cp[i + 2], F_LETTER):
                n = 2
        if n > 0:
            return n
        if (c == 58 or c == 60 or c == 62 or c == 61 or c == 47) and has_flag(fl, nxt, F_LETTER):
            return 1
    return 0


@jit
def _host_matches(cp: Any, q: int, e: int, fl: Any) -> bool:
    """Domain labels, a lower-case TLD, an optional port and path, up to ``e``."""
    labels = 0
    i = q
    j = q
    while True:
        j = i
        while j < e and (has_flag(fl, cp[j], F_HOST) or cp[j] == 95 or cp[j] == 45):
            j += 1
        label = j < e and cp[j] == 46 and j > i and j - i <= 64
        if label and has_flag(fl, cp[i], F_HOST) and has_flag(fl, cp[j - 1], F_HOST):
            labels += 1
            i = j + 1
            continue
        break
    if labels == 0:
        return False
    t = i
    while t < e and has_flag(fl, cp[t], F_LOWER):
        t += 1
    if t - i < 2 or t - i > 63:
        return False
    if t < e and cp[t] == 58:
        d = t + 1
        while d < e and has_flag(fl, cp[d], F_DIGIT):
            d += 1
        if d - t - 1 < 2 or d - t - 1 > 5:
            return False
        t = d
    return t == e or cp[t] == 47 or cp[t] == 63 or cp[t] == 35


@jit
def _url_matches(cp: Any, s: int, e: int, fl: Any) -> bool:
    """An approximation of spaCy's URL_MATCH (scheme, user@, host, port, path)."""
    has_dot = False
    for i in range(s, e):
        if cp[i] == 46:
            has_dot = True
            break
    if not has_dot:
        return False
    p = s
    for k in range(s, e - 2):
        if cp[k] == 58 and cp[k + 1] == 47 and cp[k + 2] == 47:
            ok = k - s >= 2
            for q in range(s, k):
                if not has_flag(fl, cp[q], F_SCHEME):
                    ok = False
            if ok:
                p = k + 3
            break
    for k in range(e - 1, s, -1):
        if cp[k] == 64 and _host_matches(cp, k + 1, e, fl):
            return True
    return _host_matches(cp, p, e, fl) or (p != s and _host_matches(cp, s, e, fl))


@jit
def _emit_special(v: int, s: int, el: Any, ts: Any, te: Any, nt: int) -> int:
    """The tokens of exception v (el[v]: affixed, parts, their lengths) from s."""
    for k in range(el[v, 1]):
        ts[nt] = s
        te[nt] = s + el[v, 2 + k]
        s += el[v, 2 + k]
        nt += 1
    return nt


@jit
def _has_affix(cp: Any, fl: Any, un: Any, hd: bool) -> bool:
    """Whether spaCy's find_prefix, find_suffix or find_infix match in cp."""
    n = len(cp)
    if _prefix_length(cp, 0, n, fl) > 0 or _suffix_length(cp, 0, n, fl, un) > 0:
        return True
    for i in range(n):  # noqa: SIM110 (numba compiles no generator expressions)
        if _infix_length(cp, i, 0, n, fl, hd) > 0:
            return True
    return False


@jit
def _has_run(
    cp: Any, t0: int, nt: int, fl: Any, ex: Any, el: Any, emax: int, ts: Any, te: Any
) -> bool:
    """Whether tokens t0..nt of one piece have a run that spells an exception with affixes."""
    for i in range(t0, nt - 1):
        for j in range(i + 2, nt + 1):
            if te[j - 1] - ts[i] > emax:
                break
            if _run_special(cp, i, j, fl, ex, el, ts, te):
                return True
    return False


@jit
def _run_special(cp: Any, i: int, j: int, fl: Any, ex: Any, el: Any, ts: Any, te: Any) -> bool:
    """Whether tokens i..j are as spaCy's PhraseMatcher finds an exception with affixes: their
    texts joined spell it, and they are the tokens its text gives without exceptions."""
    first, last = fl[cp[ts[i]]], fl[cp[te[j - 1] - 1]]
    if (first & F_AFFIXED_FIRST) == 0 or (last & F_AFFIXED_LAST) == 0:
        return False
    h = np.uint64(0)
    length = 0
    for t in range(i, j):
        for k in range(ts[t], te[t]):
            h = h * HB + np.uint64(cp[k] + 1)
        length += te[t] - ts[t]
    key = mix64(h ^ (np.uint64(length) * HLEN))
    mask = len(ex) - 1
    slot = np.int64(mix64(key)) & mask
    while ex[slot, 1] >= 0:
        if ex[slot, 0] == np.int64(key):
            v = ex[slot, 1]  # it matches if its affixes split it into these tokens
            if el[v, 0] == 0 or el[v, _EL_PATTERN] != j - i:
                return False
            for t in range(i, j):  # noqa: SIM110 (numba compiles no generator expressions)
                if te[t] - ts[t] != el[v, _EL_PATTERN + 1 + t - i]:
                    return False
            return True
        slot = (slot + 1) & mask
    return False


@jit
def _runs(
    cp: Any,
    nt: int,
    lo: int,
    hi: int,
    fl: Any,
    ex: Any,
    el: Any,
    emax: int,
    ts: Any,
    te: Any,
    starts: Any,
    ends: Any,
) -> int:
    """Runs [i, j) of 2 or more tokens spelling an exception with affixes and overlapping tokens
    lo..hi, into starts and ends if they have room; returns their number."""
    k = 0
    for i in range(max(0, lo - emax), min(hi, nt - 1)):
        length = te[i] - ts[i]
        for j in range(i + 2, nt + 1):
            length += te[j - 1] - ts[j - 1]
            gap = ts[j - 1] - te[j - 2]
            if length > emax or gap > 1 or (gap == 1 and cp[te[j - 2]] != 32):
                break  # too long, or a whitespace token (not one space) in between
            if _run_special(cp, i, j, fl, ex, el, ts, te):
                if k < len(starts):
                    starts[k], ends[k] = i, j
                k += 1
    return k


@jit
def _merge_specials(
    cp: Any,
    nt: int,
    lo: int,
    hi: int,
    fl: Any,
    ex: Any,
    el: Any,
    emax: int,
    ts: Any,
    te: Any,
    ss: Any,
    se: Any,
) -> int:
    """spaCy's _apply_special_cases: runs of tokens spelling an exception that has affixes.

    spaCy's PhraseMatcher finds runs across whitespace too; runs are taken longest first, then
    leftmost, if their first and last tokens are in no run taken before, and replaced by the
    exception's tokens if no whitespace is inside them. Only runs near tokens lo..hi, the
    pieces with runs inside, can change anything.
    """
    none = np.empty(0, np.int64)
    found = _runs(cp, nt, lo, hi, fl, ex, el, emax, ts, te, none, none)
    starts, ends = np.empty(found, np.int64), np.empty(found, np.int64)
    _runs(cp, nt, lo, hi, fl, ex, el, emax, ts, te, starts, ends)
    seen = np.zeros(nt, np.bool_)
    keep = np.zeros(found, np.bool_)
    done = np.zeros(found, np.bool_)
    for _ in range(found):
        best = -1
        for c in range(found):
            if done[c]:
                continue
            size = ends[c] - starts[c]
            if best < 0 or (size, -starts[c]) > (ends[best] - starts[best], -starts[best]):
                best = c
        done[best] = True
        if not seen[starts[best]] and not seen[ends[best] - 1]:
            keep[best] = True
            for t in range(starts[best], ends[best] - 1):
                if te[t] != ts[t + 1]:  # whitespace inside: spaCy finds no exception for it
                    keep[best] = False
        seen[starts[best] : ends[best]] = True
    m = 0
    t = 0
    while t < nt:
        span = -1
        for c in range(found):
            if keep[c] and starts[c] == t:
                span = c
        if span < 0:
            ss[m], se[m] = ts[t], te[t]
            m += 1
            t += 1
        else:
            v = _special(cp, ts[t], te[ends[span] - 1], fl, ex)
            m = _emit_special(v, ts[t], el, ss, se, m)
            t = ends[span]
    ts[:m] = ss[:m]
    te[:m] = se[:m]
    return m


@jit
def _tokenize_piece(
    cp: Any,
    s: int,
    e: int,
    fl: Any,
    ex: Any,
    el: Any,
    emax: int,
    un: Any,
    ts: Any,
    te: Any,
    nt: int,
    ss: Any,
    se: Any,
    hd: bool,
) -> int:
    """spaCy's Tokenizer._split_affixes and _attach_tokens on one whitespace-free piece."""
    v = _special(cp, s, e, fl, ex)  # the exception equal to cp[s:e], kept up to date
    if v >= 0:
        return _emit_special(v, s, el, ts, te, nt)
    ns = 0
    last = -1
    while s < e and e - s != last and v < 0:
        last = e - s
        pre = _prefix_length(cp, s, e, fl)
        if pre > 0 and s + pre < e:
            v = _special(cp, s + pre, e, fl, ex)
            if v >= 0:
                ts[nt] = s
                te[nt] = s + pre
                nt += 1
                s += pre
                break
        suf = _suffix_length(cp, s + pre, e, fl, un)
        if suf > 0 and e - suf > s:
            v = _special(cp, s, e - suf, fl, ex)
            if v >= 0:
                ss[ns] = e - suf
                se[ns] = e
                ns += 1
                e -= suf
                break
        if pre > 0:
            ts[nt] = s
            te[nt] = s + pre
            nt += 1
            s += pre
        if suf > 0:
            ss[ns] = e - suf
            se[ns] = e
            ns += 1
            e -= suf
        if pre > 0 or suf > 0:
            v = _special(cp, s, e, fl, ex)
    if s < e:
        if v >= 0:
            nt = _emit_special(v, s, el, ts, te, nt)
        elif _url_matches(cp, s, e, fl):
            ts[nt] = s
            te[nt] = e
            nt += 1
        else:
            start = s
            i = s
            while i < e:
                m = _infix_length(cp, i, s, e, fl, hd) if has_flag(fl, cp[i], F_INFIX) else 0
                if m == 0:
                    i += 1
                    continue
                if i != s:
                    if i != start:
                        ts[nt] = start
                        te[nt] = i
                        nt += 1
                    ts[nt] = i
                    te[nt] = i + m
                    nt += 1
                    start = i + m
                i += m
            if start < e:
                ts[nt] = start
                te[nt] = e
                nt += 1
    for k in range(ns - 1, -1, -1):
        ts[nt] = ss[k]
        te[nt] = se[k]
        nt += 1
    return nt


@jit
def tokenize(
    cp: Any, a: int, b: int, fl: Any, tk: Any, bk: Any, ts: Any, te: Any, ss: Any, se: Any
) -> int:
    """Tokens of cp[a:b] into ts/te (start, end); returns their number.

    Pieces end at whitespace. Where ``bk`` is not empty (a segmented text; ``bk[i]`` is set
    where a segmenter found a word start, indexed like ``cp``), the tokens are the segmenter's
    words as they are, whitespace around them stripped: spaCy's Chinese, Japanese and Thai
    tokenizers and datatrove's Korean, Lao and Tibetan ones apply no affix rules (jieba keeps
    ``3.5%`` whole, PyThaiNLP's dictionary has words with a space, ``ต่าง ๆ``), and FineWeb-2's
    thresholds of those languages were measured on such words.
    """
    ex, el, emax, un, hd = tk[0], tk[1], tk[2], tk[3], tk[5]
    segmented = len(bk) > 0
    nt = 0
    lo, hi = -1, -1  # the first and last tokens of pieces with runs spelling an exception
    i = a
    while i < b:
        while i < b and has_flag(fl, cp[i], F_SPACE):
            i += 1
        j = i
        if segmented and i < b:
            j = i + 1
            while j < b and (bk[j] == 0 or bk[j] == DROPPED):
                j += 1
            k = j
            while has_flag(fl, cp[k - 1], F_SPACE):
                k -= 1
            ts[nt], te[nt] = i, k
            nt += 1
            i = j
            continue
        while j < b and not has_flag(fl, cp[j], F_SPACE):
            j += 1
        if j > i:
            t0 = nt
            nt = _tokenize_piece(cp, i, j, fl, ex, el, emax, un, ts, te, nt, ss, se, hd)
            if nt - t0 >= 2 and _has_run(cp, t0, nt, fl, ex, el, emax, ts, te):
                lo, hi = t0 if lo < 0 else lo, nt
        i = j
    if lo >= 0:
        nt = _merge_specials(cp, nt, lo, hi, fl, ex, el, emax, ts, te, ss, se)
    return nt


@jit
def sentence_count(cp: Any, ts: Any, te: Any, t0: int, t1: int, fl: Any) -> int:
    """Sentences spaCy's sentencizer finds in tokens t0..t1 of one stripped line."""
    if t1 <= t0:
        return 0
    count = 1
    seen = False
    for t in range(t0, t1):
        if t > t0 and seen:
            gap = ts[t] - te[t - 1]
            if gap > 1 or (gap == 1 and cp[te[t - 1]] != 32):  # a whitespace token
                count += 1
                seen = False
        single = te[t] - ts[t] == 1 and has_flag(fl, cp[ts[t]], F_SENT_END)
        punct = True
        for i in range(ts[t], te[t]):
            if not has_flag(fl, cp[i], F_CAT_P):
                punct = False
                break
        if seen and not punct and not single:
            count += 1
            seen = False
        elif single:
            seen = True
    return count


def split_words(text: str, language: str | None = None) -> list[str]:
    """The words of ``text`` as the signals split them (see the package docstring).

    Args:
        text: Any string.
        language: Its language (lid.176 label); a language in ``segment.SEGMENTERS`` is
            segmented into words first, and only English (or None) uses English's
            exceptions (``don't`` -> ``do n't``).

    Returns:
        Its words (tokens, punctuation included), in order.
    """
    t = tables()
    cp = code_points(text)
    breaks, _ = break_flags([text], [language])
    ts, te, ss, se = (np.empty(len(cp) + 1, np.int32) for _ in range(4))
    rules = rules_of(language)
    nt = tokenize(cp, 0, len(cp), t.flags, kernels([rules])[rules], breaks, ts, te, ss, se)
    return [text[start:end] for start, end in zip(ts[:nt].tolist(), te[:nt].tolist(), strict=True)]
