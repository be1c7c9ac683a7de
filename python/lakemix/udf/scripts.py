"""The script of most letters in a text: ISO 15924 codes counted by a numba kernel.

A letter's script comes from its Unicode name (``unicodedata``), looked up once per process
into a table of every code point; texts are read as UTF-8 bytes where Arrow holds them.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

import numba
import numpy as np

from lakemix.udf.utf8 import code_point

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
# No letter lies above the supplementary ideographic planes (U+3134A is the last, Unicode 14).
LAST_LETTER = 0x3FFFF
SCRIPT_CODES = tuple(sorted({*_SCRIPTS.values(), "Jpan", "Zzzz"}))
SCRIPT_INDEX = {code: k + 1 for k, code in enumerate(SCRIPT_CODES)}


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
    for cp in range(LAST_LETTER + 1):
        script = _char_script(chr(cp))
        if script is not None:
            table[cp] = SCRIPT_INDEX[script]
    return table


@numba.njit(cache=True, nogil=True)
def _kernel(
    data: Any, offsets: Any, valid: Any, table: Any, prefix: int, jpan: Any, ends: Any, out: Any
) -> None:
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
            cp, n = code_point(data, p)
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


def prefix_scripts(
    data: np.ndarray, offsets: np.ndarray, valid: np.ndarray, prefix: int, ends: Any, out: Any
) -> None:
    """End byte of each text's first ``prefix`` characters, and the script of most letters there.

    ``out[i]`` gets 1 + the index in ``SCRIPT_CODES``, or 0 when those characters hold no
    letter. Ties go to the script whose first letter comes first (as ``Counter.most_common``
    does); Han, Hiragana or Katakana with at least 10% kana among them is Japanese ("Jpan").
    """
    jpan = np.array([SCRIPT_INDEX[c] for c in ("Hani", "Hira", "Kana", "Jpan")], np.int64)
    _kernel(data, offsets, valid, _script_table(), prefix, jpan, ends, out)
