"""Orthographic syllables of Khmer and Burmese, by rule: the words of those languages' signals.

Neither script separates words with spaces (a space separates phrases), and their word
segmenters cannot be used here: khmer-nltk's CRF model is a scikit-learn pickle, and pyidaungsu
(datatrove's Burmese tokenizer) loads fastText at import and states no licence. A syllable is
the unit those models build words from, and its start can be read from the characters:

- Burmese (the ``sylbreak`` rule of Ye Kyaw Thu's Myanmar syllable segmentation): a syllable
  starts at a consonant that is not stacked under another (after U+1039 virama) and not killed
  (before U+103A asat or U+1039), and at an independent vowel or a symbol (ဣ ဤ ဥ ဦ ဧ ဩ ဪ ဿ ၌ ၍ ၏).
- Khmer (character clusters with their final consonant): a syllable starts at a consonant or an
  independent vowel, except a consonant written under another (after U+17D2 coeng) and a final
  consonant: one that follows a dependent vowel and takes no vowel, sign, coeng or register
  shifter itself, or that carries a killer sign (bantoc ់, toandakhiat ៍, kakabat ៎, ahsda ៏):
  ដាក់ and ខ្មែរ are one syllable each.

In both, a run of digits is one word, punctuation of the script (၊ ။, ។ ៕ ៖ ...) is a word of its
own, and a change of script starts a word (a Latin name inside Burmese text is one word).
Whitespace ends a word. Mean word lengths of syllables are about 3 code points in both
languages, inside FineWeb-2's bounds of their configurations (2-21 and 2-13).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

_BURMESE = (0x1000, 0x109F)
_MY_CONSONANTS = (0x1000, 0x1021)
_MY_STARTERS = frozenset("\u1023\u1024\u1025\u1026\u1027\u1029\u102a\u103f\u104c\u104d\u104e\u104f")
_MY_PUNCT = frozenset("\u104a\u104b")
_MY_DIGITS = (0x1040, 0x1049)
_MY_NO_BREAK_AFTER = "\u1039"
_MY_KILLERS = frozenset("\u103a\u1039")

_KHMER = (0x1780, 0x17FF)
_KM_BASES = (0x1780, 0x17B3)  # consonants and independent vowels
_KM_CONSONANTS = (0x1780, 0x17A2)
_KM_VOWELS = (0x17B6, 0x17C5)  # dependent vowels: a consonant after one may be a final
_KM_COENG = "\u17d2"
# A consonant followed by one of these begins its own syllable: a dependent vowel, nikahit,
# reahmuk, yuukaleapintu, a register shifter, samyok sannya, a coeng.
_KM_OWN_VOWEL = frozenset(chr(c) for c in [*range(0x17B6, 0x17CB), 0x17D0, 0x17D2])
_KM_KILLERS = frozenset("\u17cb\u17cd\u17ce\u17cf")
_KM_PUNCT = frozenset(chr(c) for c in range(0x17D4, 0x17DB))
_KM_DIGITS = (0x17E0, 0x17E9)


def _within(c: str, bounds: tuple[int, int]) -> bool:
    return bounds[0] <= ord(c) <= bounds[1]


def _burmese_break(run: str, i: int) -> bool:
    """Whether a syllable starts at ``run[i]`` (``i > 0``)."""
    c, before = run[i], run[i - 1]
    if _within(c, _BURMESE) != _within(before, _BURMESE) or c in _MY_PUNCT or before in _MY_PUNCT:
        return True
    if _within(c, _MY_DIGITS):
        return not _within(before, _MY_DIGITS)
    if _within(c, _MY_CONSONANTS):
        killed = i + 1 < len(run) and run[i + 1] in _MY_KILLERS
        return before != _MY_NO_BREAK_AFTER and not killed
    return c in _MY_STARTERS


def _khmer_break(run: str, i: int) -> bool:
    """Whether a syllable starts at ``run[i]`` (``i > 0``)."""
    c, before = run[i], run[i - 1]
    if _within(c, _KHMER) != _within(before, _KHMER) or c in _KM_PUNCT or before in _KM_PUNCT:
        return True
    if _within(c, _KM_DIGITS):
        return not _within(before, _KM_DIGITS)
    if not _within(c, _KM_BASES) or before == _KM_COENG:
        return False
    after = run[i + 1] if i + 1 < len(run) else ""
    if _within(c, _KM_CONSONANTS) and after in _KM_KILLERS:
        return False
    final = _within(before, _KM_VOWELS) and after not in _KM_OWN_VOWEL
    return not (_within(c, _KM_CONSONANTS) and final)


def _syllables(text: str, breaks: Callable[[str, int], bool]) -> Iterator[tuple[int, int]]:
    start = None
    for i, c in enumerate(text):
        if c.isspace():
            if start is not None:
                yield start, i
                start = None
        elif start is None:
            start = i
        elif breaks(text, i):  # start is set, so text[i - 1] is no whitespace
            yield start, i
            start = i
    if start is not None:
        yield start, len(text)


def burmese_syllables(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the Burmese syllables (and other words) of ``text``, in order."""
    return _syllables(text, _burmese_break)


def khmer_syllables(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the Khmer syllables (and other words) of ``text``, in order."""
    return _syllables(text, _khmer_break)
