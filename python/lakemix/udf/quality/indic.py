"""Indic NLP's trivial tokenizer, which datatrove splits Indic and some Arabic-script text with.

FineWeb-2 measured its thresholds of Hindi, Bengali, Tamil, Urdu, Pashto and twenty more languages
(``word_exceptions.json``'s ``indic``) on the words of ``indicnlp.tokenize.indic_tokenize.
trivial_tokenize`` (Indic NLP Library 0.92, MIT): tabs become spaces, each ASCII punctuation mark
(and the danda, the double danda and a few more of Brahmi scripts; for Urdu, Arabic punctuation
instead) is a token, the text is split at spaces only (a newline stays inside a token, as there),
and a run of digits with ``,.:/`` between them is one token again (``3.5``). ``spans`` gives
where those tokens lie in the text; they reach the kernels as ``segment.TOKEN_BREAK``.
"""

from __future__ import annotations

import re
import string

# As Indic NLP builds them: string.punctuation unescaped in a class (so "\\]" is "]", and the
# backslash is no punctuation there)
_INDIC = re.compile(
    r"([" + string.punctuation + "\u0964\u0965\uaaf1\uaaf0\uabeb\uabec\uabed\uabee\uabef"
    "\u1c7e\u1c7f])"
)
_URDU = re.compile(
    r"([" + string.punctuation + "\u0609\u060a\u060c\u061e\u066a\u066b\u066c\u066d\u06d4])"
)
_NUMBERS = re.compile(r"([0-9]+ [,.:/] )+[0-9]+")
_SPACES = re.compile(r"[ ]+")


def tokens(text: str, language: str) -> list[str]:
    """The words of ``text`` as ``trivial_tokenize(text, language)`` gives them, each stripped,
    empty ones dropped (datatrove's ``IndicNLPTokenizer.word_tokenize``)."""
    pattern = _URDU if language == "ur" else _INDIC
    padded = _SPACES.sub(" ", pattern.sub(r" \1 ", text.replace("\t", " "))).strip(" ")
    if language != "ur":  # numbers and dates are joined again (Indic scripts only)
        padded = _NUMBERS.sub(lambda m: m.group().replace(" ", ""), padded)
    return [token.strip() for token in padded.split(" ") if token.strip()]


def spans(text: str, language: str) -> list[tuple[int, int]]:
    """Where each of ``tokens(text, language)`` lies in ``text`` (code-point offsets).

    A token is found character by character, whitespace of the text skipped: a number joined
    again spans the spaces it had.
    """
    out: list[tuple[int, int]] = []
    position = 0
    for token in tokens(text, language):
        found = text.find(token, position)
        if found >= 0 and (found == position or text[position:found].isspace()):
            position = found + len(token)
            out.append((found, position))
            continue
        while text[position] != token[0]:
            position += 1
        start = position
        for char in token:
            while text[position] != char:
                position += 1
            position += 1
        out.append((start, position))
    return out
