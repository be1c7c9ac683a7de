"""Character data of the quality signals: datatrove's punctuation, spaCy's character classes.

``char_tables`` turns them into one uint32 of flags per code point (``F_*``) and a lower-case
table, so the kernels classify a character with one array lookup.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import numpy as np

from lakemix.udf.quality.jit import jit

# datatrove 0.10.1 datatrove/utils/text.py (Apache-2.0): PUNCTUATION, TERMINAL_PUNCTUATION.
_DT_PUNCTUATION = (
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\xab\xb4\xbb\u2013\u2014\u2019\u201c\u201d\u201e\u2026"
    "\u2236\u2501\u25ba\u3001\u3002\u3008\u3009\u300a\u300b\u300c\u300d\u3010\u3011\uff01"
    "\uff05\uff08\uff09\uff0c\uff0e\uff11\uff1a\uff1b\uff1f\uff5e"
    + "".join(map(chr, [*range(0, 9), *range(11, 32), *range(127, 160)]))
)
_DT_TERMINAL = (
    "!.?\u0589\u061d\u061e\u061f\u06d4\u0700\u0701\u0702\u07f9\u0837\u0839\u083d\u083e\u0964"
    "\u0965\u104a\u104b\u1362\u1367\u1368\u166e\u1735\u1736\u17d4\u17d5\u17d6\u17d9\u17da\u1803"
    "\u1809\u1944\u1945\u1aa8\u1aa9\u1aaa\u1aab\u1b5a\u1b5b\u1b5e\u1b5f\u1b7d\u1b7e\u1c3b\u1c3c"
    "\u1c7e\u1c7f\u203c\u203d\u2047\u2048\u2049\u2e2e\u2e3c\u2e53\u2e54\u3002\ua4ff\ua60e\ua60f"
    "\ua6f3\ua6f7\ua876\ua877\ua8ce\ua8cf\ua92f\ua9c8\ua9c9\uaa5d\uaa5e\uaa5f\uaaf0\uaaf1\uabeb"
    "\ufe52\ufe56\ufe57\uff01\uff0e\uff1f\uff61\U00010a56\U00010a57\U00010f55\U00010f56"
    "\U00010f57\U00010f58\U00010f59\U00010f86\U00010f87\U00010f88\U00010f89\U00011047\U00011048"
    "\U000110be\U000110bf\U000110c0\U000110c1\U00011141\U00011142\U00011143\U000111c5\U000111c6"
    "\U000111cd\U000111de\U000111df\U00011238\U00011239\U0001123b\U0001123c\U000112a9\U0001144b"
    "\U0001144c\U000115c2\U000115c3\U000115c9\U000115ca\U000115cb\U000115cc\U000115cd\U000115ce"
    "\U000115cf\U000115d0\U000115d1\U000115d2\U000115d3\U000115d4\U000115d5\U000115d6\U000115d7"
    "\U00011641\U00011642\U0001173c\U0001173d\U0001173e\U00011944\U00011946\U00011a42\U00011a43"
    "\U00011a9b\U00011a9c\U00011c41\U00011c42\U00011ef7\U00011ef8\U00011f43\U00011f44\U00016a6e"
    "\U00016a6f\U00016af5\U00016b37\U00016b38\U00016b44\U00016e98\U0001bc9f\U0001da88"
)
# spaCy's Sentencizer.default_punct_chars: the terminal punctuation above minus these.
_NOT_SENTENCE_END = (
    "\u061d\u061e\u0837\u0839\u083d\u083e\u17d4\u17d5\u17d6\u17d9\u17da\u1b7d\u1b7e\u2e53\u2e54"
    "\U00010f55\U00010f56\U00010f57\U00010f58\U00010f59\U00010f86\U00010f87\U00010f88\U00010f89"
    "\U00011944\U00011946\U00011ef7\U00011ef8\U00011f43\U00011f44\U00016e98"
)
# Sentence ends the two lists above lack, added here (lakemix's own; they differ from datatrove
# only on text with these characters): the Tibetan shad and nyis shad end a sentence and a line
# (FineWeb's line punctuation, C4's sentences), and spaCy's sentencizer misses the Khmer khan and
# bariyoosan, which datatrove's terminal punctuation has. These and the Burmese section marks
# come off a word's end as a suffix (Khmer and Burmese have no segmenter yet, and spaCy's suffixes
# lack them, so a sentence's end stayed on its last letters and never ended a sentence). Without
# them a Tibetan, Khmer or Burmese paragraph was one C4 sentence, and c4_min_sentences rejected
# prose of five sentences a line.
_MORE_TERMINAL = "\u0f0d\u0f0e"
_MORE_SENTENCE_ENDS = "\u0f0d\u0f0e\u17d4\u17d5"
_MORE_SUFFIXES = _MORE_SENTENCE_ENDS + "\u104a\u104b"
# spaCy 3.8 spacy/lang/char_classes.py (MIT): _punct, _quotes, _currency, _units.
_SPACY_PUNCT = "… , : ; ! ? ¿ ؟ ¡ ( ) [ ] { } < > _ # * & 。 ？ ！ ， 、 ； ： ～ · । ، ۔ ؛ ٪"  # noqa: RUF001
_SPACY_QUOTES = "' \" ” “ ` ‘ ´ ’ ‚ , „ » « 「 」 『 』 （ ） 〔 〕 【 】 《 》 〈 〉 〈 〉 ⟦ ⟧"  # noqa: RUF001
SPACY_CURRENCY = (
    "$ £ € ¥ ฿ US$ C$ A$ ₽ ﷼ ₴ ₠ ₡ ₢ ₣ ₤ ₥ ₦ ₧ ₨ ₩ ₪ ₫ € ₭ ₮ ₯ ₰ ₱ ₲ ₳ ₴ ₵ ₶ ₷ ₸ ₹ ₺ ₻ ₼ ₽ ₾ ₿"
)
SPACY_UNITS = (
    "km km² km³ m m² m³ dm dm² dm³ cm cm² cm³ mm mm² mm³ ha µm nm yd in ft "
    "kg g mg µg t lb oz m/s km/h kmh mph hPa Pa mbar mb MB kb KB gb GB tb "
    "TB T G M K % км км² км³ м м² м³ дм дм² дм³ см см² см³ мм мм² мм³ нм "
    "кг г мг м/с км/ч кПа Па мбар Кб КБ кб Мб МБ мб Гб ГБ гб Тб ТБ тб"  # noqa: RUF001
    "كم كم² كم³ م م² م³ سم سم² سم³ مم مم² مم³ كم غرام جرام جم كغ ملغ كوب اكواب"
)
# spaCy 3.8 spacy/lang/char_classes.py (MIT): the letters of ALPHA, ALPHA_LOWER, ALPHA_UPPER.
# Latin blocks (letters in them, by Unicode case), the Cyrillic and Greek letters listed there,
# and the blocks of scripts without case (Ethiopic, Bengali, Hebrew, Arabic, Sinhala, Devanagari,
# Kannada, Tamil, Telugu, Hangul, kana, CJK), which count as letters, lower and upper case.
_SPACY_LATIN = (
    (0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F), (0x250, 0x2AF), (0x1D00, 0x1D25),
    (0x1D6B, 0x1D77), (0x1D79, 0x1D9A), (0x1E00, 0x1EFF), (0x2C60, 0x2C7F), (0xA722, 0xA7B9),
    (0xA7FA, 0xA7FA), (0xAB30, 0xAB64), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A),
)  # fmt: skip
_SPACY_LOWER = "ёабвгдежзийклмнопрстуфхцчшщъыьэюяәөүҗңһіїєґѓѕјљњќѐѝάέίόώήύ"
_SPACY_LOWER += "".join(map(chr, range(0x3B1, 0x3CA)))  # Greek small alpha to omega
_SPACY_UPPER = "ЁАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯӘӨҮҖҢҺІЇЄҐЃЅЈЉЊЌЀЍΆΈΊΌΏΉΎ"
_SPACY_UPPER += "".join(map(chr, range(0x391, 0x3AA)))  # Greek capital alpha to omega
_SPACY_UNCASED = (
    (0x1200, 0x137F), (0x0980, 0x09FF), (0x0591, 0x05F4), (0xFB1D, 0xFB4F), (0x0620, 0x064A),
    (0x066E, 0x06D5), (0x06E5, 0x06FF), (0x0750, 0x077F), (0x08A0, 0x08BD), (0xFB50, 0xFBB1),
    (0xFBD3, 0xFD3D), (0xFD50, 0xFDC7), (0xFDF0, 0xFDFB), (0xFE70, 0xFEFC), (0x1EE00, 0x1EEBB),
    (0x0D80, 0x0DFF), (0x0900, 0x097F), (0x0C80, 0x0CFF), (0x0B80, 0x0BFF), (0x0C00, 0x0C7F),
    (0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3040, 0x309F), (0x30A0, 0x30FF), (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF), (0x20000, 0x2EBEF), (0x2E80, 0x2FDF), (0x2FF0, 0x303F), (0x31C0, 0x31EF),
    (0x3200, 0x33FF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0x1F200, 0x1F2FF), (0x2F800, 0x2FA1F),
)  # fmt: skip
C4_PHRASES = (
    "lorem ipsum",
    "javascript",
    # datatrove's C4 POLICY_SUBSTRINGS
    "terms of use",
    "privacy policy",
    "cookie policy",
    "uses cookies",
    "use of cookies",
    "use cookies",
)

F_SPACE = 1 << 0  # str.isspace
F_PUNCT = 1 << 1  # in datatrove's PUNCTUATION_SET
F_ALPHA = 1 << 2  # str.isalpha
F_TERMINAL = 1 << 3  # datatrove's TERMINAL_PUNCTUATION
F_SENT_END = 1 << 4  # spaCy sentencizer's punct_chars
F_CAT_P = 1 << 5  # Unicode category P* (spaCy's is_punct)
F_LETTER = 1 << 6  # spaCy ALPHA
F_LOWER = 1 << 7  # spaCy ALPHA_LOWER (lower-case or uncased letter)
F_UPPER = 1 << 8  # spaCy ALPHA_UPPER (upper-case or uncased letter)
F_ICON = 1 << 9  # spaCy ICONS (category So)
F_PREFIX = 1 << 10  # one-character spaCy prefix
F_SUFFIX = 1 << 11  # one-character spaCy suffix
F_QUOTE = 1 << 12  # spaCy CONCAT_QUOTES
F_DOT_AFTER = 1 << 13  # a "." after it is a suffix
F_LINE_BREAK = 1 << 14  # str.splitlines boundary
F_DIGIT = 1 << 15  # [0-9]
F_DECIMAL = 1 << 16  # \d (Unicode Nd)
F_HOST = 1 << 17  # [A-Za-z0-9\u00a1-\uffff] of spaCy's URL pattern
F_SCHEME = 1 << 18  # [\w+\-.] of spaCy's URL pattern
F_INFIX = 1 << 19  # can start an infix
F_EXC_FIRST = 1 << 20  # first character of an exception
F_EXC_LAST = 1 << 21  # last character of an exception
F_AFFIXED_FIRST = 1 << 22  # first character of an exception with affixes
F_AFFIXED_LAST = 1 << 23  # last character of an exception with affixes


def char_tables() -> tuple[np.ndarray, np.ndarray]:
    """Flags (uint32) and lower case (int32: first character of ``chr(c).lower()``) per code point.

    Built anew on each call (0.2 s); ``words.tables`` keeps one copy, with the flags of the
    tokenizer's exceptions added.
    """
    size = 0x110000
    chars = np.arange(size, dtype=np.uint32).view("<U1")
    alpha = np.strings.isalpha(chars)
    lower_case = np.strings.islower(chars)
    upper_case = np.strings.isupper(chars)
    # Categories P*, So, Lt and Lu have no code point above plane 2 (Unicode 15).
    categories = np.array([unicodedata.category(chr(i))[:2] for i in range(0x30000)])
    flags = np.zeros(size, dtype=np.uint32)

    def mark(text: str, flag: int) -> None:
        flags[[ord(c) for c in text]] |= flag

    flags[np.strings.isspace(chars)] |= F_SPACE
    flags[alpha] |= F_ALPHA
    latin = np.zeros(size, dtype=bool)
    for first, last in _SPACY_LATIN:
        latin[first : last + 1] = True
    latin &= alpha
    uncased = np.zeros(size, dtype=bool)
    for first, last in _SPACY_UNCASED:
        uncased[first : last + 1] = True
    flags[latin | uncased] |= F_LETTER
    flags[(latin & lower_case) | uncased] |= F_LOWER
    flags[(latin & upper_case) | uncased] |= F_UPPER
    mark(_SPACY_LOWER, F_LETTER | F_LOWER)
    mark(_SPACY_UPPER, F_LETTER | F_UPPER)
    flags[np.strings.isdecimal(chars)] |= F_DECIMAL
    flags[: len(categories)][np.strings.startswith(categories, "P")] |= F_CAT_P
    flags[: len(categories)][categories == "So"] |= F_ICON | F_PREFIX | F_SUFFIX
    flags[ord("0") : ord("9") + 1] |= F_DIGIT
    host = np.zeros(size, dtype=bool)
    host[0xA1:0x10000] = True
    host[[ord(c) for c in "0123456789"]] = True
    host[ord("a") : ord("z") + 1] = host[ord("A") : ord("Z") + 1] = True
    flags[host] |= F_HOST
    word = np.strings.isalnum(chars)
    word[ord("_")] = True
    flags[word] |= F_SCHEME

    mark(_DT_PUNCTUATION + _DT_TERMINAL, F_PUNCT)
    mark(_DT_TERMINAL, F_TERMINAL | F_SENT_END)
    flags[[ord(c) for c in _NOT_SENTENCE_END]] &= ~np.uint32(F_SENT_END)
    mark(_MORE_TERMINAL, F_PUNCT | F_TERMINAL)
    mark(_MORE_SENTENCE_ENDS, F_SENT_END)
    mark("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", F_LINE_BREAK)
    mark("+-.", F_SCHEME)
    punct = _SPACY_PUNCT.replace(" ", "")
    quotes = _SPACY_QUOTES.replace(" ", "")
    currency = [c for c in SPACY_CURRENCY.split() if len(c) == 1]
    mark(quotes, F_QUOTE)
    dashes = "\u2014\u2013"
    mark("§%=" + dashes + punct + quotes + "".join(currency), F_PREFIX)
    mark(punct + quotes + dashes + _MORE_SUFFIXES, F_SUFFIX)
    flags[(flags & F_ICON) > 0] |= F_INFIX
    mark(".…+-*^,~:<>=/" + dashes, F_INFIX)
    flags[(flags & F_LOWER) > 0] |= F_DOT_AFTER
    mark("0123456789%²-+|()?:" + punct + quotes, F_DOT_AFTER)

    lower = np.arange(size, dtype=np.int32)
    cased = upper_case[: len(categories)] | np.isin(categories, ["Lt", "So", "Nl"])
    for i in np.flatnonzero(cased):
        lower[i] = ord(chr(i).lower()[0])

    return flags, lower


def code_points(text: str) -> np.ndarray:
    raw = text.encode("utf-32-le", "surrogatepass")
    return np.frombuffer(raw, dtype=np.uint32).astype(np.int32)


def padded_rows(words: list[str]) -> np.ndarray:
    """Rows of (length, code points..., -1 padding)."""
    table = np.full((len(words), 1 + max(map(len, words))), -1, dtype=np.int32)
    for i, word in enumerate(words):
        table[i, 0] = len(word)
        table[i, 1 : 1 + len(word)] = code_points(word)
    return table


@jit
def decode_utf8(data: Any, a: int, b: int, cp: Any) -> int:
    """UTF-8 bytes data[a:b] to code points; returns their number (never reads past b)."""
    n = 0
    i = a
    while i < b:
        c = int(data[i])
        if c < 0x80:
            i += 1
        elif c >= 0xC0 and c < 0xE0 and i + 1 < b:
            c = ((c & 0x1F) << 6) | (int(data[i + 1]) & 0x3F)
            i += 2
        elif c >= 0xE0 and c < 0xF0 and i + 2 < b:
            c = ((c & 0x0F) << 12) | ((int(data[i + 1]) & 0x3F) << 6)
            c |= int(data[i + 2]) & 0x3F
            i += 3
        elif c >= 0xF0 and c < 0xF8 and i + 3 < b:
            c = ((c & 0x07) << 18) | ((int(data[i + 1]) & 0x3F) << 12)
            c |= ((int(data[i + 2]) & 0x3F) << 6) | (int(data[i + 3]) & 0x3F)
            i += 4
        else:
            c = 0xFFFD
            i += 1
        cp[n] = c if c < 0x110000 else 0xFFFD
        n += 1
    return n
