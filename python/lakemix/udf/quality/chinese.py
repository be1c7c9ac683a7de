"""Chinese word segmentation: jieba's precise mode with its HMM, as numba kernels.

The same words as ``jieba.Tokenizer().cut(text, cut_all=False, HMM=True)`` (what spaCy's Chinese
tokenizer runs and FineWeb-2's thresholds were measured with), about ten times faster, from
jieba's own dictionary and HMM tables (loaded from the installed jieba package once per
process). jieba's steps, each reproduced with its tie-breaking:

- the text splits into blocks of ``[\\u4E00-\\u9FD5a-zA-Z0-9+#&._%-]`` and the rest; outside the
  blocks each character is a word (whitespace is not a word here; ``\\r\\n`` is one);
- in a block, every position's candidate words are the dictionary words starting there (the
  DAG), and the route maximizes the sum of ``log(freq) - log(total)`` from the end (ties: the
  longer word);
- runs of single characters on the route that are not one dictionary word go to the HMM:
  Han runs through Viterbi over B/M/E/S (ties: the later state letter), other runs split
  into ``[a-zA-Z0-9]+(\\.\\d+)?%?`` and what lies between.

Words are equal by 64-bit hashes of their code points and length (``hashing``).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import math
import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from lakemix.udf.quality.chars import code_points
from lakemix.udf.quality.hashing import HB, HLEN, find_slot, hash_table, mix64
from lakemix.udf.quality.jit import cache_folder, jit, sources_digest

_HAN_FIRST, _HAN_LAST = 0x4E00, 0x9FD5
_MIN_FLOAT = -3.14e100
_STATES = "BMES"  # HMM states, in jieba's order; ties go to the later letter (S > M > E > B)
# jieba.finalseg.PrevStatus: the states each state may follow.
_PREVIOUS = {"B": "ES", "M": "MB", "S": "SE", "E": "BM"}


class Model(NamedTuple):
    keys: np.ndarray  # hash table of dictionary words and their prefixes (uint64)
    stamps: np.ndarray  # 1 where a slot holds a key
    freqs: np.ndarray  # frequency per slot (0: a prefix only)
    log_total: float
    start: np.ndarray  # float64[4]: log P(first state)
    trans: np.ndarray  # float64[4, 4]: log P(state | previous), -3.14e100 when absent
    emit: np.ndarray  # float64[4, Han range]: log P(character | state)
    previous: np.ndarray  # int64[4, 2]: the states each state may follow


@jit
def _fill(codes: Any, offsets: Any, freqs: Any, keys: Any, stamps: Any, slot_freq: Any) -> None:
    for w in range(len(offsets) - 1):
        h = np.uint64(0)
        for i in range(offsets[w], offsets[w + 1]):
            h = h * HB + np.uint64(codes[i] + 1)
        key = mix64(h ^ (np.uint64(offsets[w + 1] - offsets[w]) * HLEN))
        slot, found = find_slot(keys, stamps, 1, key)
        if not found:
            stamps[slot], keys[slot] = 1, key
        slot_freq[slot] = freqs[w]


@functools.cache
def model() -> Model:
    """jieba's dictionary (words and their prefixes) and HMM tables, as arrays.

    Built from the installed jieba (1.3 s) and kept beside the numba kernels' cache, named by
    jieba's version, its dictionary file and this package's sources, so a later process loads
    it (0.05 s); an unreadable or unwritable cache only costs the build.
    """
    path = _cached_model_path()
    if path is not None:
        with contextlib.suppress(OSError, ValueError, KeyError), np.load(path) as arrays:
            return Model(**{name: arrays[name] for name in Model._fields})._replace(
                log_total=float(arrays["log_total"])
            )
    built = _build_model()
    if path is not None:
        with contextlib.suppress(OSError):
            for old in path.parent.glob("jieba-model-*.npz"):
                old.unlink()
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            with partial.open("wb") as f:
                np.savez(f, **built._asdict())
            os.replace(partial, path)
    return built


def _cached_model_path() -> Path | None:
    import jieba

    folder = cache_folder()
    if folder is None:
        return None
    with jieba.get_dict_file() as f:
        stat = Path(f.name).stat()
    name = f"{jieba.__version__}-{stat.st_size}-{stat.st_mtime_ns}-{sources_digest()[:16]}"
    return folder / f"jieba-model-{name}.npz"


def _build_model() -> Model:
    import jieba
    from jieba.finalseg import prob_emit, prob_start, prob_trans

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.check_initialized()
    words = list(tokenizer.FREQ)
    codes = code_points("".join(words))
    offsets = np.zeros(len(words) + 1, np.int64)
    np.cumsum([len(w) for w in words], out=offsets[1:])
    freqs = np.array([tokenizer.FREQ[w] for w in words], np.int64)
    keys, stamps, _, _, _ = hash_table(len(words))
    slot_freq = np.zeros(len(keys), np.int64)
    _fill(codes, offsets, freqs, keys, stamps, slot_freq)
    states = {s: k for k, s in enumerate(_STATES)}
    start = np.array([prob_start.P[s] for s in _STATES], np.float64)
    trans = np.full((4, 4), _MIN_FLOAT, np.float64)
    for s, row in prob_trans.P.items():
        for t, p in row.items():
            trans[states[s], states[t]] = p
    emit = np.full((4, _HAN_LAST - _HAN_FIRST + 1), _MIN_FLOAT, np.float64)
    for s, row in prob_emit.P.items():
        for char, p in row.items():
            if _HAN_FIRST <= ord(char) <= _HAN_LAST:
                emit[states[s], ord(char) - _HAN_FIRST] = p
    previous = np.array([[states[p] for p in _PREVIOUS[s]] for s in _STATES], np.int64)
    return Model(
        keys,
        stamps,
        slot_freq,
        math.log(tokenizer.total),
        start,
        trans,
        emit,
        previous,
    )


@jit
def _is_han(c: int) -> bool:
    return _HAN_FIRST <= c <= _HAN_LAST


@jit
def _in_block(c: int) -> bool:
    """``[\\u4E00-\\u9FD5a-zA-Z0-9+#&._%-]``: jieba's re_han_default."""
    if _HAN_FIRST <= c <= _HAN_LAST or 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122:
        return True
    return c == 43 or c == 35 or c == 38 or c == 46 or c == 95 or c == 37 or c == 45


@jit
def _is_alnum(c: int) -> bool:
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122


@jit
def _freq(cp: Any, s: int, e: int, keys: Any, stamps: Any, freqs: Any) -> int:
    """The dictionary frequency of cp[s:e]; -1 when it is neither a word nor a prefix."""
    h = np.uint64(0)
    for i in range(s, e):
        h = h * HB + np.uint64(cp[i] + 1)
    slot, found = find_slot(keys, stamps, 1, mix64(h ^ (np.uint64(e - s) * HLEN)))
    return freqs[slot] if found else -1


@jit
def _viterbi(cp: Any, s: int, e: int, m: Any, starts: Any, nw: int) -> int:
    """jieba.finalseg.__cut on the Han run cp[s:e]: its word starts into starts[nw:]."""
    start, trans, emit, previous = m.start, m.trans, m.emit, m.previous
    n = e - s
    v = np.empty((n, 4), np.float64)
    back = np.empty((n, 4), np.int64)
    for y in range(4):
        v[0, y] = start[y] + emit[y, cp[s] - _HAN_FIRST]
    for t in range(1, n):
        for y in range(4):
            em = emit[y, cp[s + t] - _HAN_FIRST]
            best, state = 0.0, -1
            for k in range(2):
                y0 = previous[y, k]
                p = v[t - 1, y0] + trans[y0, y] + em
                if state < 0 or p > best or (p == best and y0 > state):
                    best, state = p, y0
            v[t, y] = best
            back[t, y] = state
    # the last state: E or S, the higher probability (ties: S)
    last = 3 if v[n - 1, 3] >= v[n - 1, 2] else 2
    states = np.empty(n, np.int64)
    states[n - 1] = last
    for t in range(n - 1, 0, -1):
        states[t - 1] = back[t, states[t]]
    begin = nexti = 0
    for i in range(n):
        y = states[i]
        if y == 0:  # B
            begin = i
        elif y == 2:  # E
            starts[nw] = s + begin
            nw += 1
            nexti = i + 1
        elif y == 3:  # S
            starts[nw] = s + i
            nw += 1
            nexti = i + 1
    if nexti < n:
        starts[nw] = s + nexti
        nw += 1
    return nw


@jit
def _hmm(cp: Any, s: int, e: int, m: Any, starts: Any, nw: int) -> int:
    """jieba.finalseg.cut on cp[s:e]: Han runs by Viterbi, the rest split into alphanumeric
    runs (``[a-zA-Z0-9]+(\\.\\d+)?%?``) and the pieces between them."""
    i = s
    while i < e:
        if _is_han(cp[i]):
            j = i
            while j < e and _is_han(cp[j]):
                j += 1
            nw = _viterbi(cp, i, j, m, starts, nw)
            i = j
            continue
        j = i
        while j < e and not _is_han(cp[j]):
            j += 1
        # cp[i:j] holds no Han: re_skip.split, keeping the non-empty pieces
        k = i
        piece = i
        while k < j:
            if _is_alnum(cp[k]):
                r = k
                while r < j and _is_alnum(cp[r]):
                    r += 1
                if r + 1 < j and cp[r] == 46 and 48 <= cp[r + 1] <= 57:
                    r += 1
                    while r < j and 48 <= cp[r] <= 57:
                        r += 1
                if r < j and cp[r] == 37:
                    r += 1
                if piece < k:
                    starts[nw] = piece
                    nw += 1
                starts[nw] = k
                nw += 1
                k = piece = r
            else:
                k += 1
        if piece < j:
            starts[nw] = piece
            nw += 1
        i = j
    return nw


@jit
def _block(cp: Any, s: int, e: int, m: Any, route: Any, score: Any, starts: Any, nw: int) -> int:
    """jieba's __cut_DAG on the block cp[s:e]."""
    keys, stamps, freqs, log_total = m.keys, m.stamps, m.freqs, m.log_total
    n = e - s
    score[n] = 0.0
    for idx in range(n - 1, -1, -1):
        best, end = 0.0, -1
        h = np.uint64(0)
        i = idx
        while i < n:  # the DAG: dictionary words starting at idx
            h = h * HB + np.uint64(cp[s + i] + 1)
            slot, found = find_slot(keys, stamps, 1, mix64(h ^ (np.uint64(i - idx + 1) * HLEN)))
            if not found:
                break
            f = freqs[slot]
            if f > 0:
                p = np.log(f) - log_total + score[i + 1]
                if end < 0 or p > best or (p == best and i > end):
                    best, end = p, i
            i += 1
        if end < 0:  # no word: the character alone (log(1) = 0)
            best, end = 0.0 - log_total + score[idx + 1], idx
        score[idx], route[idx] = best, end
    x = 0
    buf = -1  # start of the run of single characters
    while x <= n:
        y = route[x] + 1 if x < n else n + 1
        if x < n and y - x == 1:
            if buf < 0:
                buf = x
        else:
            if buf >= 0:
                if x - buf == 1:
                    starts[nw] = s + buf
                    nw += 1
                elif _freq(cp, s + buf, s + x, keys, stamps, freqs) > 0:
                    for k in range(buf, x):
                        starts[nw] = s + k
                        nw += 1
                else:
                    nw = _hmm(cp, s + buf, s + x, m, starts, nw)
                buf = -1
            if x < n:
                starts[nw] = s + x
                nw += 1
        x = y
    return nw


@jit
def _cut(cp: Any, n: int, m: Any, starts: Any) -> int:
    route = np.empty(n + 1, np.int64)
    score = np.empty(n + 1, np.float64)
    nw = 0
    i = 0
    while i < n:
        if _in_block(cp[i]):
            j = i
            while j < n and _in_block(cp[j]):
                j += 1
            nw = _block(cp, i, j, m, route[: j - i + 1], score[: j - i + 1], starts, nw)
            i = j
        else:
            starts[nw] = i
            nw += 1
            i += 1
    return nw


def word_spans(text: str) -> list[tuple[int, int]]:
    """The spans of jieba's words in ``text`` (whitespace included, as jieba yields it)."""
    cp = code_points(text)
    starts = np.empty(len(cp) + 1, np.int64)
    n = _cut(cp, len(cp), model(), starts)
    bounds = [*starts[:n].tolist(), len(cp)]
    return list(itertools.pairwise(bounds))
