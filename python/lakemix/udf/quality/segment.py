"""Word segmentation of languages written without spaces between words.

The signals split words at whitespace and then by spaCy's English affix rules; that is right for
most scripts and wrong where whitespace does not separate words (Chinese, Japanese, Thai, Lao,
Tibetan, Khmer, Burmese) or separates phrases of several morphemes (Korean, whose stop words are
particles). For those languages a segmenter marks where each word starts, and the word splitting
breaks there as it breaks at a space. The segmenters are the ones FineWeb-2 used through datatrove's
word tokenizers, where they run offline, so the per-language thresholds measured on their words
apply:

- jieba, precise mode with its HMM (Chinese: zh, wuu, yue), as spaCy's Chinese tokenizer runs it,
  re-implemented in numba on jieba's dictionary (``chinese``: the same words, 15x faster);
- SudachiPy with sudachidict-core, split mode A (Japanese), as spaCy's Japanese tokenizer;
- kiwipiepy (Korean);
- PyThaiNLP's ``newmm-safe`` (Thai);
- LaoNLP (Lao);
- the tsheg rule (Tibetan, Dzongkha): a word ends after each tsheg (U+0F0B); a shad is a word.
  datatrove uses botok, which downloads a dialect pack at run time; syllables are what botok's
  words are made of;
- orthographic syllables by rule (Khmer: km; Burmese: my; ``syllables``): khmer-nltk's and
  pyidaungsu's CRF word models cannot be used here (a scikit-learn pickle; fastText at import
  and no licence), and a syllable is what their words are made of.

A segmenter gets the whole text and gives the spans of its words in order (from the segmenter's
own offsets, or by finding its words one after the other); ``word_starts`` keeps where each
word starts. Each segmenter loads on its first use (jieba about 0.7 s, Kiwi
about 1 s).

The languages whose spaCy tokenizer changes the affix rules (``affixes``: French, German, ...) are
split the same way, by spaCy's algorithm with their rules (``segmenter_of`` names it
``affixes:<spaCy language>``), and those datatrove splits with Indic NLP's trivial tokenizer by its
rules (``indic``: Hindi, Bengali, Tamil, Urdu, Pashto, ...; ``indic:<language>``); their token
starts are marked ``TOKEN_BREAK``, not ``WORD_BREAK``: whitespace, not the tokens, still separates
their words where C4 counts words on a line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from lakemix.udf.quality.affixes import affix_languages, spacy_rules, tokenizer
from lakemix.udf.quality.indic import spans as indic_spans

# lid.176 label -> segmenter. Bump DEFINITION in ``lakemix.udf.quality`` when this changes.
SEGMENTERS: dict[str, str] = {
    "zh": "jieba",
    "wuu": "jieba",
    "yue": "jieba",
    "ja": "sudachi",
    "ko": "kiwi",
    "th": "thai",
    "lo": "lao",
    "bo": "tsheg",
    "dz": "tsheg",
    "km": "khmer",
    "my": "burmese",
}
# Tibetan: a syllable ends with a tsheg (U+0F0B, U+0F0C); a shad (U+0F0D-U+0F12) is a word of its
# own, as botok makes punctuation one, so that it ends a sentence (C4) as a period does.
_TIBETAN_SYLLABLE = re.compile("[^\u0f0b-\u0f12\\s]+[\u0f0b\u0f0c]*|[\u0f0b-\u0f12]+")


Spans = Callable[[str], Iterable[tuple[int, int]]]

WORD_BREAK = 1  # in ``break_flags``: a segmenter's word starts here
TOKEN_BREAK = 2  # a token starts here (spaCy's affix rules, Indic NLP); whitespace splits words
DROPPED = 3  # a space inside a token that its tokenizer removed (Indic NLP's joined numbers)
_AFFIXES = "affixes:"
_INDIC = "indic:"


def _in_order(words: Iterable[str], text: str) -> Iterator[tuple[int, int]]:
    """Spans of ``words`` found one after the other in ``text`` with only whitespace between:
    a word the segmenter changed (which should not happen) is skipped, never misplaced."""
    position = 0
    for word in words:
        found = text.find(word, position) if word else -1
        if found < 0 or (found > position and not text[position:found].isspace()):
            continue
        yield found, found + len(word)
        position = found + len(word)


def _jieba() -> Spans:
    from lakemix.udf.quality.chinese import model, word_spans

    model()  # load jieba's dictionary now, not inside the first text
    return word_spans


def _sudachi() -> Spans:
    import threading

    from sudachipy import Dictionary, SplitMode

    dictionary = Dictionary()
    # A SudachiPy tokenizer refuses concurrent use ("Tokenizer is already in use"), and DuckDB
    # calls the UDF from several threads at once: one tokenizer per thread, one dictionary.
    local = threading.local()

    def spans(text: str) -> Iterator[tuple[int, int]]:
        tokenizer = getattr(local, "tokenizer", None)
        if tokenizer is None:
            tokenizer = local.tokenizer = dictionary.tokenizer(mode=SplitMode.A)
        # SudachiPy refuses inputs over 49,149 bytes: segment longer texts piece by piece.
        for base, piece in _pieces(text, 12_000):
            for m in tokenizer.tokenize(piece):
                yield base + m.begin(), base + m.end()

    return spans


def _kiwi() -> Spans:
    from kiwipiepy import Kiwi

    # Without its multi-word dictionary: with it Kiwi makes one token of a name written as two
    # words (힐러리 스웽크), and a word count counts what whitespace separates (loading 1.3 s less).
    kiwi = Kiwi(load_multi_dict=False)
    return lambda text: ((t.start, t.end) for t in kiwi.tokenize(text))


def _thai() -> Spans:
    from pythainlp.tokenize import word_tokenize

    return lambda text: _in_order(
        word_tokenize(text, engine="newmm-safe", keep_whitespace=False), text
    )


def _lao() -> Spans:
    from laonlp.tokenize import word_tokenize

    return lambda text: _in_order(word_tokenize(text), text)


def _tsheg() -> Spans:
    return lambda text: ((m.start(), m.end()) for m in _TIBETAN_SYLLABLE.finditer(text))


def _khmer() -> Spans:
    from lakemix.udf.quality.syllables import khmer_syllables

    return khmer_syllables


def _burmese() -> Spans:
    from lakemix.udf.quality.syllables import burmese_syllables

    return burmese_syllables


_LOADERS: dict[str, Callable[[], Spans]] = {
    "jieba": _jieba,
    "sudachi": _sudachi,
    "kiwi": _kiwi,
    "thai": _thai,
    "lao": _lao,
    "tsheg": _tsheg,
    "khmer": _khmer,
    "burmese": _burmese,
}


def _pieces(text: str, size: int) -> Iterator[tuple[int, str]]:
    """``text`` in pieces of at most ``size`` characters (cut after a newline where possible),
    with the offset of each."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            newline = text.rfind("\n", start, end)
            end = newline + 1 if newline > start else end
        yield start, text[start:end]
        start = end


def segmenter_of(language: str | None) -> str | None:
    """The name of the segmenter that splits text of ``language`` (lid.176 label), or None."""
    label = language or ""
    if label in SEGMENTERS:
        return SEGMENTERS[label]
    if label in affix_languages():
        return _AFFIXES + affix_languages()[label]
    indic = spacy_rules()["indic"]
    return _INDIC + indic[label] if label in indic else None


@functools.cache
def segmenter(name: str) -> Spans:
    """The segmenter called ``name`` (a value of ``SEGMENTERS``), loaded once per process; the
    ``affixes:`` and ``indic:`` names of ``segmenter_of`` are split in ``break_flags`` itself.

    Raises:
        ValueError: If no segmenter has that name.
    """
    if name not in _LOADERS:
        raise ValueError(f"no word segmenter {name!r}; known: {', '.join(sorted(_LOADERS))}")
    return _LOADERS[name]()


def word_starts(text: str, name: str) -> np.ndarray:
    """Code-point offsets in ``text`` where the segmenter ``name`` starts a word (int64).

    Whitespace is not a word.
    """
    if name.startswith(_AFFIXES):
        return np.array(tokenizer(name.removeprefix(_AFFIXES)).starts(text), dtype=np.int64)
    starts = [start for start, end in segmenter(name)(text) if not text[start:end].isspace()]
    return np.array(starts, dtype=np.int64)


def break_flags(texts: list[str | None], languages: list[str | None]) -> tuple[Any, Any]:
    """Word starts of the texts whose language has a segmenter, for the signals kernel.

    Returns:
        ``(breaks, offsets)``: ``breaks`` is uint8, one entry per code point of each segmented
        text (``WORD_BREAK`` where a word starts, ``TOKEN_BREAK`` where a token of a language
        with affix rules of its own or Indic NLP's starts, ``DROPPED`` on a space inside a
        token that is not part of it), the texts one after the other; text i's entries are
        ``breaks[offsets[i]:offsets[i + 1]]``, none for a text that is not segmented.
    """
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    parts: list[np.ndarray] = []
    total = 0
    for i, (text, language) in enumerate(zip(texts, languages, strict=True)):
        name = segmenter_of(language)
        if name is not None and text:
            flags = np.zeros(len(text), dtype=np.uint8)
            if name.startswith(_INDIC):  # "12 / 5" is the token "12/5"
                for start, end in indic_spans(text, name.removeprefix(_INDIC)):
                    flags[start] = TOKEN_BREAK
                    if text.find(" ", start, end) < 0 and text.find("\t", start, end) < 0:
                        continue  # the common case: no character of the token to look at
                    for k in range(start + 1, end):
                        if text[k] == " " or text[k] == "\t":
                            flags[k] = DROPPED
            else:
                kind = TOKEN_BREAK if name.startswith(_AFFIXES) else WORD_BREAK
                flags[word_starts(text, name)] = kind
            parts.append(flags)
            total += len(text)
        offsets[i + 1] = total
    breaks = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)
    return breaks, offsets
