"""Quality signals of the cleaning layer (Gopher, C4, FineWeb) as pure functions over Arrow arrays.

``quality_signals`` computes, per document, the values that datatrove's ``GopherQualityFilter``,
``GopherRepetitionFilter``, ``C4QualityFilter`` (as FineWeb ran it) and ``FineWebQualityFilter``
compare with their thresholds; ``seeds/quality_thresholds.csv`` holds the thresholds, by signal
name. ``stop_word_count`` counts stop words, given per language (``seeds/stop_words.csv``).
The work is done by numba kernels over the Arrow UTF-8 buffer (compiled on first use, cached on
disk); lengths are in code points, as Python's ``len``.

Word splitting. datatrove splits words with spaCy's blank English tokenizer (``spacy.blank("en")``)
and drops whitespace tokens. This module re-implements that tokenizer's rules for every text:
split on whitespace (``str.isspace``); in each piece, repeatedly take off one prefix (a
punctuation, quote, currency or symbol character, a run of dots, ``+`` not before a digit) and
one suffix (the same characters, ``'s``, a run of dots, a unit or currency after a digit, a
period after a digit, a lower-case letter, punctuation or two capitals), stopping at one of
spaCy's English exceptions (``don't`` -> ``do n't``, ``Mr.``, ``e.g.``, emoticons: regenerated
here from spaCy 3.8's lists); keep a URL or e-mail address whole; otherwise split at infixes
(dot runs, ``…``, symbols, ``-`` between letters, ``,`` between letters, ``.`` between a
lower-case and an upper-case letter, ``:<>=/`` after a letter or digit, ``+-*^`` between
digits); finally merge runs of tokens that spell an exception with affixes (``)`` ``:`` ->
``):``), as spaCy's special-case matcher does. Letters and their case follow spaCy's lists
(Latin, some Cyrillic and Greek letters, blocks of scripts without case), symbols are Unicode
category So. ``bench/parity_quality.py`` compares word lists and signals with datatrove's.

Signals (datatrove's definitions; "tokens" are all words, "words" those with a character outside
datatrove's punctuation set):

- ``word_count``, ``mean_word_length`` (of words), ``hash_word_ratio`` ('#' / tokens),
  ``ellipsis_word_ratio`` (('...' + '…') / tokens), ``alpha_word_fraction`` (tokens with a
  letter / tokens); ``bullet_line_fraction``, ``ellipsis_line_fraction`` over
  ``str.splitlines()``.
- ``duplicate_{line,paragraph}_fraction`` and ``_char_fraction`` over lines split at ``\\n+``
  and paragraphs split at ``\\n{2,}`` (characters / all characters);
  ``top_{2,3,4}gram_char_fraction`` (the most frequent n-gram, first seen on ties, times its
  count); ``duplicated_{5..10}gram_char_fraction`` (Gopher's greedy scan).
- ``c4_has_lorem_ipsum``, ``c4_has_curly_bracket`` (0/1) and ``c4_sentence_count`` over the
  lines C4 keeps (>= 3 words, none over 1,000 characters, no "javascript" or policy phrase,
  citations removed); sentences as spaCy's sentencizer splits them.
- ``line_punct_fraction``, ``short_line_fraction`` (<= 30 characters),
  ``fineweb_duplicate_line_char_ratio`` over non-blank ``\\n`` lines; ``newline_word_ratio``.

A null text gives a null row; an empty text (or one without tokens) gives 0 for every ratio and
count (datatrove's repetition filter drops an empty text outright; the other three families
drop it anyway). Top n-gram fractions can exceed 1, as in datatrove (overlapping occurrences all
count). ``stop_word_count`` counts occurrences of lower-cased stop words, where datatrove's
Gopher filter counts distinct ones, case-sensitively. Equality of lines, paragraphs and n-grams
is decided by 64-bit hashes (with lengths): a collision, about n**2 / 2**64 per document, would
count two different strings as equal. Case folding uses one code point per character
(``"İ".lower()`` is two in Python).

Cost: importing is cheap (numba, nothing compiled); the first call builds character tables
(0.2 s) and loads the compiled kernels from ``__pycache__`` (0.2 s), or compiles them (about 15 s)
when the cache is missing or stale.
"""

from __future__ import annotations

import csv
import functools
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakemix.udf.utf8 import text_buffers

if TYPE_CHECKING:
    import duckdb

SIGNALS: tuple[tuple[str, str], ...] = (
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
STOP_WORDS_SEED = Path(__file__).resolve().parents[3] / "seeds" / "stop_words.csv"

# --- Character data ----------------------------------------------------------------------------
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
# spaCy 3.8 spacy/lang/char_classes.py (MIT): _punct, _quotes, _currency, _units.
_SPACY_PUNCT = "… , : ; ! ? ¿ ؟ ¡ ( ) [ ] { } < > _ # * & 。 ？ ！ ， 、 ； ： ～ · । ، ۔ ؛ ٪"  # noqa: RUF001
_SPACY_QUOTES = "' \" ” “ ` ‘ ´ ’ ‚ , „ » « 「 」 『 』 （ ） 〔 〕 【 】 《 》 〈 〉 〈 〉 ⟦ ⟧"  # noqa: RUF001
_SPACY_CURRENCY = (
    "$ £ € ¥ ฿ US$ C$ A$ ₽ ﷼ ₴ ₠ ₡ ₢ ₣ ₤ ₥ ₦ ₧ ₨ ₩ ₪ ₫ € ₭ ₮ ₯ ₰ ₱ ₲ ₳ ₴ ₵ ₶ ₷ ₸ ₹ ₺ ₻ ₼ ₽ ₾ ₿"
)
_SPACY_UNITS = (
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
# spaCy 3.8 spacy/lang/tokenizer_exceptions.py (MIT): emoticons kept as one token.
_SPACY_EMOTICONS = r"""
:) :-) :)) :-)) :))) :-))) (: (-: =) (= :] :-] [: [-: [= =] :o) (o: :} :-} 8) 8-) (-8 ;) ;-)
(; (-; :( :-( :(( :-(( :((( :-((( ): )-: =( >:( :') :'-) :'( :'-( :/ :-/ =/ =| :| :-| ]= =[
:1 :P :-P :p :-p :O :-O :o :-o :0 :-0 :() >:o :* :-* :3 :-3 =3 :> :-> :X :-X :x :-x :D :-D ;D
;-D =D xD XD xDD XDD 8D 8-D ^_^ ^__^ ^___^ >.< >.> <.< ._. ;_; -_- -__- v.v V.V v_v V_V o_o
o_O O_o O_O 0_o o_0 0_0 o.O O.o O.O o.o 0.0 o.0 0.o @_@ <3 <33 <333 </3 (^_^) (-_-) (._.)
(>_<) (*_*) (¬_¬) ಠ_ಠ ಠ︵ಠ (ಠ_ಠ) ¯\(ツ)/¯ (╯°□°）╯︵┻━┻ ><(((*>
"""  # noqa: RUF001
# spaCy 3.8 spacy/lang/en/tokenizer_exceptions.py (MIT): abbreviations kept as one token.
_SPACY_ABBREVIATIONS = """
'S 's ‘S ‘s and/or w/o 're 'Cause 'cause 'cos 'Cos 'coz 'Coz 'cuz 'Cuz 'bout ma'am Ma'am
o'clock O'clock lovin' Lovin' lovin Lovin havin' Havin' havin Havin doin' Doin' doin Doin goin'
Goin' goin Goin Mt. Ak. Ala. Apr. Ariz. Ark. Aug. Calif. Colo. Conn. Dec. Del. Feb. Fla. Ga. Ia.
Id. Ill. Ind. Jan. Jul. Jun. Kan. Kans. Ky. La. Mar. Mass. Mich. Minn. Miss. N.C. N.D. N.H. N.J.
N.M. N.Y. Neb. Nebr. Nev. Nov. Oct. Okla. Ore. Pa. S.C. Sep. Sept. Tenn. Va. Wash. Wis. 'd a.m.
Adm. Bros. co. Co. Corp. D.C. Dr. e.g. E.g. E.G. Gen. Gov. i.e. I.e. I.E. Inc. Jr. Ltd. Md.
Messrs. Mo. Mont. Mr. Mrs. Ms. p.m. Ph.D. Prof. Rep. Rev. Sen. St. vs. v.s. ' <space> ''
C++ a. b. c. d. e. f. g. h. i. j. k. l. m. n. o. p. q. r. s. t. u. v. w. x. y. z. ä. ö. ü. —
nothin nuthin ol somethin nothin' nuthin' ol' somethin' Nothin Nuthin Ol Somethin
Nothin' Nuthin' Ol' Somethin' em 'em ll 'll nuff 'nuff
"""  # noqa: RUF001
_EXCLUDED = {"Ill", "ill", "Its", "its", "Hell", "hell", "Shell", "shell", "Shed", "shed"}
_EXCLUDED |= {"were", "Were", "Well", "well", "Whore", "whore"}
_C4_PHRASES = (
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

_F_SPACE = 1 << 0  # str.isspace
_F_PUNCT = 1 << 1  # in datatrove's PUNCTUATION_SET
_F_ALPHA = 1 << 2  # str.isalpha
_F_TERMINAL = 1 << 3  # datatrove's TERMINAL_PUNCTUATION
_F_SENT_END = 1 << 4  # spaCy sentencizer's punct_chars
_F_CAT_P = 1 << 5  # Unicode category P* (spaCy's is_punct)
_F_LETTER = 1 << 6  # spaCy ALPHA
_F_LOWER = 1 << 7  # spaCy ALPHA_LOWER (lower-case or uncased letter)
_F_UPPER = 1 << 8  # spaCy ALPHA_UPPER (upper-case or uncased letter)
_F_ICON = 1 << 9  # spaCy ICONS (category So)
_F_PREFIX = 1 << 10  # one-character spaCy prefix
_F_SUFFIX = 1 << 11  # one-character spaCy suffix
_F_QUOTE = 1 << 12  # spaCy CONCAT_QUOTES
_F_DOT_AFTER = 1 << 13  # a "." after it is a suffix
_F_LINE_BREAK = 1 << 14  # str.splitlines boundary
_F_DIGIT = 1 << 15  # [0-9]
_F_DECIMAL = 1 << 16  # \d (Unicode Nd)
_F_HOST = 1 << 17  # [A-Za-z0-9\u00a1-\uffff] of spaCy's URL pattern
_F_SCHEME = 1 << 18  # [\w+\-.] of spaCy's URL pattern
_F_INFIX = 1 << 19  # can start an infix
_F_EXC_FIRST = 1 << 20  # first character of an exception
_F_EXC_LAST = 1 << 21  # last character of an exception
_F_AFFIXED_FIRST = 1 << 22  # first character of an exception with affixes
_F_AFFIXED_LAST = 1 << 23  # last character of an exception with affixes
_EL_PATTERN = 8  # in a row of exceptions: affixed, tokens, their lengths (6), pattern, lengths

_HB = np.uint64(0x100000001B3)  # polynomial hash base (FNV-1 prime)
_HLEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
_ONE = np.uint64(1)
_SPACE_CODE = np.uint64(33)  # hash code of " " (code point + 1)
_EDIT = tuple(map(ord, "edit]"))
_CITATION_NEEDED = tuple(map(ord, "citation needed]"))

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

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def _jit(fn: _Fn) -> _Fn:
    """numba's nopython compilation, cached on disk; nothing is compiled before the first call."""
    return cast(_Fn, numba.njit(cache=True, nogil=True)(fn))


def _inline(fn: _Fn) -> _Fn:
    """As ``_jit``, inlined into the (hot) callers by numba."""
    return cast(_Fn, numba.njit(cache=True, nogil=True, inline="always")(fn))


class _Tables(NamedTuple):
    flags: np.ndarray  # uint32 per code point
    lower: np.ndarray  # int32 per code point: first character of chr(c).lower()
    # For the kernels: the exceptions' hash table (int64 rows: key, number or -1), the
    # exceptions (int32 rows: matched across tokens, number of tokens, their lengths), the
    # longest exception, units and currencies, C4 phrases (int32 rows: length, code points).
    kernel: tuple[Any, ...]


def _codes(text: str) -> np.ndarray:
    raw = text.encode("utf-32-le", "surrogatepass")
    return np.frombuffer(raw, dtype=np.uint32).astype(np.int32)


def _padded(words: list[str]) -> np.ndarray:
    """Rows of (length, code points..., -1 padding)."""
    table = np.full((len(words), 1 + max(map(len, words))), -1, dtype=np.int32)
    for i, word in enumerate(words):
        table[i, 0] = len(word)
        table[i, 1 : 1 + len(word)] = _codes(word)
    return table


def _exceptions() -> dict[str, tuple[int, ...]]:
    """spaCy 3.8's English tokenizer exceptions, as orth -> lengths of its tokens."""
    exc: dict[str, tuple[str, ...]] = {}

    def add(*parts: str) -> None:
        exc["".join(parts)] = parts

    def cased(*words: str) -> list[str]:
        return [w for word in words for w in (word, word.title())]

    for orth in cased("i"):
        for tail in (("'m",), ("m",), ("'m", "a"), ("m", "a")):
            add(orth, *tail)
    wh = ("who", "what", "when", "where", "why", "how", "there")
    modals = (
        *("ca", "could", "do", "does", "did", "had", "may", "might", "must", "need", "ought"),
        *("sha", "should", "wo", "would"),
    )
    perfect = ("could", "might", "must", "should", "would")  # these take 've
    contractions = {
        "'ll": ("i", "you", "he", "she", "it", "we", "they", *wh, "that", "this", "these", "those"),
        "'d": ("i", "you", "he", "she", "it", "we", "they", *wh, "that", "this", "these", "those"),
        "'ve": ("i", "you", "we", "they", *wh, "these", "those", *perfect),
        "'re": ("you", "we", "they", *wh, "these", "those"),
        "'s": ("he", "she", "it", *wh, "that", "this"),
        "n't": (*modals, "ai", "are", "is", "was", "were", "have", "has", "dare"),
    }
    for suffix, words in contractions.items():
        for word in words:
            for orth in cased(word):
                add(orth, suffix)
                add(orth, suffix.replace("'", ""))
                if suffix in ("'ll", "'d") or (suffix == "n't" and word in modals):
                    add(orth, suffix, "'ve")
                    add(orth, suffix.replace("'", ""), "ve")
    for hour in range(1, 13):
        for period in ("a.m.", "am", "p.m.", "pm"):
            add(str(hour), period)
    for orth, split in {
        "y'all": ("y'", "all"),
        "yall": ("y", "all"),
        "how'd'y": ("how", "'d", "'y"),
        "How'd'y": ("How", "'d", "'y"),
        "cannot": ("can", "not"),
        "Cannot": ("Can", "not"),
        "gonna": ("gon", "na"),
        "Gonna": ("Gon", "na"),
        "gotta": ("got", "ta"),
        "Gotta": ("Got", "ta"),
        "let's": ("let", "'s"),
        "Let's": ("Let", "'s"),
        "c'mon": ("c'm", "on"),
        "C'mon": ("C'm", "on"),
    }.items():
        exc[orth] = split
    for orth in cased("not"):
        add(orth, "'ve")
        add(orth, "ve")
    for orth in (_SPACY_ABBREVIATIONS + _SPACY_EMOTICONS).split():
        add(orth)
    for orth in ("\\t", "\\n", '\\")', "\xa0"):
        add(orth)
    for unit in "cfkCFK":
        add("°", unit, ".")
    for orth in _EXCLUDED:
        exc.pop(orth, None)
    for orth, pieces in list(exc.items()):
        if "'" in orth:  # and with a right single quotation mark, as spaCy's update_exc does
            exc[orth.replace("'", "\u2019")] = tuple(p.replace("'", "\u2019") for p in pieces)
    return {orth: tuple(map(len, parts)) for orth, parts in exc.items()}


@functools.cache
def _tables() -> _Tables:
    """Character flags and tokenizer data, built on first use (0.2 s)."""
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

    flags[np.strings.isspace(chars)] |= _F_SPACE
    flags[alpha] |= _F_ALPHA
    latin = np.zeros(size, dtype=bool)
    for first, last in _SPACY_LATIN:
        latin[first : last + 1] = True
    latin &= alpha
    uncased = np.zeros(size, dtype=bool)
    for first, last in _SPACY_UNCASED:
        uncased[first : last + 1] = True
    flags[latin | uncased] |= _F_LETTER
    flags[(latin & lower_case) | uncased] |= _F_LOWER
    flags[(latin & upper_case) | uncased] |= _F_UPPER
    mark(_SPACY_LOWER, _F_LETTER | _F_LOWER)
    mark(_SPACY_UPPER, _F_LETTER | _F_UPPER)
    flags[np.strings.isdecimal(chars)] |= _F_DECIMAL
    flags[: len(categories)][np.strings.startswith(categories, "P")] |= _F_CAT_P
    flags[: len(categories)][categories == "So"] |= _F_ICON | _F_PREFIX | _F_SUFFIX
    flags[ord("0") : ord("9") + 1] |= _F_DIGIT
    host = np.zeros(size, dtype=bool)
    host[0xA1:0x10000] = True
    host[[ord(c) for c in "0123456789"]] = True
    host[ord("a") : ord("z") + 1] = host[ord("A") : ord("Z") + 1] = True
    flags[host] |= _F_HOST
    word = np.strings.isalnum(chars)
    word[ord("_")] = True
    flags[word] |= _F_SCHEME

    mark(_DT_PUNCTUATION + _DT_TERMINAL, _F_PUNCT)
    mark(_DT_TERMINAL, _F_TERMINAL | _F_SENT_END)
    flags[[ord(c) for c in _NOT_SENTENCE_END]] &= ~np.uint32(_F_SENT_END)
    mark("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", _F_LINE_BREAK)
    mark("+-.", _F_SCHEME)
    punct = _SPACY_PUNCT.replace(" ", "")
    quotes = _SPACY_QUOTES.replace(" ", "")
    currency = [c for c in _SPACY_CURRENCY.split() if len(c) == 1]
    mark(quotes, _F_QUOTE)
    dashes = "\u2014\u2013"
    mark("§%=" + dashes + punct + quotes + "".join(currency), _F_PREFIX)
    mark(punct + quotes + dashes, _F_SUFFIX)
    flags[(flags & _F_ICON) > 0] |= _F_INFIX
    mark(".…+-*^,~:<>=/" + dashes, _F_INFIX)
    flags[(flags & _F_LOWER) > 0] |= _F_DOT_AFTER
    mark("0123456789%²-+|()?:" + punct + quotes, _F_DOT_AFTER)

    lower = np.arange(size, dtype=np.int32)
    cased = upper_case[: len(categories)] | np.isin(categories, ["Lt", "So", "Nl"])
    for i in np.flatnonzero(cased):
        lower[i] = ord(chr(i).lower()[0])

    exceptions = _exceptions()
    mark("".join(orth[0] for orth in exceptions), _F_EXC_FIRST)
    mark("".join(orth[-1] for orth in exceptions), _F_EXC_LAST)
    slots = 1 << (2 * len(exceptions)).bit_length()
    ex = np.zeros((slots, 2), dtype=np.int64)
    ex[:, 1] = -1
    emax = max(map(len, exceptions))
    el = np.zeros((len(exceptions), _EL_PATTERN + 1 + emax), dtype=np.int32)
    units = _padded(_SPACY_UNITS.split() + _SPACY_CURRENCY.split())
    no_exceptions = np.full((1, 2), -1, dtype=np.int64)
    ts, te, ss, se = (np.empty(emax + 1, np.int32) for _ in range(4))
    for number, (orth, parts) in enumerate(exceptions.items()):
        codes = _codes(orth)
        key = np.uint64(_key(codes, 0, len(codes)))
        slot = int(_mix(key)) & (slots - 1)
        while ex[slot, 1] >= 0:
            slot = (slot + 1) & (slots - 1)
        ex[slot] = key.view(np.int64), number
        # spaCy matches an exception across tokens only if it has a prefix, suffix or infix.
        # and then as the tokens its text gives without exceptions (the PhraseMatcher pattern).
        el[number, :2] = _has_affix(codes, flags, units), len(parts)
        el[number, 2 : 2 + len(parts)] = parts
        if el[number, 0]:
            flags[ord(orth[0])] |= _F_AFFIXED_FIRST
            flags[ord(orth[-1])] |= _F_AFFIXED_LAST
            args = (flags, no_exceptions, el, emax, units, ts, te, 0, ss, se)
            n = _tokenize_piece(codes, 0, len(codes), *args)
            el[number, _EL_PATTERN] = n
            el[number, _EL_PATTERN + 1 : _EL_PATTERN + 1 + n] = te[:n] - ts[:n]
    kernel = (ex, el, emax, units, _padded(list(_C4_PHRASES)))
    return _Tables(flags, lower, kernel)


# --- Kernels: hashing ----------------------------------------------------------------------------


@_jit
def _mix(z: Any) -> Any:
    """splitmix64's finalizer."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@_jit
def _key(cp: Any, s: int, e: int) -> Any:
    """Hash of the code points cp[s:e] and their number."""
    h = np.uint64(0)
    for i in range(s, e):
        h = h * _HB + np.uint64(cp[i] + 1)
    return _mix(h ^ (np.uint64(e - s) * _HLEN))


@_inline
def _slot(keys: Any, stamps: Any, stamp: int, key: Any) -> tuple[Any, bool]:
    """Slot of ``key`` in an open-addressing table (entries are live when stamped ``stamp``)."""
    mask = np.uint64(len(keys) - 1)
    i = np.int64(_mix(key) & mask)
    while stamps[i] == stamp:
        if keys[i] == key:
            return i, True
        i = (i + 1) & (len(keys) - 1)
    return i, False


@_inline
def _special(cp: Any, s: int, e: int, fl: Any, ex: Any) -> int:
    """Number of the spaCy exception equal to cp[s:e], or -1 (ex: the exceptions' table).

    The tables are passed as arrays, not in a tuple: numba passes tuples by value, which
    costs more than these lookups.
    """
    if e <= s or (fl[cp[s]] & _F_EXC_FIRST) == 0 or (fl[cp[e - 1]] & _F_EXC_LAST) == 0:
        return -1
    key = _key(cp, s, e)
    mask = len(ex) - 1
    i = np.int64(_mix(key)) & mask
    while ex[i, 1] >= 0:
        if ex[i, 0] == np.int64(key):
            return int(ex[i, 1])
        i = (i + 1) & mask
    return -1


# --- Kernels: spaCy's English tokenizer ---------------------------------------------------------


@_jit
def _is(fl: Any, c: int, flag: int) -> bool:
    return bool(fl[c] & flag)


@_jit
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


@_inline
def _prefix_length(cp: Any, s: int, e: int, fl: Any) -> int:
    c = cp[s]
    if c == 46:  # r"\.\.+"
        r = s
        while r < e and cp[r] == 46:
            r += 1
        return r - s if r - s >= 2 else 0
    if c == 43:  # r"\+(?![0-9])"
        return 0 if s + 1 < e and _is(fl, cp[s + 1], _F_DIGIT) else 1
    if _is(fl, c, _F_PREFIX):
        return 1
    if c == 85 and s + 2 < e and cp[s + 1] == 83 and cp[s + 2] == 36:  # US$
        return 3
    if (c == 67 or c == 65) and s + 1 < e and cp[s + 1] == 36:  # C$ A$
        return 2
    return 0


@_jit
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
        if _is(fl, cp[p - 1], _F_DIGIT) and not _is(fl, cp[p], _F_DIGIT) and _is_unit(cp, p, e, un):
            best = p
            break
    if best == e:
        prev = cp[e - 2] if e - s >= 2 else -1
        plus = last == 43 and prev >= 0 and _is(fl, prev, _F_DIGIT)  # (?<=[0-9])\+
        if plus or _is(fl, last, _F_SUFFIX):  # or punctuation, quotes, symbols
            best = e - 1
        elif last == 46 and prev >= 0:
            before = cp[e - 3] if e - s >= 3 else -1
            upper = before >= 0 and _is(fl, before, _F_UPPER) and _is(fl, prev, _F_UPPER)
            degrees = before == 0xB0 and (prev | 32 == 99 or prev | 32 == 102 or prev | 32 == 107)
            if upper or degrees or _is(fl, prev, _F_DOT_AFTER):  # two capitals, °C. °F. °K.
                best = e - 1
    return e - best


@_jit
def _infix_length(cp: Any, i: int, s: int, e: int, fl: Any) -> int:
    c = cp[i]
    if (fl[c] & _F_INFIX) == 0:
        return 0
    nxt = cp[i + 1] if i + 1 < e else -1
    if c == 46 and nxt == 46:
        r = i
        while r < e and cp[r] == 46:
            r += 1
        return r - i
    if c == 0x2026 or _is(fl, c, _F_ICON):
        return 1
    if i == s:
        return 0
    prev = cp[i - 1]
    if nxt < 0:
        return 0
    arithmetic = c == 43 or c == 45 or c == 42 or c == 94
    if arithmetic and _is(fl, prev, _F_DIGIT) and (_is(fl, nxt, _F_DIGIT) or nxt == 45):
        return 1
    if c == 46 and _is(fl, prev, _F_LOWER | _F_QUOTE) and _is(fl, nxt, _F_UPPER | _F_QUOTE):
        return 1
    if c == 44 and _is(fl, prev, _F_LETTER) and _is(fl, nxt, _F_LETTER):
        return 1
    if _is(fl, prev, _F_LETTER | _F_DIGIT):
        # spaCy's hyphens, tried in this order before a letter: - en-dash em-dash -- --- 2 em ~
        n = 0
        if c == 45 or c == 0x2013 or c == 0x2014 or c == 126:
            if _is(fl, nxt, _F_LETTER):
                n = 1
            elif c == 45 and nxt == 45:
                if i + 2 < e and _is(fl, cp[i + 2], _F_LETTER):
                    n = 2
                elif i + 3 < e and cp[i + 2] == 45 and _is(fl, cp[i + 3], _F_LETTER):
                    n = 3
            elif c == 0x2014 and nxt == 0x2014 and i + 2 < e and _is(fl, cp[i + 2], _F_LETTER):
                n = 2
        if n > 0:
            return n
        if (c == 58 or c == 60 or c == 62 or c == 61 or c == 47) and _is(fl, nxt, _F_LETTER):
            return 1
    return 0


@_jit
def _host_matches(cp: Any, q: int, e: int, fl: Any) -> bool:
    """Domain labels, a lower-case TLD, an optional port and path, up to ``e``."""
    labels = 0
    i = q
    j = q
    while True:
        j = i
        while j < e and (_is(fl, cp[j], _F_HOST) or cp[j] == 95 or cp[j] == 45):
            j += 1
        label = j < e and cp[j] == 46 and j > i and j - i <= 64
        if label and _is(fl, cp[i], _F_HOST) and _is(fl, cp[j - 1], _F_HOST):
            labels += 1
            i = j + 1
            continue
        break
    if labels == 0:
        return False
    t = i
    while t < e and _is(fl, cp[t], _F_LOWER):
        t += 1
    if t - i < 2 or t - i > 63:
        return False
    if t < e and cp[t] == 58:
        d = t + 1
        while d < e and _is(fl, cp[d], _F_DIGIT):
            d += 1
        if d - t - 1 < 2 or d - t - 1 > 5:
            return False
        t = d
    return t == e or cp[t] == 47 or cp[t] == 63 or cp[t] == 35


@_jit
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
                if not _is(fl, cp[q], _F_SCHEME):
                    ok = False
            if ok:
                p = k + 3
            break
    for k in range(e - 1, s, -1):
        if cp[k] == 64 and _host_matches(cp, k + 1, e, fl):
            return True
    return _host_matches(cp, p, e, fl) or (p != s and _host_matches(cp, s, e, fl))


@_jit
def _emit_special(v: int, s: int, el: Any, ts: Any, te: Any, nt: int) -> int:
    """The tokens of exception v (el[v]: affixed, parts, their lengths) from s."""
    for k in range(el[v, 1]):
        ts[nt] = s
        te[nt] = s + el[v, 2 + k]
        s += el[v, 2 + k]
        nt += 1
    return nt


@_jit
def _has_affix(cp: Any, fl: Any, un: Any) -> bool:
    """Whether spaCy's find_prefix, find_suffix or find_infix match in cp."""
    n = len(cp)
    if _prefix_length(cp, 0, n, fl) > 0 or _suffix_length(cp, 0, n, fl, un) > 0:
        return True
    for i in range(n):  # noqa: SIM110 (numba compiles no generator expressions)
        if _infix_length(cp, i, 0, n, fl) > 0:
            return True
    return False


@_jit
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


@_jit
def _run_special(cp: Any, i: int, j: int, fl: Any, ex: Any, el: Any, ts: Any, te: Any) -> bool:
    """Whether tokens i..j are as spaCy's PhraseMatcher finds an exception with affixes: their
    texts joined spell it, and they are the tokens its text gives without exceptions."""
    first, last = fl[cp[ts[i]]], fl[cp[te[j - 1] - 1]]
    if (first & _F_AFFIXED_FIRST) == 0 or (last & _F_AFFIXED_LAST) == 0:
        return False
    h = np.uint64(0)
    length = 0
    for t in range(i, j):
        for k in range(ts[t], te[t]):
            h = h * _HB + np.uint64(cp[k] + 1)
        length += te[t] - ts[t]
    key = _mix(h ^ (np.uint64(length) * _HLEN))
    mask = len(ex) - 1
    slot = np.int64(_mix(key)) & mask
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


@_jit
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


@_jit
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


@_jit
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
                m = _infix_length(cp, i, s, e, fl) if _is(fl, cp[i], _F_INFIX) else 0
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


@_jit
def _tokenize(cp: Any, a: int, b: int, fl: Any, tk: Any, ts: Any, te: Any, ss: Any, se: Any) -> int:
    """Tokens of cp[a:b] into ts/te (start, end); returns their number."""
    ex, el, emax, un = tk[0], tk[1], tk[2], tk[3]
    nt = 0
    lo, hi = -1, -1  # the first and last tokens of pieces with runs spelling an exception
    i = a
    while i < b:
        while i < b and _is(fl, cp[i], _F_SPACE):
            i += 1
        j = i
        while j < b and not _is(fl, cp[j], _F_SPACE):
            j += 1
        if j > i:
            t0 = nt
            nt = _tokenize_piece(cp, i, j, fl, ex, el, emax, un, ts, te, nt, ss, se)
            if nt - t0 >= 2 and _has_run(cp, t0, nt, fl, ex, el, emax, ts, te):
                lo, hi = t0 if lo < 0 else lo, nt
        i = j
    if lo >= 0:
        nt = _merge_specials(cp, nt, lo, hi, fl, ex, el, emax, ts, te, ss, se)
    return nt


@_jit
def _sentences(cp: Any, ts: Any, te: Any, t0: int, t1: int, fl: Any) -> int:
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
        single = te[t] - ts[t] == 1 and _is(fl, cp[ts[t]], _F_SENT_END)
        punct = True
        for i in range(ts[t], te[t]):
            if not _is(fl, cp[i], _F_CAT_P):
                punct = False
                break
        if seen and not punct and not single:
            count += 1
            seen = False
        elif single:
            seen = True
    return count


# --- Kernels: signals ------------------------------------------------------------------------


@_jit
def _decode(data: Any, a: int, b: int, cp: Any) -> int:
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


@_jit
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


@_jit
def _starts_with(cp: Any, i: int, b: int, word: Any) -> bool:
    if i + len(word) > b:
        return False
    for k in range(len(word)):  # noqa: SIM110 (numba compiles no generator expressions)
        if cp[i + k] != word[k]:
            return False
    return True


@_jit
def _uncited(cp: Any, a: int, b: int, fl: Any, out: Any) -> int:
    """cp[a:b] without ``\\[\\d*]|\\[edit]|\\[citation needed]`` into out; returns its length."""
    m = 0
    i = a
    while i < b:
        if cp[i] == 91:
            j = i + 1
            while j < b and _is(fl, cp[j], _F_DECIMAL):
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
        m += 1
        i += 1
    return m


@_jit
def _duplicates(cp: Any, bounds: Any, nb: int, keys: Any, stamps: Any, stamp: int) -> Any:
    """datatrove's find_duplicates over pieces cp[bounds[k, 0]:bounds[k, 1]]: (pieces, chars)."""
    pieces = 0
    chars = 0
    for k in range(nb):
        s, e = bounds[k, 0], bounds[k, 1]
        key = _key(cp, s, e)
        slot, found = _slot(keys, stamps, stamp, key)
        if found:
            pieces += 1
            chars += e - s
        else:
            stamps[slot] = stamp
            keys[slot] = key
    return pieces, chars


@_jit
def _gopher_lines(cp: Any, n: int, fl: Any) -> tuple[int, int, int]:
    """Lines of str.splitlines(), bullet lines, lines ending in an ellipsis."""
    lines = bullets = ellipses = 0
    i = 0
    while i < n:
        j = i
        while j < n and not _is(fl, cp[j], _F_LINE_BREAK):
            j += 1
        lines += 1
        k = i
        while k < j and _is(fl, cp[k], _F_SPACE):
            k += 1
        if k < j and (cp[k] == 0x2022 or cp[k] == 45):
            bullets += 1
        m = j
        while m > i and _is(fl, cp[m - 1], _F_SPACE):
            m -= 1
        dots = m - i >= 3 and cp[m - 1] == 46 and cp[m - 2] == 46 and cp[m - 3] == 46
        if dots or (m > i and cp[m - 1] == 0x2026):
            ellipses += 1
        if j + 1 < n and cp[j] == 13 and cp[j + 1] == 10:
            j += 1
        i = j + 1
    return lines, bullets, ellipses


@_jit
def _document(cp: Any, n: int, tk: Any, fl: Any, lower: Any, w: Any, out: Any) -> None:
    """All signals of one decoded document into out (float64, SIGNALS order)."""
    ts, te, ss, se, bounds, buf, lts, lte = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
    ph = tk[4]
    th, tp, tl = w[8], w[9], w[10]
    keys, stamps, counts, firsts, lengths = w[11]
    stamp = w[12][0]  # a slot is live when stamped with the current generation

    # Gopher quality: lines
    lines, bullets, ellipses = _gopher_lines(cp, n, fl)
    if lines > 0:
        out[_C_BULLET_LINES] = bullets / lines
        out[_C_ELLIPSIS_LINES] = ellipses / lines

    # Gopher repetition: paragraphs (text.strip() split at \n{2,}) and lines (\n+)
    a, b = 0, n
    while a < b and _is(fl, cp[a], _F_SPACE):
        a += 1
    while b > a and _is(fl, cp[b - 1], _F_SPACE):
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
    if 2 * nb + 2 > len(keys):
        keys, stamps, counts, firsts, lengths = _table(n)
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
    if 2 * nb + 2 > len(keys):
        keys, stamps, counts, firsts, lengths = _table(n)
    stamp += 1
    pieces, chars = _duplicates(cp, bounds, nb, keys, stamps, stamp)
    out[_C_DUP_LINES] = pieces / nb
    if n > 0:
        out[_C_DUP_LINE_CHARS] = chars / n

    # FineWeb: non-blank lines of text.split("\n")
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
                if not _is(fl, cp[k], _F_SPACE):
                    blank = False
                    break
            if not blank:
                bounds[nb, 0], bounds[nb, 1] = start, i
                nb += 1
                if _is(fl, cp[i - 1], _F_TERMINAL):
                    punct += 1
                if i - start <= 30:
                    short += 1
            start = i + 1
    if nb > 0:
        out[_C_PUNCT_LINES] = punct / nb
        out[_C_SHORT_LINES] = short / nb
        if 2 * nb + 2 > len(keys):
            keys, stamps, counts, firsts, lengths = _table(n)
        stamp += 1
        chars = _duplicates(cp, bounds, nb, keys, stamps, stamp)[1]
        out[_C_FW_DUP_CHARS] = chars / (n - newlines)

    # Tokens
    nt = _tokenize(cp, 0, n, fl, tk, ts, te, ss, se)
    words = word_chars = alphas = 0
    for t in range(nt):
        symbol = True
        alpha = False
        h = np.uint64(0)
        p = _ONE
        for i in range(ts[t], te[t]):
            c = cp[i]
            if not _is(fl, c, _F_PUNCT):
                symbol = False
            if _is(fl, c, _F_ALPHA):
                alpha = True
            h = h * _HB + np.uint64(c + 1)
            p = p * _HB
        th[t], tp[t], tl[t] = h, p, te[t] - ts[t]
        if not symbol:
            words += 1
            word_chars += te[t] - ts[t]
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

    # Gopher repetition: most frequent n-gram (" ".join), duplicated n-grams ("".join)
    if 2 * nt + 2 > len(keys):
        keys, stamps, counts, firsts, lengths = _table(nt)
    for g in range(2, 5):
        if nt < g:
            continue
        stamp += 1
        best = -1
        for i in range(nt - g + 1):
            h = th[i]
            length = tl[i]
            for t in range(i + 1, i + g):
                h = (h * _HB + _SPACE_CODE) * tp[t] + th[t]
                length += 1 + tl[t]
            key = _mix(h ^ (np.uint64(length) * _HLEN))
            slot, found = _slot(keys, stamps, stamp, key)
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
            key = _mix(h ^ (np.uint64(length) * _HLEN))
            slot, found = _slot(keys, stamps, stamp, key)
            if found:
                repeated += length
                i += g
            else:
                stamps[slot], keys[slot] = stamp, key
                i += 1
        if n > 0:
            out[_C_DUP5 + g - 5] = repeated / n

    # C4 (FineWeb's settings): lines of str.splitlines()
    lorem = curly = sentences = 0
    first = 0
    i = 0
    while i < n:
        j = i
        while j < n and not _is(fl, cp[j], _F_LINE_BREAK):
            j += 1
        a, b = i, j
        while a < b and _is(fl, cp[a], _F_SPACE):
            a += 1
        while b > a and _is(fl, cp[b - 1], _F_SPACE):
            b -= 1
        while first < nt and ts[first] < i:
            first += 1
        stop = first
        while stop < nt and te[stop] <= j:
            stop += 1
        words = longest = 0
        k = a
        while k < b:
            while k < b and _is(fl, cp[k], _F_SPACE):
                k += 1
            w0 = k
            while k < b and not _is(fl, cp[k], _F_SPACE):
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
                src, sa, sb = buf, 0, _uncited(cp, a, b, fl, buf)
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
                        m = _tokenize(buf, 0, sb, fl, tk, lts, lte, ss, se)
                        sentences += _sentences(buf, lts, lte, 0, m, fl)
                    elif not policy:
                        sentences += _sentences(cp, ts, te, first, stop, fl)
        first = stop
        if j + 1 < n and cp[j] == 13 and cp[j + 1] == 10:
            j += 1
        i = j + 1
    out[_C_LOREM], out[_C_CURLY], out[_C_SENTENCES] = lorem, curly, sentences
    w[12][0] = stamp


@_jit
def _table(entries: int) -> Any:
    """An empty hash table for up to ``entries`` keys: keys, stamps, counts, first seen, lengths."""
    size = 16
    while size < 2 * entries + 2:
        size *= 2
    i32 = np.int32
    z = np.zeros
    return np.empty(size, np.uint64), z(size, np.int64), z(size, i32), z(size, i32), z(size, i32)


@_jit
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
        _table(min(n, 1 << 15)),
        np.zeros(1, np.int64),  # generation of the tables' stamps
    )


@_jit
def _signals_kernel(
    data: Any, offsets: Any, valid: Any, fl: Any, lower: Any, tk: Any, out: Any
) -> None:
    longest = 1
    for r in range(len(offsets) - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    cap = min(longest, 1 << 16)
    w = _workspace(cap)
    cp = np.empty(cap + 1, np.int32)
    for r in range(len(offsets) - 1):
        if not valid[r]:
            continue
        size = offsets[r + 1] - offsets[r]
        if size > cap:
            cap = size
            w = _workspace(cap)
            cp = np.empty(cap + 1, np.int32)
        n = _decode(data, offsets[r], offsets[r + 1], cp)
        _document(cp, n, tk, fl, lower, w, out[r])


@_jit
def _stop_word_kernel(
    data: Any,
    offsets: Any,
    languages: Any,
    fl: Any,
    lower: Any,
    tk: Any,
    words: Any,
    word_offsets: Any,
    out: Any,
) -> None:
    longest = 1
    for r in range(len(offsets) - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    cp = np.empty(longest + 1, np.int32)
    ts, te = np.empty(longest + 1, np.int32), np.empty(longest + 1, np.int32)
    ss, se = np.empty(longest + 1, np.int32), np.empty(longest + 1, np.int32)
    for r in range(len(offsets) - 1):
        lang = languages[r]
        if lang < 0:
            continue
        n = _decode(data, offsets[r], offsets[r + 1], cp)
        nt = _tokenize(cp, 0, n, fl, tk, ts, te, ss, se)
        for i in range(n):
            cp[i] = lower[cp[i]]
        lo0, hi0 = word_offsets[lang], word_offsets[lang + 1]
        count = 0
        for t in range(nt):
            key = _key(cp, ts[t], te[t])
            lo, hi = lo0, hi0
            while lo < hi:
                mid = (lo + hi) // 2
                if words[mid] < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < hi0 and words[lo] == key:
                count += 1
        out[r] = count


# --- Arrow API -------------------------------------------------------------------------------


def split_words(text: str) -> list[str]:
    """The words of ``text`` as the signals split them (see the module docstring).

    Args:
        text: Any string.

    Returns:
        Its words (tokens, punctuation included), in order.
    """
    tables = _tables()
    cp = _codes(text)
    ts, te, ss, se = (np.empty(len(cp) + 1, np.int32) for _ in range(4))
    nt = _tokenize(cp, 0, len(cp), tables.flags, tables.kernel, ts, te, ss, se)
    return [text[start:end] for start, end in zip(ts[:nt].tolist(), te[:nt].tolist(), strict=True)]


def quality_signals(texts: pa.Array | pa.ChunkedArray) -> pa.StructArray:
    """Gopher, C4 and FineWeb quality signals of each text (see the module docstring).

    Args:
        texts: Strings (string, large_string, string_view or null type); nulls allowed.

    Returns:
        A struct array of the same length with one field per name in ``SIGNALS`` (float64
        fractions and ratios, int64 counts and 0/1 flags); null where the text is null.

    Raises:
        TypeError: If ``texts`` is not an array of strings.
    """
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    tables = _tables()
    results = []
    for chunk in chunks:
        data, offsets, valid = text_buffers(chunk)
        out = np.zeros((len(chunk), len(SIGNALS)), dtype=np.float64)
        _signals_kernel(data, offsets, valid, tables.flags, tables.lower, tables.kernel, out)
        arrays = [
            pa.array(out[:, k].astype(np.int64) if kind == "int64" else out[:, k])
            for k, (_, kind) in enumerate(SIGNALS)
        ]
        mask = pa.array(~valid, pa.bool_())
        names = [name for name, _ in SIGNALS]
        results.append(pa.StructArray.from_arrays(arrays, names=names, mask=mask))
    if not results:
        fields = [
            pa.field(name, pa.int64() if t == "int64" else pa.float64()) for name, t in SIGNALS
        ]
        return cast(pa.StructArray, pa.array([], pa.struct(fields)))
    return cast(pa.StructArray, pa.concat_arrays(results))


def stop_word_count(
    texts: pa.Array | pa.ChunkedArray,
    languages: pa.Array | pa.ChunkedArray,
    stop_words: Mapping[str, frozenset[str]],
) -> pa.Int64Array:
    """Occurrences of the text's language's stop words among its words (lower-cased).

    Words are split as in ``quality_signals`` and lower-cased one code point at a time, as are
    the stop words.

    Args:
        texts: Strings; nulls allowed.
        languages: The language code of each text, as keyed in ``stop_words``.
        stop_words: Stop words per language code.

    Returns:
        An int64 array; null where the text or the language is null or the language has no
        stop words in ``stop_words``.

    Raises:
        TypeError: If ``texts`` or ``languages`` are not arrays of strings.
        ValueError: If ``texts`` and ``languages`` differ in length.
    """
    if len(texts) != len(languages):
        raise ValueError(f"texts and languages differ in length: {len(texts)} != {len(languages)}")
    tables = _tables()
    codes = sorted(stop_words)
    words: list[np.ndarray] = []
    word_offsets = [0]
    for code in codes:
        keys = []
        for word in stop_words[code]:
            cp = tables.lower[_codes(word)]
            keys.append(_key(cp, 0, len(cp)))
        words.append(np.unique(np.array(keys, dtype=np.uint64)))
        word_offsets.append(word_offsets[-1] + len(words[-1]))
    word_keys = np.concatenate(words) if words else np.zeros(0, np.uint64)
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if isinstance(languages, pa.ChunkedArray):
        languages = languages.combine_chunks()
    text_buffers(languages)  # type check
    index = pc.index_in(languages.cast(pa.large_string()), pa.array(codes, pa.large_string()))
    lang = index.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    data, offsets, valid = text_buffers(texts)
    lang[~valid] = -1
    out = np.zeros(len(texts), dtype=np.int64)
    _stop_word_kernel(
        data,
        offsets,
        lang,
        tables.flags,
        tables.lower,
        tables.kernel,
        word_keys,
        np.array(word_offsets, np.int64),
        out,
    )
    return cast(pa.Int64Array, pa.array(out, pa.int64(), mask=lang < 0))


@functools.cache
def seed_stop_words() -> dict[str, frozenset[str]]:
    """Stop words per language from ``seeds/stop_words.csv`` (read once).

    Raises:
        FileNotFoundError: If the seed is missing (``scripts/make_stop_words.py`` writes it).
    """
    if not STOP_WORDS_SEED.is_file():
        raise FileNotFoundError(
            f"{STOP_WORDS_SEED} not found; write it: .venv/bin/python scripts/make_stop_words.py"
        )
    words: dict[str, set[str]] = {}
    with STOP_WORDS_SEED.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            words.setdefault(row["language"], set()).add(row["word"])
    return {language: frozenset(ws) for language, ws in words.items()}


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_quality_signals`` and ``lakemix_stop_word_count`` on ``conn``.

    ``lakemix_quality_signals(text VARCHAR)`` returns a STRUCT with one field per name in
    ``SIGNALS`` (DOUBLE or BIGINT); ``lakemix_stop_word_count(text VARCHAR, language VARCHAR)``
    returns a BIGINT counted with ``seeds/stop_words.csv`` (read on first call), NULL for a
    language without stop words there. Both are vectorized Arrow UDFs, deterministic, and give
    NULL for NULL text.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, DOUBLE, VARCHAR

    struct = duckdb.struct_type(
        {name: BIGINT if kind == "int64" else DOUBLE for name, kind in SIGNALS}
    )
    conn.create_function(
        "lakemix_quality_signals",
        quality_signals,
        [VARCHAR],
        struct,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )

    def count(texts: pa.Array, languages: pa.Array) -> pa.Int64Array:
        return stop_word_count(texts, languages, seed_stop_words())

    conn.create_function(
        "lakemix_stop_word_count",
        count,
        [VARCHAR, VARCHAR],
        BIGINT,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
