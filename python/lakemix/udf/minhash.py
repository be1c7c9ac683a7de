"""MinHash signatures and LSH band keys of texts, as in FineWeb, compiled with numba.

Words. The text is read as UTF-8; a *word* is a maximal run of word characters, i.e. code
points of Unicode general category L* (letters), M* (marks, so that Devanagari vowel signs stay
in their word) or N* (numbers), per Python's ``unicodedata`` (Unicode 14.0.0 on Python 3.11).
Every other code point (white space, punctuation including ``_``, symbols and emoji, controls,
unassigned, private use) and every byte that is not part of valid UTF-8 separates words. Each
word character is lower-cased with its simple (one code point) lowercase mapping: ``str.lower()``
where that gives one character, and U+0130 (``İ``) to ``i``. Apostrophes and underscores split
words (``don't`` is ``don t``); scripts written without spaces (Chinese, Japanese, Thai) give one
word per run of letters.

Shingles. The words, joined by single spaces, give one string per shingle of ``shingle_words``
consecutive words (a text of 1 to ``shingle_words - 1`` words has the one shingle of all its
words); shingle ``x`` is the XXH64 (seed 0) of its UTF-8 bytes, reduced modulo the Mersenne
prime ``p = 2**61 - 1``. A null text, or one without any word, has no signature and no band keys
(null), so empty documents never collide with each other.

Signature. ``bands * rows`` permutations ``h_i(x) = (a_i * x + b_i) mod p`` in exact 122-bit
arithmetic, with ``a_i`` in ``[1, p)`` then ``b_i`` in ``[0, p)`` drawn by
``numpy.random.Generator(PCG64(seed)).integers(..., dtype=uint64)``; the signature is the minimum
of each permutation over the shingles (each value below ``p``).

Band keys. Band ``j`` (permutations ``j * rows`` to ``(j + 1) * rows - 1``) has the key
``(XXH64(little-endian bytes of its rows values, seed 0) & ~mask) | j`` as a signed 64-bit
integer, with ``mask = 2**ceil(log2(bands)) - 1`` (15 for 14 bands): the low bits are the band
number, so keys of different bands never collide, and two documents are LSH candidates when they
share a key. With 14 bands of 8 rows a pair at Jaccard ``s`` shares a key with probability
``1 - (1 - s**8)**14`` (0.92 at 0.8, 0.9998 at 0.9; threshold ~0.72).

All of it is integer arithmetic over the bytes: the results do not depend on the process, the
machine, the number of threads or how the input is chunked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.udf.arrow import constant, text_byte_lengths, text_chunks

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from numpy.typing import NDArray

# The version of the definition above: bump it when the band keys of a text change, so that
# incremental models refuse rows hashed under the old one (lakemix.dbt.cache_key).
DEFINITION = 1
SHINGLE_WORDS = 5
BANDS = 14
ROWS = 8
SEED = 1
MERSENNE_PRIME = (1 << 61) - 1

# Constants of the kernel, as numpy scalars so numba types them as uint64 (a Python int would
# make uint64 arithmetic fall back to float64).
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_MASK32 = np.uint64(0xFFFFFFFF)
_MASK29 = np.uint64((1 << 29) - 1)
_P61 = np.uint64(MERSENNE_PRIME)
_MAX64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_XP1 = np.uint64(11400714785074694791)
_XP2 = np.uint64(14029467366897019727)
_XP3 = np.uint64(1609587929392839161)
_XP4 = np.uint64(9650029242287828579)
_XP5 = np.uint64(2870177450012600261)


def _kernel(
    data: NDArray[np.uint8],
    offsets: NDArray[np.int64],
    valid: NDArray[np.bool_],
    is_word: NDArray[np.uint8],
    lower: NDArray[np.uint32],
    shingle_words: int,
    a: NDArray[np.uint64],
    b: NDArray[np.uint64],
    rows: int,
    band_bits: int,
    signatures: NDArray[np.uint64],
    keys: NDArray[np.int64],
    has_words: NDArray[np.bool_],
    shingle_hashes: NDArray[np.uint64],
    shingle_starts: NDArray[np.int64],
    shingle_counts: NDArray[np.int64],
) -> None:
    """Signatures, band keys or shingle hashes of every valid text (compiled by numba, see
    ``_compiled``).

    ``signatures`` is ``(n, bands * rows)`` or ``(0, ...)`` when not wanted, ``keys`` is
    ``(n, bands)`` or ``(0, ...)``; ``has_words[i]`` is set when text ``i`` has a word. When
    ``shingle_counts`` has ``n`` entries, text ``i``'s shingle hashes (mod p, duplicates kept)
    go to ``shingle_hashes`` from ``shingle_starts[i]`` on, their number to
    ``shingle_counts[i]``, and nothing else is computed.
    Per text: (1) decode, split and lower-case into ``text`` (words joined by one space), then
    hash each shingle into ``xs_lo``, ``xs_hi``; (2) the permutations, one at a time over all
    shingles (a loop LLVM vectorizes); (3) the band keys.
    """

    def rotl(x: Any, r: Any) -> Any:
        return (x << r) | (x >> (np.uint64(64) - r))

    # Indexes are cast to unsigned so that numba does not emit negative-index wrap-around.
    def byte(buf: Any, i: Any) -> Any:
        return np.uint64(buf[np.uint64(i)])

    def read32(buf: Any, i: Any) -> Any:  # little-endian
        return (
            byte(buf, i)
            | (byte(buf, i + 1) << np.uint64(8))
            | (byte(buf, i + 2) << np.uint64(16))
            | (byte(buf, i + 3) << np.uint64(24))
        )

    def read64(buf: Any, i: Any) -> Any:
        return read32(buf, i) | (read32(buf, i + 4) << np.uint64(32))

    def xround(acc: Any, lane: Any) -> Any:
        return rotl(acc + lane * _XP2, np.uint64(31)) * _XP1

    def merge(acc: Any, v: Any) -> Any:
        return (acc ^ xround(_U0, v)) * _XP1 + _XP4

    def xxh64(buf: Any, start: Any, length: Any) -> Any:  # XXH64 with seed 0
        i = start
        end = start + length
        if length >= 32:
            v1 = _XP1 + _XP2
            v2 = _XP2
            v3 = _U0
            v4 = _U0 - _XP1
            while i + 32 <= end:
                v1 = xround(v1, read64(buf, i))
                v2 = xround(v2, read64(buf, i + 8))
                v3 = xround(v3, read64(buf, i + 16))
                v4 = xround(v4, read64(buf, i + 24))
                i += 32
            h = rotl(v1, np.uint64(1)) + rotl(v2, np.uint64(7))
            h += rotl(v3, np.uint64(12)) + rotl(v4, np.uint64(18))
            h = merge(merge(merge(merge(h, v1), v2), v3), v4)
        else:
            h = _XP5
        h += np.uint64(length)
        while i + 8 <= end:
            h = rotl(h ^ xround(_U0, read64(buf, i)), np.uint64(27)) * _XP1 + _XP4
            i += 8
        if i + 4 <= end:
            h = rotl(h ^ (read32(buf, i) * _XP1), np.uint64(23)) * _XP2 + _XP3
            i += 4
        while i < end:
            h = rotl(h ^ (byte(buf, i) * _XP5), np.uint64(11)) * _XP1
            i += 1
        h ^= h >> np.uint64(33)
        h *= _XP2
        h ^= h >> np.uint64(29)
        h *= _XP3
        h ^= h >> np.uint64(32)
        return h

    def mod_p(h: Any) -> Any:
        x = (h & _P61) + (h >> np.uint64(61))
        return x - _P61 if x >= _P61 else x

    n = offsets.shape[0] - 1
    want_hashes = shingle_counts.shape[0] > 0
    perms = a.shape[0]
    bands = perms // rows
    longest = 0
    for d in range(n):
        if valid[d]:
            longest = max(longest, offsets[d + 1] - offsets[d])
    # Lower-casing grows UTF-8 by at most 3/2 (2 -> 3 bytes); separators replace >= 1 byte.
    text = np.empty(longest + longest // 2 + 8, dtype=np.uint8)
    # Per shingle: first the begin and end of its bytes in text, then its hash mod p in 32-bit
    # limbs (low 32 bits, high 29 bits).
    xs_lo = np.empty(longest // 2 + 2, dtype=np.uint64)
    xs_hi = np.empty(longest // 2 + 2, dtype=np.uint64)
    starts = np.empty(shingle_words, dtype=np.int64)  # ring of the last word starts
    mins = np.empty(perms, dtype=np.uint64)
    band_bytes = np.empty(rows * 8, dtype=np.uint8)
    a_lo = a & _MASK32
    a_hi = a >> np.uint64(32)
    band_mask = (_U1 << np.uint64(band_bits)) - _U1

    for d in range(n):
        if not valid[d]:
            continue
        # (1) words and shingle hashes
        i = offsets[d]
        stop = offsets[d + 1]
        w = 0  # bytes written to text
        words = 0
        shingles = 0
        in_word = False
        while i <= stop:
            cp = np.int64(-1)
            size = 1
            if i < stop:
                c = np.int64(data[np.uint64(i)])
                if c < 0x80:
                    cp = c
                elif 0xC2 <= c < 0xE0 and i + 1 < stop and (data[np.uint64(i + 1)] & 0xC0) == 0x80:
                    cp = ((c & 0x1F) << 6) | (np.int64(data[np.uint64(i + 1)]) & 0x3F)
                    size = 2
                elif 0xE0 <= c < 0xF0 and i + 2 < stop:
                    c1 = np.int64(data[np.uint64(i + 1)])
                    c2 = np.int64(data[np.uint64(i + 2)])
                    if (c1 & 0xC0) == 0x80 and (c2 & 0xC0) == 0x80:
                        cp = ((c & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F)
                        if cp < 0x800 or 0xD800 <= cp < 0xE000:
                            cp = np.int64(-1)
                        else:
                            size = 3
                elif 0xF0 <= c < 0xF5 and i + 3 < stop:
                    c1 = np.int64(data[np.uint64(i + 1)])
                    c2 = np.int64(data[np.uint64(i + 2)])
                    c3 = np.int64(data[np.uint64(i + 3)])
                    if (c1 & 0xC0) == 0x80 and (c2 & 0xC0) == 0x80 and (c3 & 0xC0) == 0x80:
                        cp = ((c & 0x07) << 18) | ((c1 & 0x3F) << 12) | ((c2 & 0x3F) << 6)
                        cp |= c3 & 0x3F
                        if cp < 0x10000 or cp > 0x10FFFF:
                            cp = np.int64(-1)
                        else:
                            size = 4
            if cp >= 0 and is_word[np.uint64(cp)]:
                if not in_word:
                    in_word = True
                    if words > 0:
                        text[np.uint64(w)] = 0x20
                        w += 1
                    starts[words % shingle_words] = w
                lc = np.int64(lower[np.uint64(cp)])
                if lc < 0x80:
                    text[np.uint64(w)] = lc
                    w += 1
                elif lc < 0x800:
                    text[np.uint64(w)] = 0xC0 | (lc >> 6)
                    text[np.uint64(w + 1)] = 0x80 | (lc & 0x3F)
                    w += 2
                elif lc < 0x10000:
                    text[np.uint64(w)] = 0xE0 | (lc >> 12)
                    text[np.uint64(w + 1)] = 0x80 | ((lc >> 6) & 0x3F)
                    text[np.uint64(w + 2)] = 0x80 | (lc & 0x3F)
                    w += 3
                else:
                    text[np.uint64(w)] = 0xF0 | (lc >> 18)
                    text[np.uint64(w + 1)] = 0x80 | ((lc >> 12) & 0x3F)
                    text[np.uint64(w + 2)] = 0x80 | ((lc >> 6) & 0x3F)
                    text[np.uint64(w + 3)] = 0x80 | (lc & 0x3F)
                    w += 4
            elif in_word:
                in_word = False
                words += 1
                if words >= shingle_words:  # the span of the last shingle_words words
                    xs_lo[shingles] = np.uint64(starts[words % shingle_words])
                    xs_hi[shingles] = np.uint64(w)
                    shingles += 1
            i += size
        has_words[d] = words > 0
        if words == 0:
            continue
        if words < shingle_words:
            xs_lo[0] = _U0
            xs_hi[0] = np.uint64(w)
            shingles = 1
        for j in range(shingles):  # span (begin, end) -> hash mod p, as 32-bit limbs
            begin = np.int64(xs_lo[j])
            x = mod_p(xxh64(text, begin, np.int64(xs_hi[j]) - begin))
            xs_lo[j] = x & _MASK32
            xs_hi[j] = x >> np.uint64(32)
            if want_hashes:
                shingle_hashes[shingle_starts[d] + j] = x
        if want_hashes:
            shingle_counts[d] = shingles
            continue
        # (2) mins[t] = min over shingles x of (a_t * x + b_t) mod p, exact: with 32-bit limbs
        # a * x = hi * 2**64 + mid * 2**32 + lo, and 2**61 = 1 (mod p).
        for t in range(perms):
            al = a_lo[t] & _MASK32
            ah = a_hi[t] & _MASK32
            bt = b[t]
            m = _MAX64
            for j in range(shingles):
                x_lo = xs_lo[np.uint64(j)] & _MASK32
                x_hi = xs_hi[np.uint64(j)] & _MASK32
                lo = al * x_lo  # < 2**64
                mid = ah * x_lo + al * x_hi  # < 2**62
                hi = ah * x_hi  # < 2**58; 2**64 = 8 (mod p)
                s = (hi << np.uint64(3)) + (mid >> np.uint64(29))
                s += ((mid & _MASK29) << np.uint64(32)) + (lo & _P61) + (lo >> np.uint64(61)) + bt
                r = (s & _P61) + (s >> np.uint64(61))  # < p + 4
                r = min(r, r - _P61)  # r - p wraps around to a huge value when r < p
                m = min(m, r)
            mins[t] = m
        if signatures.shape[0] > 0:
            signatures[d, :] = mins
        # (3) band keys
        if keys.shape[0] > 0:
            for band in range(bands):
                for r in range(rows):
                    v = mins[band * rows + r]
                    for k in range(8):
                        band_bytes[r * 8 + k] = np.uint8((v >> np.uint64(8 * k)) & np.uint64(255))
                h = xxh64(band_bytes, 0, rows * 8)
                keys[d, band] = np.int64((h & ~band_mask) | np.uint64(band))


@functools.cache
def _compiled() -> Callable[..., None]:
    """The numba-compiled kernel (compiled on first use, cached on disk by numba)."""
    import numba

    compiled: Callable[..., None] = numba.njit(cache=True, nogil=True)(_kernel)
    return compiled


@functools.cache
def _unicode_tables() -> tuple[NDArray[np.uint8], NDArray[np.uint32]]:
    """Word-character flags and simple lowercase mapping of every code point.

    Built once per process, so it is on the path of every dbt run that hashes a text: the code
    points come from one UTF-32 decode (not a million ``chr`` calls), and only the planes with
    assigned characters are looked up.
    """
    import unicodedata

    code_points = np.arange(0x110000, dtype=np.uint32)
    code_points[0xD800:0xE000] = 0  # surrogates cannot be decoded: "\0" stands in for them
    chars = code_points.tobytes().decode("utf-32-le")
    is_word = np.zeros(0x110000, dtype=np.uint8)
    category = unicodedata.category
    # Planes 4-13 are unassigned and 15-16 private use (not word characters) in Unicode 14.0.
    for first, last in ((0, 0x40000), (0xE0000, 0xF0000)):
        flags = [category(c)[0] in "LMN" for c in chars[first:last]]
        is_word[first:last] = np.array(flags, dtype=np.uint8)
    lowered = chars[:0x130].lower() + "i" + chars[0x131:].lower()  # U+0130: simple mapping
    lower = np.frombuffer(lowered.encode("utf-32-le"), dtype=np.uint32).copy()
    if lower.shape[0] != 0x110000:
        raise RuntimeError("a lowercase mapping of more than one code point besides U+0130")
    return is_word, lower


@functools.cache
def _permutations(count: int, seed: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """The ``a`` (in ``[1, p)``) and ``b`` (in ``[0, p)``) of ``count`` permutations."""
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(1, MERSENNE_PRIME, size=count, dtype=np.uint64)
    b = rng.integers(0, MERSENNE_PRIME, size=count, dtype=np.uint64)
    a.flags.writeable = False
    b.flags.writeable = False
    return a, b


def _check(shingle_words: int, bands: int, rows: int, seed: int) -> None:
    for name, value in (("shingle_words", shingle_words), ("bands", bands), ("rows", rows)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if bands > 1 << 16:
        raise ValueError(f"bands must be at most 65536, got {bands!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


def _run(
    texts: pa.Array | pa.ChunkedArray,
    *,
    shingle_words: int,
    bands: int,
    rows: int,
    seed: int,
    want_signatures: bool,
    shingles: tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.bool_]]:
    """Signatures (or an empty matrix), band keys (or an empty matrix) and the has-words mask;
    with ``shingles`` (hashes, starts, counts: see ``shingle_hashes``), only those are filled."""
    _check(shingle_words, bands, rows, seed)
    chunks = text_chunks(texts)
    kernel = _compiled()
    is_word, lower = _unicode_tables()
    a, b = _permutations(bands * rows, seed)
    band_bits = (bands - 1).bit_length()
    n = len(texts)
    signatures = np.zeros((n if want_signatures else 0, bands * rows), dtype=np.uint64)
    keys = np.zeros((0 if want_signatures or shingles else n, bands), dtype=np.int64)
    has_words = np.zeros(n, dtype=np.bool_)
    done = 0
    for chunk in chunks:
        size = len(chunk)
        if size == 0:
            continue
        data, offsets, valid = _buffers(chunk)
        end = done + size
        kernel(
            data,
            offsets,
            valid,
            is_word,
            lower,
            shingle_words,
            a,
            b,
            rows,
            band_bits,
            signatures[done:end] if want_signatures else signatures,
            keys[done:end] if keys.shape[0] else keys,
            has_words[done:end],
            *(
                _NO_SHINGLES
                if shingles is None
                else (shingles[0], *(x[done:end] for x in shingles[1:]))
            ),
        )
        done = end
    return signatures, keys, has_words


def _buffers(chunk: pa.Array) -> tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.bool_]]:
    """UTF-8 bytes (read-only), int64 offsets and validity of a string or large_string chunk."""
    import pyarrow as pa

    size = len(chunk)
    _, offsets_buffer, data_buffer = chunk.buffers()
    offset_type = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    raw = np.frombuffer(offsets_buffer, dtype=offset_type)
    offsets = np.array(raw[chunk.offset : chunk.offset + size + 1], dtype=np.int64)
    data = np.frombuffer(data_buffer if data_buffer is not None else b"", dtype=np.uint8)
    data.flags.writeable = False  # one numba specialization, whoever owns the buffer
    return data, offsets, np.array(chunk.is_valid(), dtype=np.bool_)


# The kernel's shingle outputs when they are not wanted.
_NO_SHINGLES = (np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64))


def shingle_hashes(
    texts: pa.Array | pa.ChunkedArray, *, shingle_words: int = SHINGLE_WORDS
) -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.int64]]:
    """The hashes of every text's shingles, as the signatures see them.

    Text ``i``'s shingles hash to ``hashes[starts[i] : starts[i] + counts[i]]`` (XXH64 mod p of
    each shingle, in text order, repeats included); a null or wordless text has none. Two
    different shingles share a hash with probability about ``2**-61``, so set operations on
    the hashes are those on the shingles (:mod:`lakemix.udf.jaccard`).

    Raises:
        TypeError: If ``texts`` is not an array of strings.
        ValueError: If ``shingle_words`` is not a positive integer.
    """
    # A text of b bytes has at most b // 2 + 1 words, so at most as many shingles.
    starts = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(text_byte_lengths(texts) // 2 + 1, out=starts[1:])
    hashes = np.zeros(starts[-1], dtype=np.uint64)
    counts = np.zeros(len(texts), dtype=np.int64)
    _run(
        texts, shingle_words=shingle_words, bands=BANDS, rows=ROWS, seed=SEED,
        want_signatures=False, shingles=(hashes, starts[:-1], counts),
    )  # fmt: skip
    return hashes, starts[:-1], counts


def minhash_bands(
    texts: pa.Array | pa.ChunkedArray,
    *,
    shingle_words: int = SHINGLE_WORDS,
    bands: int = BANDS,
    rows: int = ROWS,
    seed: int = SEED,
) -> pa.ListArray:
    """LSH band keys of each text (see the module docstring for the exact definition).

    Args:
        texts: Strings (string, large_string or string_view); nulls allowed.
        shingle_words: Words per shingle.
        bands: Number of bands.
        rows: Permutations per band (``bands * rows`` permutations in all).
        seed: Seed of the permutations; documents are comparable only under the same
            ``(shingle_words, bands, rows, seed)``.

    Returns:
        ``list<int64>`` of the same length: ``bands`` keys per text, band ``j``'s key at
        position ``j`` and in its low ``ceil(log2(bands))`` bits (``key & 15`` for 14 bands);
        null for a null text or one without any word.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
        ValueError: If a count is not a positive integer or ``seed`` is negative.
    """
    import pyarrow as pa

    _, keys, has_words = _run(
        texts, shingle_words=shingle_words, bands=bands, rows=rows, seed=seed, want_signatures=False
    )
    offsets = np.zeros(len(has_words) + 1, dtype=np.int32)
    np.cumsum(has_words * np.int32(bands), out=offsets[1:])
    values = pa.array(keys[has_words].reshape(-1), type=pa.int64())
    mask = pa.array(~has_words, type=pa.bool_())
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values, mask=mask)


def minhash_signatures(
    texts: pa.Array | pa.ChunkedArray,
    *,
    shingle_words: int = SHINGLE_WORDS,
    bands: int = BANDS,
    rows: int = ROWS,
    seed: int = SEED,
) -> pa.FixedSizeListArray:
    """MinHash signature of each text: ``bands * rows`` values below ``2**61 - 1``.

    Args:
        texts: Strings (string, large_string or string_view); nulls allowed.
        shingle_words: Words per shingle.
        bands: Number of bands.
        rows: Permutations per band.
        seed: Seed of the permutations.

    Returns:
        ``fixed_size_list<uint64>[bands * rows]``, null for a null text or one without words.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
        ValueError: If a count is not a positive integer or ``seed`` is negative.
    """
    import pyarrow as pa

    signatures, _, has_words = _run(
        texts, shingle_words=shingle_words, bands=bands, rows=rows, seed=seed, want_signatures=True
    )
    values = pa.array(signatures.reshape(-1), type=pa.uint64())
    mask = pa.array(~has_words, type=pa.bool_())
    return pa.FixedSizeListArray.from_arrays(values, bands * rows, mask=mask)


def jaccard_estimate(sig_a: Any, sig_b: Any) -> float:
    """Estimated Jaccard similarity of two signatures: the fraction of equal values.

    Args:
        sig_a: A signature from :func:`minhash_signatures` (an Arrow list scalar, a NumPy
            array or a sequence of ints).
        sig_b: Another signature of the same length, computed with the same parameters.

    Returns:
        A value in ``[0, 1]``.

    Raises:
        ValueError: If a signature is null or empty, or their lengths differ.
    """
    x, y = _signature_array(sig_a), _signature_array(sig_b)
    if x.shape != y.shape or x.size == 0:
        raise ValueError(
            f"signatures must be non-empty and of equal length, got {x.size}, {y.size}"
        )
    return float(np.count_nonzero(x == y)) / x.size


def _signature_array(sig: Any) -> NDArray[np.uint64]:
    if sig is None or (hasattr(sig, "is_valid") and not sig.is_valid):
        raise ValueError("a null signature (null or wordless text) has no Jaccard estimate")
    if hasattr(sig, "values") and hasattr(sig.values, "to_numpy"):  # Arrow list scalar
        sig = sig.values.to_numpy(zero_copy_only=False)
    elif not isinstance(sig, np.ndarray) and not isinstance(sig, Sequence):
        raise ValueError(f"a signature must be an array or a sequence of ints, got {type(sig)}")
    return np.asarray(sig, dtype=np.uint64).reshape(-1)


def _bands_udf(texts: Any, *parameters: Any) -> Any:
    """DuckDB calls this per chunk; the parameters are the same on every row of a call."""
    names = ("shingle_words", "bands", "rows", "seed")
    defaults = (SHINGLE_WORDS, BANDS, ROWS, SEED)  # an empty call has no parameter values
    values = []
    for name, column, default in zip(names, parameters, defaults, strict=True):
        value = constant("lakemix_minhash_bands", name, column)
        values.append(default if value is None else int(value))
    shingle_words, bands, rows, seed = values
    return minhash_bands(texts, shingle_words=shingle_words, bands=bands, rows=rows, seed=seed)


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_minhash_bands(text, shingle_words, bands, rows, seed) -> BIGINT[]``.

    The dbt models pass the vars ``lakemix_minhash_*`` (FineWeb's defaults: word 5-grams, 14
    bands x 8 rows, seed 1). NULL for NULL or wordless text; deterministic, so DuckDB may cache
    and reorder calls.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, INTEGER, VARCHAR

    conn.create_function(
        "lakemix_minhash_bands",
        # A lambda: DuckDB evaluates the annotations of the function, and pyarrow's names are
        # not in this module's globals.
        lambda texts, words, bands, rows, seed: _bands_udf(texts, words, bands, rows, seed),
        [VARCHAR, INTEGER, INTEGER, INTEGER, INTEGER],
        duckdb.list_type(BIGINT),
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
