"""Quality signals of the cleaning layer (Gopher, C4, FineWeb) as pure functions over Arrow arrays.

``quality_signals`` computes, per document, the values that datatrove's ``GopherQualityFilter``,
``GopherRepetitionFilter``, ``C4QualityFilter`` (as FineWeb ran it) and ``FineWebQualityFilter``
compare with their thresholds; ``seeds/quality_thresholds.csv`` holds the thresholds, by signal
name, per language. ``stop_word_count`` counts the words of the text's language's stop-word list
(the ``stop_words`` seed, passed in by the model).
The work is done by numba kernels over the Arrow UTF-8 buffer (compiled on first use, cached on
disk); lengths are in code points, as Python's ``len``.

Word splitting. datatrove splits words with spaCy's blank English tokenizer (``spacy.blank("en")``)
and drops whitespace tokens. This package re-implements that tokenizer's rules: split on whitespace
(``str.isspace``) and, in the languages written without spaces between words, where their segmenter
starts a word (``segment``: jieba, SudachiPy, Kiwi, PyThaiNLP, LaoNLP, the Tibetan tsheg, Khmer and
Burmese syllables), and a segmented text's pieces are its words as they are (the tokenizers
datatrove uses for those languages apply no affix rules). The languages whose spaCy tokenizer
changes spaCy's prefix, suffix or infix rules (French, German, ...: ``affixes``) are split by
spaCy's algorithm with their own rules and exceptions. In each other piece, repeatedly take off
one prefix (a punctuation, quote, currency or symbol character, a run of dots, ``+`` not before a
digit) and one suffix (the same characters, ``'s``, a run of dots, a unit or currency after a digit,
a period after a digit, a lower-case letter, punctuation or two capitals), stopping at one of
spaCy's exceptions of the text's language (English: ``don't`` -> ``do n't``, ``Mr.``, ``e.g.``,
emoticons, regenerated here from spaCy 3.8's lists; others from ``word_exceptions.json``); keep a
URL or e-mail address whole; otherwise split at infixes (dot runs,
``…``, symbols, ``-`` between letters (and, in English, after a digit: ``30-an`` stays one
word in Esperanto, as spaCy's base rules keep it), ``,`` between letters, ``.`` between a
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

Modules: ``chars`` (character data and flags), ``exceptions`` (spaCy's base and English
exceptions; ``word_exceptions.json`` has the other languages', and the affix rules of those that
change them), ``affixes`` (spaCy's tokenizer for those), ``segment`` (word segmenters),
``words`` (the word splitting), ``signals`` (the signals kernel), ``stop_words``, ``hashing``
and ``jit`` (numba compilation and its cache). Cost: importing is cheap (numba, nothing
compiled); the first call builds character tables (0.2 s) and loads the compiled kernels from
``__pycache__`` (0.2 s), or compiles them (about 15 s) when the cache is missing or stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from lakemix.udf.quality import affixes, chinese, segment, words
from lakemix.udf.quality.segment import SEGMENTERS
from lakemix.udf.quality.signals import SIGNALS, quality_signals
from lakemix.udf.quality.words import split_words

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DEFINITION",
    "SEGMENTERS",
    "SIGNALS",
    "quality_signals",
    "register",
    "release",
    "split_words",
]

# Bumped when the signals of a text change: incremental models refuse rows of another definition.
# 2: words of Chinese, Japanese, Korean, Thai, Lao and Tibetan are segmented; the stop-word count
# is a signal, counted with the stop words the model passes.
# 3: a segmented text's words are its segmenter's words as they are (no affix rules); the
# Tibetan shad ends a line and a sentence, the Khmer khan a sentence; Khmer and Burmese are
# segmented into syllables.
# 4: outside English, a hyphen after a digit is no infix (spaCy's base rules: ``1979-cu``), and
# each language is split with its spaCy language's exceptions (``word_exceptions.json``).
# 5: languages whose spaCy tokenizer changes the affix rules (French elisions, German ordinals,
# ...) are split by spaCy's algorithm with their rules (``affixes``); a language takes only the
# base exceptions its spaCy language takes (Turkish and Persian none), and the base exceptions
# U+2019 variants only where its spaCy language has them (U+2019 twice is two words in Albanian).
# 6: an exception holding a space (Russian "и др.", Spanish "EE. UU.", Macedonian "на пр.") is
# one token where spaCy's special-case matcher makes it one; Macedonian is split by spaCy's
# algorithm with the base affix rules.
DEFINITION = 6


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_quality_signals(text, language, stop_words)`` on ``conn``.

    It takes ``text VARCHAR``, ``language VARCHAR`` (the lid.176 label: it picks the word
    segmenter) and ``stop_words VARCHAR[]`` (the language's stop words, NULL for none) and
    returns a STRUCT with one field per name in ``SIGNALS`` (DOUBLE or BIGINT). A vectorized
    Arrow UDF, deterministic; NULL text gives NULL.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import BIGINT, DOUBLE, VARCHAR

    struct = duckdb.struct_type(
        {name: BIGINT if kind == "int64" else DOUBLE for name, kind in SIGNALS}
    )

    def signals(texts: pa.Array, languages: pa.Array, stop_words: pa.Array) -> pa.StructArray:
        return quality_signals(texts, languages, stop_words)

    conn.create_function(
        "lakemix_quality_signals",
        signals,
        [VARCHAR, VARCHAR, duckdb.list_type(VARCHAR)],
        struct,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )


def release() -> None:
    """Drop what the signals loaded on first use: the word segmenters (Kiwi, SudachiPy, jieba,
    PyThaiNLP's and LaoNLP's dictionaries), the affix tokenizers, the exception tables and
    jieba's arrays, about 400 MB after a batch in every language (the compiled kernels stay).
    The next call loads them again (about 5 s in all). The cleaning model calls it once it is
    done (``lakemix.release_udfs``), so the rest of a build does not carry them."""
    for cached in (segment.segmenter, affixes.tokenizer, words.tables, chinese.model):
        cached.cache_clear()
