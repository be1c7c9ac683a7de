"""numba kernels of the quality model: hashed features of a text, scoring and training.

One module, so that numba's disk cache (which checks only the module of a kernel) never runs a
stale callee. The text is read where it lies: the UTF-8 bytes and offsets of an Arrow string
array, lower-cased beforehand by Arrow (``pyarrow.compute.utf8_lower``).

Features, each hashed (FNV-1a, salted per group) into ``buckets`` weights, in four groups whose
contributions are averaged within the group and summed (a linear model over the mean of each
group's one-hot vectors, as fastText averages its rows):

- ``words``: every word and every pair of neighbouring words. A word is a run of code points that
  are neither white space nor punctuation (ASCII and the common Unicode punctuation blocks);
  digits are hashed as ``0``, so numbers generalise.
- ``chars``: every three consecutive code points of the text with white space runs as one space
  and digits as ``0``: the words of the scripts written without spaces.
- ``lines``: one token per non-blank line: its length band, how it ends (sentence punctuation,
  other punctuation, a digit, a letter), how it starts (a bullet or symbol, a letter) and whether
  the same line came earlier in the text.
- ``shape``: one token per document measure, banded: length, the share of lines ending as
  sentences, of distinct words, of short lines, of digits, of punctuation, the mean word length.

Words and characters carry the vocabulary (what the text talks about: spam, adult terms, cookie
notices); lines and shape carry the layout, which is the same in every script, so a language the
labels never showed still gets a score from its layout.
"""

from __future__ import annotations

import numba
import numpy as np

GROUPS = ("words", "chars", "lines", "shape")
_SALT = (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F)
_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619
_MASK32 = 0xFFFFFFFF


@numba.njit(cache=True, nogil=True, inline="always")
def _fnv(h: int, value: int) -> int:
    return ((h ^ value) * _FNV_PRIME) & _MASK32


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(a: int, b: int) -> int:
    h = _fnv(_fnv(_FNV_OFFSET, a & 0xFFFF), (a >> 16) & 0xFFFF)
    return _fnv(_fnv(h, b & 0xFFFF), (b >> 16) & 0xFFFF)


@numba.njit(cache=True, nogil=True, inline="always")
def _is_space(cp: int) -> bool:
    return cp <= 32 or cp == 0xA0 or cp == 0x3000 or (0x2000 <= cp <= 0x200B) or cp == 0xFEFF


@numba.njit(cache=True, nogil=True, inline="always")
def _is_punct(cp: int) -> bool:
    if cp < 128:
        return not (48 <= cp <= 57 or 97 <= cp <= 122 or 65 <= cp <= 90) and cp > 32
    return (
        (0xA1 <= cp <= 0xBF)
        or cp == 0xD7
        or cp == 0xF7
        or (0x2010 <= cp <= 0x2BFF)
        or (0x3001 <= cp <= 0x303F)
        or (0xFF01 <= cp <= 0xFF0F)
        or (0xFF1A <= cp <= 0xFF20)
        or (0xFF3B <= cp <= 0xFF40)
        or (0xFF5B <= cp <= 0xFF65)
        or cp == 0x060C
        or cp == 0x061B
        or cp == 0x061F
        or cp == 0x06D4
        or cp == 0x0964
        or cp == 0x0965
        or cp == 0x0589
        or cp == 0x1362
        or cp == 0x104B
        or cp == 0x0F0D
        or (0x1F000 <= cp <= 0x1FAFF)
    )


@numba.njit(cache=True, nogil=True, inline="always")
def _is_terminal(cp: int) -> bool:
    return (
        cp == 46  # .
        or cp == 33  # !
        or cp == 63  # ?
        or cp == 34  # "
        or cp == 39  # '
        or cp == 41  # )
        or cp == 0x2026  # ellipsis
        or cp == 0x3002  # ideographic full stop
        or cp == 0xFF01
        or cp == 0xFF1F
        or cp == 0xFF0E
        or cp == 0x0964  # danda
        or cp == 0x0965
        or cp == 0x06D4  # Arabic full stop
        or cp == 0x061F
        or cp == 0x0589  # Armenian full stop
        or cp == 0x1362  # Ethiopic full stop
        or cp == 0x104B  # Myanmar section
        or cp == 0x0F0D  # Tibetan shad
        or cp == 0x201D
        or cp == 0x00BB
        or cp == 0x300D
    )


@numba.njit(cache=True, nogil=True, inline="always")
def _is_digit(cp: int) -> bool:
    return 48 <= cp <= 57


@numba.njit(cache=True, nogil=True, inline="always")
def _band(value: float, edges: np.ndarray) -> int:
    k = 0
    while k < len(edges) and value >= edges[k]:
        k += 1
    return k


_LENGTH_EDGES = np.array([1, 11, 31, 81, 201, 1001], np.float64)
_DOC_EDGES = np.array([200, 500, 1000, 2000, 5000, 20000], np.float64)
_FRACTION_EDGES = np.array([0.05, 0.15, 0.3, 0.5, 0.7, 0.85, 0.95], np.float64)
_SMALL_EDGES = np.array([0.005, 0.02, 0.05, 0.1, 0.2], np.float64)
_WORD_LENGTH_EDGES = np.array([2, 3, 4, 5, 6, 7, 9, 12], np.float64)


@numba.njit(cache=True, nogil=True)
def features(
    data: np.ndarray,
    start: int,
    end: int,
    ids: np.ndarray,
    groups: np.ndarray,
    buckets: int,
    line_hashes: np.ndarray,
) -> int:
    """Write the hashed features of ``data[start:end]`` to ``ids``/``groups``; return how many.

    ``ids`` and ``groups`` must hold at least ``4 * (end - start) + 16`` entries;
    ``line_hashes`` is zeroed scratch of ``2 * (end - start) + 4`` entries (lines and words seen).
    """
    n = 0
    # words and chars
    word_h = _FNV_OFFSET
    word_len = 0
    prev_word = -1
    c1 = 32
    c2 = 32
    last_space = True
    # lines
    line_start = True
    line_len = 0
    line_h = _FNV_OFFSET
    line_first = 0
    line_last = 0
    lines = 0
    # shape
    chars = 0
    digits = 0
    puncts = 0
    words = 0
    word_chars = 0
    distinct = 0
    terminal_lines = 0
    short_lines = 0
    seen_words = line_hashes[len(line_hashes) // 2 :]
    table = len(seen_words)
    for k in range(table):
        seen_words[k] = 0
    i = start
    while i <= end:
        if i < end:
            b = data[i]
            width = 1 if b < 0x80 else (2 if b < 0xE0 else (3 if b < 0xF0 else 4))
            if b < 0x80:
                cp = int(b)
            elif i + width > end or b < 0xC0:
                cp = 0xFFFD  # invalid UTF-8: one replacement character a byte
                width = 1
            elif width == 2:
                cp = ((int(b) & 0x1F) << 6) | (int(data[i + 1]) & 0x3F)
            elif width == 3:
                cp = (
                    ((int(b) & 0x0F) << 12)
                    | ((int(data[i + 1]) & 0x3F) << 6)
                    | (int(data[i + 2]) & 0x3F)
                )
            else:
                cp = (
                    ((int(b) & 0x07) << 18)
                    | ((int(data[i + 1]) & 0x3F) << 12)
                    | ((int(data[i + 2]) & 0x3F) << 6)
                    | (int(data[i + 3]) & 0x3F)
                )
            i += width
        else:
            cp = 10  # the end closes the last word and line
            i += 1
        space = _is_space(cp)
        punct = (not space) and _is_punct(cp)
        digit = _is_digit(cp)
        key = 48 if digit else cp
        if not (i > end and cp == 10):
            chars += 1
            digits += digit
            puncts += punct
        # words
        if space or punct:
            if word_len > 0:
                ids[n] = _mix(word_h, _SALT[0]) % buckets
                groups[n] = 0
                n += 1
                if prev_word >= 0:
                    ids[n] = _mix(_mix(prev_word, word_h), _SALT[0]) % buckets
                    groups[n] = 0
                    n += 1
                prev_word = word_h
                words += 1
                word_chars += word_len
                slot = word_h % table
                while seen_words[slot] != 0 and seen_words[slot] != word_h + 1:
                    slot = (slot + 1) % table
                if seen_words[slot] == 0:
                    seen_words[slot] = word_h + 1
                    distinct += 1
                word_h = _FNV_OFFSET
                word_len = 0
        else:
            word_h = _fnv(_fnv(word_h, key & 0xFFFF), key >> 16)
            word_len += 1
        # chars: white space runs as one space
        if not (space and last_space):
            c = 32 if space else key
            if not (i > end):
                ids[n] = _mix(_mix(_mix(c1, c2), c), _SALT[1]) % buckets
                groups[n] = 1
                n += 1
            c1 = c2
            c2 = c
        last_space = space
        # lines
        if cp == 10:
            if line_len > 0:
                lines += 1
                slot = line_h % (len(line_hashes) // 2)
                repeated = 0
                while line_hashes[slot] != 0:
                    if line_hashes[slot] == line_h + 1:
                        repeated = 1
                        break
                    slot = (slot + 1) % (len(line_hashes) // 2)
                if repeated == 0:
                    line_hashes[slot] = line_h + 1
                if _is_terminal(line_last):
                    ending = 0
                    terminal_lines += 1
                elif _is_punct(line_last):
                    ending = 1
                elif _is_digit(line_last):
                    ending = 2
                else:
                    ending = 3
                opening = 0 if _is_punct(line_first) or _is_digit(line_first) else 1
                band = _band(line_len, _LENGTH_EDGES)
                if line_len <= 30:
                    short_lines += 1
                token = ((band * 4 + ending) * 2 + opening) * 2 + repeated
                ids[n] = _mix(token, _SALT[2]) % buckets
                groups[n] = 2
                n += 1
            line_start = True
            line_len = 0
            line_h = _FNV_OFFSET
        elif not (space and line_start):
            if line_start:
                line_first = cp
                line_start = False
            if not space:
                line_last = cp
            line_len += 1
            line_h = _fnv(_fnv(line_h, cp & 0xFFFF), cp >> 16)
    # shape: one token per measure, the measure's index in the high bits
    tokens = np.empty(7, np.int64)
    tokens[0] = _band(chars, _DOC_EDGES)
    tokens[1] = _band(terminal_lines / lines if lines else 0.0, _FRACTION_EDGES)
    tokens[2] = _band(distinct / words if words else 0.0, _FRACTION_EDGES)
    tokens[3] = _band(short_lines / lines if lines else 0.0, _FRACTION_EDGES)
    tokens[4] = _band(digits / chars if chars else 0.0, _SMALL_EDGES)
    tokens[5] = _band(puncts / chars if chars else 0.0, _SMALL_EDGES)
    tokens[6] = _band(word_chars / words if words else 0.0, _WORD_LENGTH_EDGES)
    for k in range(7):
        ids[n] = _mix(k * 64 + tokens[k], _SALT[3]) % buckets
        groups[n] = 3
        n += 1
    return n


@numba.njit(cache=True, nogil=True, inline="always")
def _logit(weights: np.ndarray, bias: float, ids: np.ndarray, groups: np.ndarray, n: int) -> float:
    sums = np.zeros(4, np.float64)
    counts = np.zeros(4, np.float64)
    for k in range(n):
        sums[groups[k]] += weights[ids[k]]
        counts[groups[k]] += 1.0
    z = bias
    for g in range(4):
        if counts[g] > 0:
            z += sums[g] / counts[g]
    return z


@numba.njit(cache=True, nogil=True)
def _buffers(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature ids, their groups and the scratch of ``features``, for the longest text."""
    longest = 0
    for r in range(len(offsets) - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    ids = np.empty(4 * longest + 16, np.int64)
    groups = np.empty(4 * longest + 16, np.int8)
    return ids, groups, np.zeros(2 * longest + 4, np.int64)


@numba.njit(cache=True, nogil=True)
def score(
    data: np.ndarray, offsets: np.ndarray, valid: np.ndarray, weights: np.ndarray, bias: float
) -> np.ndarray:
    """The probability of ``keep`` of each text (NaN where ``valid`` is 0)."""
    rows = len(offsets) - 1
    out = np.empty(rows, np.float64)
    ids, groups, scratch = _buffers(offsets)
    for r in range(rows):
        if not valid[r]:
            out[r] = np.nan
            continue
        size = 2 * (offsets[r + 1] - offsets[r]) + 4
        scratch[:size] = 0
        n = features(data, offsets[r], offsets[r + 1], ids, groups, len(weights), scratch[:size])
        z = _logit(weights, bias, ids, groups, n)
        out[r] = 1.0 / (1.0 + np.exp(-z))
    return out


@numba.njit(cache=True, nogil=True)
def train(
    data: np.ndarray,
    offsets: np.ndarray,
    labels: np.ndarray,
    sample_weights: np.ndarray,
    order: np.ndarray,
    buckets: int,
    epochs: int,
    learning_rate: float,
    l2: float,
) -> tuple[np.ndarray, float]:
    """Logistic regression by AdaGrad over ``order`` (the row order of every epoch, flattened).

    Sequential and single-threaded: the same inputs give the same weights, bit for bit.
    """
    weights = np.zeros(buckets, np.float64)
    squares = np.full(buckets, 1e-8, np.float64)
    bias = 0.0
    bias_square = 1e-8
    ids, groups, scratch = _buffers(offsets)
    counts = np.zeros(4, np.float64)
    for step in range(len(order)):
        r = order[step]
        size = 2 * (offsets[r + 1] - offsets[r]) + 4
        scratch[:size] = 0
        n = features(data, offsets[r], offsets[r + 1], ids, groups, buckets, scratch[:size])
        z = _logit(weights, bias, ids, groups, n)
        p = 1.0 / (1.0 + np.exp(-z))
        g = (p - labels[r]) * sample_weights[r]
        counts[:] = 0.0
        for k in range(n):
            counts[groups[k]] += 1.0
        for k in range(n):
            j = ids[k]
            grad = g / counts[groups[k]] + l2 * weights[j]
            squares[j] += grad * grad
            weights[j] -= learning_rate * grad / np.sqrt(squares[j])
        bias_square += g * g
        bias -= learning_rate * g / np.sqrt(bias_square)
    return weights, bias
