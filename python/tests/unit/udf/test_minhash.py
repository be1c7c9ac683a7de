"""MinHash signatures and band keys: exact definition, determinism, LSH behaviour, edge cases."""

from __future__ import annotations

import functools
import random
import unicodedata
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from lakemix.udf.minhash import (
    BANDS,
    MERSENNE_PRIME,
    ROWS,
    jaccard_estimate,
    minhash_bands,
    minhash_signatures,
    register,
)
from tests.conftest import CORPORA

SENTENCES = CORPORA / "langid" / "lingua_leipzig" / "en" / "sentences.txt"
M64 = (1 << 64) - 1

# Reference implementation in plain Python ----------------------------------------------------


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 in plain Python (checked against the xxhash package's values below)."""
    p1, p2, p3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
    p4, p5 = 9650029242287828579, 2870177450012600261

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (64 - r))) & M64

    def round_(acc: int, lane: int) -> int:
        return rotl((acc + lane * p2) & M64, 31) * p1 & M64

    def word(i: int, size: int) -> int:
        return int.from_bytes(data[i : i + size], "little")

    n, i = len(data), 0
    if n >= 32:
        v = [(seed + p1 + p2) & M64, (seed + p2) & M64, seed, (seed - p1) & M64]
        while i + 32 <= n:
            v = [round_(v[k], word(i + 8 * k, 8)) for k in range(4)]
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M64
        for lane in v:
            h = ((h ^ round_(0, lane)) * p1 + p4) & M64
    else:
        h = (seed + p5) & M64
    h = (h + n) & M64
    while i + 8 <= n:
        h = (rotl(h ^ round_(0, word(i, 8)), 27) * p1 + p4) & M64
        i += 8
    if i + 4 <= n:
        h = (rotl(h ^ (word(i, 4) * p1 & M64), 23) * p2 + p3) & M64
        i += 4
    for byte in data[i:]:
        h = rotl(h ^ (byte * p5 & M64), 11) * p1 & M64
    for shift, prime in ((33, p2), (29, p3)):
        h = (h ^ (h >> shift)) * prime & M64
    return h ^ (h >> 32)


@functools.cache
def _is_word(char: str) -> bool:
    return unicodedata.category(char)[0] in "LMN"


def ref_words(text: str) -> list[str]:
    """Maximal runs of L*/M*/N* code points, each lower-cased with its simple mapping."""
    words, current = [], []
    for char in text:
        if _is_word(char):
            current.append(char.lower()[0])  # simple mapping: only U+0130 has a longer one
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def ref_shingles(text: str, k: int = 5) -> set[str]:
    words = ref_words(text)
    if 0 < len(words) < k:
        return {" ".join(words)}
    return {" ".join(words[i : i + k]) for i in range(len(words) - k + 1)}


def ref_jaccard(a: str, b: str) -> float:
    x, y = ref_shingles(a), ref_shingles(b)
    return len(x & y) / len(x | y)


def ref_minhash(text: str, seed: int = 1) -> tuple[list[int], list[int]] | None:
    """(signature, band keys) of ``text`` straight from the definition, None without words."""
    shingles = ref_shingles(text)
    if not shingles:
        return None
    rng = np.random.Generator(np.random.PCG64(seed))
    a = [int(v) for v in rng.integers(1, MERSENNE_PRIME, size=BANDS * ROWS, dtype=np.uint64)]
    b = [int(v) for v in rng.integers(0, MERSENNE_PRIME, size=BANDS * ROWS, dtype=np.uint64)]
    xs = [xxh64(s.encode()) % MERSENNE_PRIME for s in shingles]
    sig = [min((ai * x + bi) % MERSENNE_PRIME for x in xs) for ai, bi in zip(a, b, strict=True)]
    keys = []
    for band in range(BANDS):
        values = sig[band * ROWS : (band + 1) * ROWS]
        h = xxh64(b"".join(v.to_bytes(8, "little") for v in values))
        key = (h & ~15 & M64) | band
        keys.append(key - (1 << 64) if key >= 1 << 63 else key)
    return sig, keys


# Material -------------------------------------------------------------------------------------


@functools.cache
def sentences() -> tuple[str, ...]:
    lines = SENTENCES.read_text(encoding="utf-8").splitlines()
    return tuple(dict.fromkeys(line.strip() for line in lines if line.strip()))


def document(rng: random.Random, count: int = 15) -> str:
    return " ".join(rng.sample(sentences(), count))


def near_duplicate(rng: random.Random, text: str, target: float) -> str:
    """``text`` with single-word substitutions at least 5 words apart, towards ``target``.

    Each substitution removes 5 shingles and adds 5 new ones, so with ``s`` shingles and ``e``
    substitutions the Jaccard is about ``(s - 5e) / (s + 5e)``.
    """
    words = text.split()
    shingles = len(words) - 4
    edits = round(shingles * (1 - target) / (5 * (1 + target)))
    vocabulary = [w for s in rng.sample(sentences(), 50) for w in s.split()]
    slots = sorted(rng.sample(range(len(words) - 4 * edits), edits))
    for number, slot in enumerate(slots):
        position = slot + 4 * number
        words[position] = next(
            w for w in iter(lambda: rng.choice(vocabulary), None) if w.lower() != words[position]
        )
    return " ".join(words)


def share_key(a: Iterable[int] | None, b: Iterable[int] | None) -> bool:
    return a is not None and b is not None and bool(set(a) & set(b))


def lsh_probability(j: float, bands: int = BANDS, rows: int = ROWS) -> float:
    return float(1 - (1 - j**rows) ** bands)


# Definition and determinism ---------------------------------------------------------------------


def test_xxh64_reference_matches_the_xxhash_package() -> None:
    # Values of xxhash.xxh64_intdigest (xxhash 3.8.2).
    assert xxh64(b"") == 17241709254077376921
    assert xxh64(b"a") == 15154266338359012955
    assert xxh64(b"hello world") == 5020219685658847592
    assert xxh64(b"the quick brown fox jumps over the lazy dog") == 17109529249484220306
    assert xxh64(bytes(range(256)) * 3) == 10233242924474565487
    assert xxh64("příliš žluťoučký kůň úpěl ďábelské ódy".encode()) == 13795344436819872305


def test_word_characters_outside_the_scanned_planes_do_not_exist() -> None:
    # The kernel's table classifies planes 0-3 and 14 only; the rest must have no word character.
    ranges = (range(0x40000, 0xE0000), range(0xF0000, 0x110000))
    assert not any(_is_word(chr(cp)) for r in ranges for cp in r[::7])
    assert all(len(chr(cp).lower()) == 1 for cp in range(0x110000) if cp != 0x130)


TEXTS = [
    "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!",
    "one two",
    "Ünïcödé İstanbul ΑΒΓΔ ΣΊΣΥΦΟΣ Привет, МИР! ÆØÅ straße ǅemal",
    "שלום עולם, זה טקסט בעברית עם מספרים 123 ٤٥٦ العربية هنا أيضا",
    "हिन्दी में लिखा गया पाठ जिसमें मात्राएँ हैं और कुछ और शब्द",
    "日本語のテキストです。句読点で区切られています、はい。中文文本没有空格",
    "emoji 🙂 between 👍🏽 words 🇫🇷 and snake_case_names don't split",
    "tabs\tand\nnew\r\nlines\u00a0and\u2003em spaces  12,5 3.14 x²",
    "a" * 40 + " " + "b" * 33 + " c d e f g h",
    "Ⱥ ȿ ɀ ẞ Ω K Å ǈ",  # case mappings that change the UTF-8 length
    *(document(random.Random(i), 6) for i in range(12)),
]


def test_kernel_matches_the_reference_definition() -> None:
    signatures = minhash_signatures(pa.array(TEXTS)).to_pylist()
    keys = minhash_bands(pa.array(TEXTS)).to_pylist()
    for text, sig, key in zip(TEXTS, signatures, keys, strict=True):
        expected = ref_minhash(text)
        assert expected is not None
        assert sig == expected[0], text
        assert key == expected[1], text


def test_permutation_parameters_and_keys_are_pinned() -> None:
    # Changing these values (numpy's PCG64 stream, the hash or the key layout) invalidates every
    # stored band key: bump a version instead.
    rng = np.random.Generator(np.random.PCG64(1))
    a = rng.integers(1, MERSENNE_PRIME, size=112, dtype=np.uint64)
    b = rng.integers(0, MERSENNE_PRIME, size=112, dtype=np.uint64)
    assert (int(a[0]), int(b[0]), int(a[-1]), int(b[-1])) == PINNED_PARAMETERS
    keys = minhash_bands(pa.array(["The quick brown fox jumps over the lazy dog"]))
    assert keys.to_pylist()[0][:3] == PINNED_KEYS


PINNED_PARAMETERS = (
    1180180315279482015,
    594453519692111322,
    168764816766553322,
    1176679180988977409,
)
PINNED_KEYS = [1849068694700173168, -2223145043936867791, -9086513780079749070]


def test_band_number_is_in_the_low_bits() -> None:
    keys = np.array(minhash_bands(pa.array(TEXTS)).to_pylist())
    assert keys.shape == (len(TEXTS), BANDS)
    assert (keys & 15 == np.arange(BANDS)).all()
    assert len(np.unique(keys)) == keys.size


def test_same_output_across_calls_chunkings_types_and_threads() -> None:
    texts = [*TEXTS, None, "", "short"] * 7
    whole = minhash_bands(pa.array(texts))
    assert minhash_bands(pa.array(texts)).equals(whole)
    chunked = pa.chunked_array([pa.array(texts[:10]), pa.array(texts[10:11]), pa.array(texts[11:])])
    assert minhash_bands(chunked).equals(whole)
    for type_ in (pa.large_string(), pa.string_view()):
        assert minhash_bands(pa.array(texts, type=type_)).equals(whole)
    sliced = pa.array(["padding", *texts])[1:]
    assert minhash_bands(sliced).equals(whole)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(minhash_bands, [pa.array(texts[i::4]) for i in range(4)]))
    for i, part in enumerate(parts):
        assert part.equals(whole.take(pa.array(range(i, len(texts), 4))))


def test_exact_duplicates_share_all_band_keys() -> None:
    text = document(random.Random(7))
    keys = minhash_bands(pa.array([text, text, text.upper(), text.replace(" ", "  \n")]))
    first, *others = keys.to_pylist()
    assert all(other == first for other in others)


# LSH behaviour ------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [0.9, 0.8])
def test_near_duplicates_are_candidates_at_the_lsh_rate(target: float) -> None:
    rng = random.Random(f"near-{target}")
    pairs = []
    for _ in range(300):
        original = document(rng)
        pairs.append((original, near_duplicate(rng, original, target)))
    flat = [text for pair in pairs for text in pair]
    keys = minhash_bands(pa.array(flat)).to_pylist()
    sigs = minhash_signatures(pa.array(flat))
    truth = np.array([ref_jaccard(a, b) for a, b in pairs])
    assert abs(truth.mean() - target) < 0.02
    expected = np.array([lsh_probability(j) for j in truth])
    caught = np.array([share_key(keys[2 * i], keys[2 * i + 1]) for i in range(len(pairs))])
    tolerance = 4 * np.sqrt((expected * (1 - expected)).sum()) / len(pairs) + 0.01
    assert abs(caught.mean() - expected.mean()) <= tolerance, (caught.mean(), expected.mean())
    errors = np.abs(
        [jaccard_estimate(sigs[2 * i], sigs[2 * i + 1]) - j for i, j in enumerate(truth)]
    )
    assert errors.mean() < 0.04
    assert (errors <= 0.1).mean() >= 0.95


def test_unrelated_documents_almost_never_share_a_key() -> None:
    rng = random.Random("unrelated")
    texts = [document(rng) for _ in range(400)]
    keys = minhash_bands(pa.array(texts)).to_pylist()
    owners: dict[int, list[int]] = {}
    for doc, doc_keys in enumerate(keys):
        for key in doc_keys:
            owners.setdefault(key, []).append(doc)
    pairs = {(d[0], e) for d in owners.values() for e in d[1:]}
    assert all(ref_jaccard(texts[i], texts[j]) >= 0.5 for i, j in pairs)
    assert len(pairs) <= 1


def test_jaccard_estimate_inputs() -> None:
    sigs = minhash_signatures(pa.array(["a b c d e f", "a b c d e f", None]))
    assert jaccard_estimate(sigs[0], sigs[1]) == 1.0
    assert jaccard_estimate(np.arange(4), [0, 1, 5, 6]) == 0.5
    with pytest.raises(ValueError, match="null signature"):
        jaccard_estimate(sigs[0], sigs[2])
    with pytest.raises(ValueError, match="equal length"):
        jaccard_estimate([1, 2], [1, 2, 3])


# Edge cases ---------------------------------------------------------------------------------


def test_null_empty_and_wordless_texts_are_null() -> None:
    texts = [None, "", "   ", "... !!! ???", "🙂👍🏽🇫🇷", "\u200b\u200d", "_ __ ~=+ ©®™", "x"]
    keys = minhash_bands(pa.array(texts, type=pa.string()))
    assert keys.to_pylist()[:7] == [None] * 7
    assert len(keys.to_pylist()[7]) == BANDS
    assert minhash_signatures(pa.array(texts)).null_count == 7
    assert minhash_bands(pa.nulls(3)).null_count == 3
    assert len(minhash_bands(pa.array([], type=pa.string()))) == 0
    assert len(minhash_bands(pa.chunked_array([], type=pa.string()))) == 0


def test_short_texts_use_one_shingle_of_all_words() -> None:
    texts = ["Hello, world", "hello_world!", "world hello"]
    keys = minhash_bands(pa.array(texts)).to_pylist()
    assert keys[0] == keys[1]
    assert not set(keys[0]) & set(keys[2])


def test_huge_and_odd_inputs_do_not_crash() -> None:
    line = "lorem ipsum dolor sit amet " * 200_000  # 5.4 MB, one line
    texts = [line, "a" * 5_000_000, "🙂" * 1_000_000, "שלום " * 100_000, "x\x00y\x7f z"]
    keys = minhash_bands(pa.array(texts)).to_pylist()
    assert [k is None for k in keys] == [False, False, True, False, False]
    assert keys[0] == minhash_bands(pa.array(["lorem ipsum dolor sit amet " * 3])).to_pylist()[0]


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError, match="strings"):
        minhash_bands(pa.array([1, 2]))
    with pytest.raises(ValueError, match="bands"):
        minhash_bands(pa.array(["x"]), bands=0)
    with pytest.raises(ValueError, match="seed"):
        minhash_bands(pa.array(["x"]), seed=-1)


def test_other_parameters_change_the_keys_consistently() -> None:
    texts = pa.array([document(random.Random(3)), "a b c"])
    keys = minhash_bands(texts, shingle_words=3, bands=20, rows=5, seed=42).to_pylist()
    assert [len(k) for k in keys] == [20, 20]
    assert (np.array(keys) & 31 == np.arange(20)).all()
    sigs = minhash_signatures(texts, bands=20, rows=5, seed=42)
    assert sigs.type.list_size == 100
    assert all(v < MERSENNE_PRIME for v in sigs.flatten().to_pylist())


# DuckDB ---------------------------------------------------------------------------------------


def test_duckdb_udf_over_thousands_of_rows() -> None:
    rng = random.Random("duckdb")
    originals = [document(rng, 8) for _ in range(500)]
    texts: list[str | None] = [
        *originals,
        *originals[:200],  # exact duplicates
        *(near_duplicate(rng, t, 0.9) for t in originals[200:400]),
        *(document(rng, 8) for _ in range(2300)),
        None,
        "",
    ]
    conn = duckdb.connect()
    register(conn)
    conn.register("docs", pa.table({"id": range(len(texts)), "text": pa.array(texts)}))
    rows = conn.sql(
        "select id, lakemix_minhash_bands(text, 5, 14, 8, 1) as keys from docs order by id"
    ).to_arrow_table()
    assert rows["keys"].type == pa.list_(pa.int64())
    assert rows["keys"].to_pylist() == minhash_bands(pa.array(texts)).to_pylist()
    candidates = conn.sql(
        """
        with band_keys as (
            select id, unnest(lakemix_minhash_bands(text, 5, 14, 8, 1)) as band_key from docs
        )
        select distinct a.id as a_id, b.id as b_id
        from band_keys as a
        inner join band_keys as b on a.band_key = b.band_key and a.id < b.id
        """
    ).fetchall()
    pairs = set(candidates)
    assert {(i, 500 + i) for i in range(200)} <= pairs
    assert sum((i, 500 + i) in pairs for i in range(200, 400)) >= 195
    assert all(ref_jaccard(texts[a] or "", texts[b] or "") > 0.5 for a, b in pairs)
