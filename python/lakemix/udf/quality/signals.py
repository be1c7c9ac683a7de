"""Signals: one numba pass per document computes every Gopher, C4 and FineWeb signal.

``SIGNALS`` names them in the order of the struct ``quality_signals`` returns; the package
docstring defines each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import numpy as np
import pyarrow as pa

from lakemix.udf.arrow import one_array
from lakemix.udf.quality.chars import (
    F_ALPHA,
    F_DECIMAL,
    F_LINE_BREAK,
    F_PUNCT,
    F_SPACE,
    F_TERMINAL,
    decode_utf8,
)
from lakemix.udf.quality.hashing import (
    HB,
    HLEN,
    ONE,
    find_slot,
    hash_key,
    hash_table,
    lower_key,
    mix64,
)
from lakemix.udf.quality.jit import jit
from lakemix.udf.quality.segment import DROPPED, WORD_BREAK, break_flags, segmenter_of
from lakemix.udf.quality.stop_words import languages_of, stop_word_keys, stop_word_lists
from lakemix.udf.quality.words import (
    has_flag,
    kernels,
    rules_of,
    sentence_count,
    tables,
    tokenize,
)
from lakemix.udf.utf8 import text_buffers

SIGNALS: tuple[tuple[str, str], ...] = (
    ("stop_word_count", "int64"),
    ("word_count", "int64"),
    ("mean_word_length", "float64"),
    ("hash_word_ratio", "float64"),
    ("ellipsis_word_ratio", "float64"),
    ("bullet_line_fraction", "float64"),
    ("ellipsis_line_fraction", "float64"),
    ("alpha_word_fraction", "float64"),
    ("duplicate_line_fraction", "float64"),
    ("duplicate_paragraph_fraction", "float64"),
    ("duplicate_line_char_fraction", "float64"),
    ("duplicate_paragraph_char_fraction", "float64"),
    *((f"top_{n}gram_char_fraction", "float64") for n in (2, 3, 4)),
    *((f"duplicated_{n}gram_char_fraction", "float64") for n in range(5, 11)),
    ("c4_has_lorem_ipsum", "int64"),
    ("c4_has_curly_bracket", "int64"),
    ("c4_sentence_count", "int64"),
    ("line_punct_fraction", "float64"),
    ("short_line_fraction", "float64"),
    ("fineweb_duplicate_line_char_ratio", "float64"),
    ("newline_word_ratio", "float64"),
)
_COLUMN = {name: k for k, (name, _) in enumerate(SIGNALS)}

_C_WORDS, _C_MEAN = _COLUMN["word_count"], _COLUMN["mean_word_length"]
_C_HASH, _C_ELLIPSIS = _COLUMN["hash_word_ratio"], _COLUMN["ellipsis_word_ratio"]
_C_BULLET_LINES = _COLUMN["bullet_line_fraction"]
_C_ELLIPSIS_LINES = _COLUMN["ellipsis_line_fraction"]
_C_ALPHA = _COLUMN["alpha_word_fraction"]
_C_DUP_LINES = _COLUMN["duplicate_line_fraction"]
_C_DUP_PARAS = _COLUMN["duplicate_paragraph_fraction"]
_C_DUP_LINE_CHARS = _COLUMN["duplicate_line_char_fraction"]
_C_DUP_PARA_CHARS = _COLUMN["duplicate_paragraph_char_fraction"]
_C_TOP2, _C_DUP5 = _COLUMN["top_2gram_char_fraction"], _COLUMN["duplicated_5gram_char_fraction"]
_C_LOREM, _C_CURLY = _COLUMN["c4_has_lorem_ipsum"], _COLUMN["c4_has_curly_bracket"]
_C_SENTENCES, _C_PUNCT_LINES = _COLUMN["c4_sentence_count"], _COLUMN["line_punct_fraction"]
_C_SHORT_LINES = _COLUMN["short_line_fraction"]
_C_FW_DUP_CHARS = _COLUMN["fineweb_duplicate_line_char_ratio"]
_C_NEWLINES = _COLUMN["newline_word_ratio"]
_C_STOP_WORDS = _COLUMN["stop_word_count"]
_SPACE_CODE = np.uint64(33)  # hash code of " " (code point + 1)
_EDIT = tuple(map(ord, "edit]"))
_CITATION_NEEDED = tuple(map(ord, "citation needed]"))


@jit
def _contains(cp: Any, a: int, b: int, lower: Any, ph: Any, k: int) -> bool:
    """Whether lower-cased cp[a:b] contains C4 phrase k (ph[k]: length, code points)."""
    n = ph[k, 0]
    for i in range(a, b - n + 1):
        same = True
        for j in range(n):
            if lower[cp[i + j]] != ph[k, 1 + j]:
                same = False
                break
        if same:
            return True
    return False


@jit
def _starts_with(cp: Any, i: int, b: int, word: Any) -> bool:
    if i + len(word) > b:
        return False
    for k in range(len(word)):  # noqa: SIM110 (numba compiles no generator expressions)
        if cp[i + k] != word[k]:
            return False
    return True


@jit
def _uncited(cp: Any, a: int, b: int, fl: Any, out: Any, bk: Any, bout: Any) -> int:
    """cp[a:b] without ``\\[\\d*]|\\[edit]|\\[citation needed]`` into out (and its word starts
    ``bk``, when not empty, into bout); returns its length."""
    m = 0
    i = a
    while i < b:
        if cp[i] == 91:
            j = i + 1
            while j < b and has_flag(fl, cp[j], F_DECIMAL):
                j += 1
            if j < b and cp[j] == 93:
                i = j + 1
                continue
            if _starts_with(cp, i + 1, b, _EDIT):
                i += 1 + len(_EDIT)
                continue
            if _starts_with(cp, i + 1, b, _CITATION_NEEDED):
                i += 1 + len(_CITATION_NEEDED)
                continue
        out[m] = cp[i]
        if len(bk) > 0:
            bout[m] = bk[i]
        m += 1
        i += 1
    return m


@jit
def _duplicates(cp: Any, bounds: Any, nb: int, keys: Any, stamps: Any, stamp: int) -> Any:
    """datatrove's find_duplicates over pieces cp[bounds[k, 0]:bounds[k, 1]]: (pieces, chars)."""
    pieces = 0
    chars = 0
    for k in range(nb):
        s, e = bounds[k, 0], bounds[k, 1]
        key = hash_key(cp, s, e)
        slot, found = find_slot(keys, stamps, stamp, key)
        if found:
            pieces += 1
            chars += e - s
        else:
            stamps[slot] = stamp
            keys[slot] = key
    return pieces, chars


@jit
def _gopher_lines(cp: Any, n: int, fl: Any) -> tuple[int, int, int]:
    """Lines of str.splitlines(), bullet lines, lines ending in an ellipsis."""
    lines = bullets = ellipses = 0
    i = 0
    while i < n:
        j = i
        while j < n and not has_flag(fl, cp[j], F_LINE_BREAK):
            j += 1
        lines += 1
        k = i
        while k < j and has_flag(fl, cp[k], F_SPACE):
            k += 1
        if k < j and (cp[k] == 0x2022 or cp[k] == 45):
            bullets += 1
        m = j
        while m > i and has_flag(fl, cp[m - 1], F_SPACE):
            m -= 1
        dots = m - i >= 3 and cp[m - 1] == 46 and cp[m - 2] == 46 and cp[m - 3] == 46
        if dots or (m > i and cp[m - 1] == 0x2026):
            ellipses += 1
        if j + 1 < n and cp[j] == 13 and cp[j + 1] == 10:
            j += 1
        i = j + 1
    return lines, bullets, ellipses


@jit
def _repetition_of_lines(
    cp: Any, n: int, fl: Any, bounds: Any, w: Any, stamp: int, out: Any
) -> int:
    """Gopher repetition of paragraphs (text.strip() split at \\n{2,}) and lines (\\n+).

    Returns the hash tables' next free generation.
    """
    keys, stamps = w[11][0], w[11][1]
    a, b = 0, n
    while a < b and has_flag(fl, cp[a], F_SPACE):
        a += 1
    while b > a and has_flag(fl, cp[b - 1], F_SPACE):
        b -= 1
    nb = 0
    start = a
    i = a
    while i < b:
        if cp[i] == 10 and i + 1 < b and cp[i + 1] == 10:
            j = i
            while j < b and cp[j] == 10:
                j += 1
            bounds[nb, 0], bounds[nb, 1] = start, i
            nb += 1
            start = i = j
        else:
            i += 1
    bounds[nb, 0], bounds[nb, 1] = start, b
    nb += 1
    stamp += 1
    pieces, chars = _duplicates(cp, bounds, nb, keys, stamps, stamp)
    out[_C_DUP_PARAS] = pieces / nb
    if n > 0:
        out[_C_DUP_PARA_CHARS] = chars / n
    nb = 0
    start = 0
    i = 0
    while i < n:
        if cp[i] == 10:
            j = i
            while j < n and cp[j] == 10:
                j += 1
            bounds[nb, 0], bounds[nb, 1] = start, i
            nb += 1
            start = i = j
        else:
            i += 1
    bounds[nb, 0], bounds[nb, 1] = start, n
    nb += 1
    stamp += 1
    pieces, chars = _duplicates(cp, bounds, nb, keys, stamps, stamp)
    out[_C_DUP_LINES] = pieces / nb
    if n > 0:
        out[_C_DUP_LINE_CHARS] = chars / n
    return stamp


@jit
def _fineweb_lines(cp: Any, n: int, fl: Any, bounds: Any, w: Any, stamp: int, out: Any) -> Any:
    """FineWeb's line signals over the non-blank lines of text.split("\\n").

    Returns the tables' next free generation and the number of newlines.
    """
    keys, stamps = w[11][0], w[11][1]
    nb = 0
    punct = short = 0
    newlines = 0
    start = 0
    for i in range(n + 1):
        if i == n or cp[i] == 10:
            if i < n:
                newlines += 1
            blank = True
            for k in range(start, i):
                if not has_flag(fl, cp[k], F_SPACE):
                    blank = False
                    break
            if not blank:
                bounds[nb, 0], bounds[nb, 1] = start, i
                nb += 1
                if has_flag(fl, cp[i - 1], F_TERMINAL):
                    punct += 1
                if i - start <= 30:
                    short += 1
            start = i + 1
    if nb > 0:
        out[_C_PUNCT_LINES] = punct / nb
        out[_C_SHORT_LINES] = short / nb
        stamp += 1
        chars = _duplicates(cp, bounds, nb, keys, stamps, stamp)[1]
        out[_C_FW_DUP_CHARS] = chars / (n - newlines)
    return stamp, newlines


@jit
def _stop_words(cp: Any, ts: Any, te: Any, nt: int, lower: Any, sw: Any) -> int:
    """How many of the tokens, lower-cased, are among the sorted stop-word keys ``sw``."""
    count = 0
    for t in range(nt):
        key = lower_key(cp, ts[t], te[t], lower)
        lo, hi = 0, len(sw)
        while lo < hi:
            mid = (lo + hi) // 2
            if sw[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(sw) and sw[lo] == key:
            count += 1
    return count


@jit
def _words(
    cp: Any,
    n: int,
    nt: int,
    fl: Any,
    lower: Any,
    bk: Any,
    sw: Any,
    newlines: int,
    w: Any,
    out: Any,
) -> None:
    """Gopher quality's word signals, FineWeb's newlines per word and the stop-word count
    (``bk``: a character marked ``DROPPED`` is not part of its token)."""
    ts, te, th, tp, tl = w[0], w[1], w[8], w[9], w[10]
    dropped = len(bk) > 0
    words = word_chars = alphas = 0
    for t in range(nt):
        symbol = True
        alpha = False
        h = np.uint64(0)
        p = ONE
        length = te[t] - ts[t]
        for i in range(ts[t], te[t]):
            c = cp[i]
            if dropped and bk[i] == DROPPED:
                length -= 1
                continue
            if not has_flag(fl, c, F_PUNCT):
                symbol = False
            if has_flag(fl, c, F_ALPHA):
                alpha = True
            h = h * HB + np.uint64(c + 1)
            p = p * HB
        th[t], tp[t], tl[t] = h, p, length
        if not symbol:
            words += 1
            word_chars += length
        if alpha:
            alphas += 1
    out[_C_WORDS] = words
    if words > 0:
        out[_C_MEAN] = word_chars / words
    if nt > 0:
        hashes = dots = 0
        i = 0
        while i < n:
            c = cp[i]
            if c == 35:
                hashes += 1
            elif c == 0x2026:
                dots += 1
            elif c == 46 and i + 2 < n and cp[i + 1] == 46 and cp[i + 2] == 46:
                dots += 1
                i += 3
                continue
            i += 1
        out[_C_HASH] = hashes / nt
        out[_C_ELLIPSIS] = dots / nt
        out[_C_ALPHA] = alphas / nt
        out[_C_NEWLINES] = newlines / nt
    if len(sw) > 0:
        out[_C_STOP_WORDS] = _stop_words(cp, ts, te, nt, lower, sw)


@jit
def _repetition_of_ngrams(n: int, nt: int, w: Any, stamp: int, out: Any) -> int:
    """Gopher repetition: the most frequent n-gram (" ".join), duplicated n-grams ("".join).

    Returns the tables' next free generation.
    """
    th, tp, tl = w[8], w[9], w[10]
    keys, stamps, counts, firsts, lengths = w[11]
    for g in range(2, 5):
        if nt < g:
            continue
        stamp += 1
        best = -1
        for i in range(nt - g + 1):
            h = th[i]
            length = tl[i]
            for t in range(i + 1, i + g):
                h = (h * HB + _SPACE_CODE) * tp[t] + th[t]
                length += 1 + tl[t]
            key = mix64(h ^ (np.uint64(length) * HLEN))
            slot, found = find_slot(keys, stamps, stamp, key)
            if found:
                counts[slot] += 1
            else:
                stamps[slot], keys[slot], counts[slot], firsts[slot] = stamp, key, 1, i
                lengths[slot] = length
            if best < 0 or (counts[slot], -firsts[slot]) > (counts[best], -firsts[best]):
                best = slot
        out[_C_TOP2 + g - 2] = lengths[best] * counts[best] / n
    for g in range(5, 11):
        stamp += 1
        repeated = 0
        i = 0
        while i < nt - g + 1:
            h = th[i]
            length = tl[i]
            for t in range(i + 1, i + g):
                h = h * tp[t] + th[t]
                length += tl[t]
            key = mix64(h ^ (np.uint64(length) * HLEN))
            slot, found = find_slot(keys, stamps, stamp, key)
            if found:
                repeated += length
                i += g
            else:
                stamps[slot], keys[slot] = stamp, key
                i += 1
        if n > 0:
            out[_C_DUP5 + g - 5] = repeated / n
    return stamp


@jit
def _c4(cp: Any, n: int, nt: int, tk: Any, fl: Any, lower: Any, bk: Any, w: Any, out: Any) -> None:
    """C4 (FineWeb's settings) over the lines of str.splitlines(): lorem ipsum, curly brackets
    and the sentences of the lines C4 keeps. A line's words are split at whitespace and, in a
    segmented language, at the segmenter's word starts (datatrove's C4 splits at whitespace
    only, which keeps no line of Chinese)."""
    ts, te, ss, se, buf, lts, lte, bbuf = w[0], w[1], w[2], w[3], w[5], w[6], w[7], w[13]
    ph = tk[4]
    segmented = len(bk) > 0
    lorem = curly = sentences = 0
    first = 0
    i = 0
    while i < n:
        j = i
        while j < n and not has_flag(fl, cp[j], F_LINE_BREAK):
            j += 1
        a, b = i, j
        while a < b and has_flag(fl, cp[a], F_SPACE):
            a += 1
        while b > a and has_flag(fl, cp[b - 1], F_SPACE):
            b -= 1
        while first < nt and ts[first] < i:
            first += 1
        stop = first
        while stop < nt and te[stop] <= j:
            stop += 1
        words = longest = 0
        k = a
        while k < b:
            while k < b and has_flag(fl, cp[k], F_SPACE):
                k += 1
            w0 = k
            while (
                k < b
                and not has_flag(fl, cp[k], F_SPACE)
                and not (segmented and k > w0 and bk[k] == WORD_BREAK)
            ):
                k += 1
            if k > w0:
                words += 1
                longest = max(longest, k - w0)
        if words >= 3 and longest <= 1000:
            cited = False
            for k in range(a, b):
                if cp[k] == 91:
                    cited = True
                    break
            src, sa, sb = cp, a, b
            if cited:
                src, sa, sb = buf, 0, _uncited(cp, a, b, fl, buf, bk, bbuf)
            if _contains(src, sa, sb, lower, ph, 0):
                lorem = 1
            if not _contains(src, sa, sb, lower, ph, 1):
                has_curly = False
                for k in range(sa, sb):
                    if src[k] == 123:
                        has_curly = True
                        break
                if has_curly:
                    curly = 1
                else:
                    policy = False
                    for q in range(2, len(ph)):
                        if _contains(src, sa, sb, lower, ph, q):
                            policy = True
                            break
                    if not policy and cited:
                        lbk = bbuf[:sb] if segmented else bk
                        m = tokenize(buf, 0, sb, fl, tk, lbk, lts, lte, ss, se)
                        sentences += sentence_count(buf, lts, lte, 0, m, fl)
                    elif not policy:
                        sentences += sentence_count(cp, ts, te, first, stop, fl)
        first = stop
        if j + 1 < n and cp[j] == 13 and cp[j + 1] == 10:
            j += 1
        i = j + 1
    out[_C_LOREM], out[_C_CURLY], out[_C_SENTENCES] = lorem, curly, sentences


@jit
def _document(
    cp: Any, n: int, tk: Any, fl: Any, lower: Any, bk: Any, sw: Any, w: Any, out: Any
) -> None:
    """All signals of one decoded document into out (float64, SIGNALS order).

    ``bk``: the segmenter's word starts (empty: split at whitespace); ``sw``: the sorted keys
    of its language's stop words (empty: none).
    """
    bounds = w[4]
    stamp = w[12][0]  # a slot of the hash tables is live when stamped with its generation
    lines, bullets, ellipses = _gopher_lines(cp, n, fl)
    if lines > 0:
        out[_C_BULLET_LINES] = bullets / lines
        out[_C_ELLIPSIS_LINES] = ellipses / lines
    stamp = _repetition_of_lines(cp, n, fl, bounds, w, stamp, out)
    stamp, newlines = _fineweb_lines(cp, n, fl, bounds, w, stamp, out)
    nt = tokenize(cp, 0, n, fl, tk, bk, w[0], w[1], w[2], w[3])
    _words(cp, n, nt, fl, lower, bk, sw, newlines, w, out)
    stamp = _repetition_of_ngrams(n, nt, w, stamp, out)
    _c4(cp, n, nt, tk, fl, lower, bk, w, out)
    w[12][0] = stamp


@jit
def _workspace(n: int) -> Any:
    """Scratch arrays for documents of up to n code points (so up to n tokens and lines)."""
    i32 = np.int32
    return (
        np.empty(n + 1, i32),  # token starts
        np.empty(n + 1, i32),  # token ends
        np.empty(n + 1, i32),  # suffixes
        np.empty(n + 1, i32),
        np.empty((n + 2, 2), i32),  # lines
        np.empty(n + 1, i32),  # a line without citations
        np.empty(n + 1, i32),  # its tokens
        np.empty(n + 1, i32),
        np.empty(n + 1, np.uint64),  # token hashes
        np.empty(n + 1, np.uint64),  # base ** token length
        np.empty(n + 1, i32),  # token lengths
        hash_table(n + 2),  # room for every token, line or paragraph
        np.zeros(1, np.int64),  # generation of the tables' stamps
        np.empty(n + 1, np.uint8),  # word starts of a line without citations
    )


@jit
def _signals_kernel(
    data: Any,
    offsets: Any,
    valid: Any,
    breaks: Any,
    break_offsets: Any,
    stop_words: Any,
    word_offsets: Any,
    languages: Any,
    rules: Any,
    fl: Any,
    lower: Any,
    kernels: Any,
    out: Any,
) -> None:
    longest = 1
    for r in range(len(offsets) - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    cap = min(longest, 1 << 16)
    w = _workspace(cap)
    cp = np.empty(cap + 1, np.int32)
    none = np.zeros(0, np.uint8)
    for r in range(len(offsets) - 1):
        if not valid[r]:
            continue
        size = offsets[r + 1] - offsets[r]
        if size > cap:
            cap = size
            w = _workspace(cap)
            cp = np.empty(cap + 1, np.int32)
        n = decode_utf8(data, offsets[r], offsets[r + 1], cp)
        # a segmented text's word starts, if they cover it (they do for valid UTF-8)
        o, e = break_offsets[r], break_offsets[r + 1]
        bk = breaks[o:e] if e - o == n else none
        lang = languages[r]
        sw = (
            stop_words[word_offsets[lang] : word_offsets[lang + 1]] if lang >= 0 else stop_words[:0]
        )
        _document(cp, n, kernels[rules[r]], fl, lower, bk, sw, w, out[r])


def _text(texts: pa.Array, i: int) -> str | None:
    """Text i as a str, None if its bytes are not UTF-8 (then it is not segmented)."""
    try:
        text: str | None = texts[i].as_py()
    except UnicodeDecodeError:
        return None
    return text


def quality_signals(
    texts: pa.Array | pa.ChunkedArray,
    languages: pa.Array | pa.ChunkedArray | None = None,
    stop_words: pa.Array | pa.ChunkedArray | Mapping[str, Iterable[str]] | None = None,
) -> pa.StructArray:
    """Gopher, C4 and FineWeb quality signals of each text (see the package docstring).

    Args:
        texts: Strings (string, large_string, string_view or null type); nulls allowed.
        languages: The language (lid.176 label) of each text: texts of a language in
            ``segment.SEGMENTERS`` are segmented into words first, those of a language with
            affix rules of its own split by ``affixes``, and only English text (or
            text of no language) is split with English's exceptions. None: as English.
        stop_words: The stop words of each text's language, either one list per text (a
            list<string> array, as the dbt model passes the stop-word seed: every text of a
            language must get the same list) or a mapping from language to its words.

    Returns:
        A struct array of the same length with one field per name in ``SIGNALS`` (float64
        fractions and ratios, int64 counts and 0/1 flags); null where the text is null.
        ``stop_word_count`` is null where the language has no stop words (or is null).

    Raises:
        TypeError: If ``texts`` or ``languages`` are not arrays of strings.
        ValueError: If the arrays differ in length, or two texts of one language get
            different stop-word lists.
    """
    texts = one_array(texts) if isinstance(texts, pa.ChunkedArray) else texts
    size = len(texts)
    names = languages_of(languages, size)
    lists = stop_word_lists(stop_words, names, size)
    codes = sorted(lists)
    index = {code: k for k, code in enumerate(codes)}
    lang = np.array([index.get(name or "", -1) for name in names], dtype=np.int64)
    t = tables()
    keys = [stop_word_keys(lists[code], t.lower) for code in codes]
    word_offsets = np.cumsum([0, *map(len, keys)], dtype=np.int64)
    words = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
    data, offsets, valid = text_buffers(texts)
    split = {name: segmenter_of(name) is not None for name in set(names)}
    strings = [
        _text(texts, i) if valid[i] and split[name] else None for i, name in enumerate(names)
    ]
    breaks, break_offsets = break_flags(strings, names)
    out = np.zeros((size, len(SIGNALS)), dtype=np.float64)
    rule_sets = {name: rules_of(name) for name in set(names)}
    rules = np.array([rule_sets[name] for name in names], dtype=np.int64)
    _signals_kernel(
        data,
        offsets,
        valid,
        breaks,
        break_offsets,
        words,
        word_offsets,
        lang,
        rules,
        t.flags,
        t.lower,
        kernels(np.unique(rules).tolist()),
        out,
    )
    arrays = []
    for k, (name, kind) in enumerate(SIGNALS):
        column = out[:, k].astype(np.int64) if kind == "int64" else out[:, k]
        mask = (lang < 0) | ~valid if name == "stop_word_count" else None
        arrays.append(pa.array(column, mask=mask))
    struct = pa.StructArray.from_arrays(
        arrays, names=[name for name, _ in SIGNALS], mask=pa.array(~valid, pa.bool_())
    )
    return cast(pa.StructArray, struct)
