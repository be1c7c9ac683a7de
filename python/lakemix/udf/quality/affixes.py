"""spaCy's tokenizer for the languages that change its prefix, suffix or infix rules.

The numba kernels (``words``) apply spaCy's base rules; French, Italian, German, the Scandinavian
languages, Romanian, Greek, Hungarian and about twenty more change them (``l'emploi`` is ``l'`` +
``emploi`` in French, ``2.`` an ordinal in German and Danish, Romanian splits clitics). For those
languages this module splits text with spaCy's own algorithm (``Tokenizer._split_affixes``,
``_attach_tokens`` and the special-case matcher, spaCy 3.8) and the language's regular expressions
and exceptions as spaCy compiles them (``word_exceptions.json``, written by
``scripts/make_word_exceptions.py``). Its token starts go to the kernels as a segmenter's word
starts do (``segment.break_flags``), with the value ``TOKEN_BREAK``: the kernels take those tokens
as they are and still split lines into words at whitespace for C4.

A piece of letters alone that is no exception is one token: every prefix, suffix and infix rule of
these languages needs a character other than a letter (a hyphen, apostrophe, period, digit ...;
``scripts/make_word_exceptions.py`` checks it on each language's Leipzig words). Any other piece
is split once per process and remembered (``cache_size`` pieces per language), as spaCy's
tokenizer caches it: the regular expressions run on new pieces only.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any

_EXCEPTIONS_FILE = "word_exceptions.json"  # scripts/make_word_exceptions.py writes it
_PIECE = re.compile(r"\S+")
_CLASS = re.compile("⟨([A-Z_]+)⟩")

Match = Callable[[str], "re.Match[str] | None"]


@functools.cache
def spacy_rules() -> dict[str, Any]:
    """``word_exceptions.json``: lid.176 labels' spaCy languages, their rules, shared classes."""
    text = resources.files(__package__).joinpath(_EXCEPTIONS_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def affix_languages() -> dict[str, str]:
    """lid.176 label -> spaCy language, for the labels whose language has affix rules of its own."""
    data = spacy_rules()
    rules = data["rules"]
    return {
        label: language
        for label, language in data["languages"].items()
        if "affixes" in rules[language]
    }


class AffixTokenizer:
    """spaCy's tokenizer with one language's affix rules and exceptions, giving token spans.

    Args:
        rules: The language's compiled ``prefix``, ``suffix``, ``infix`` and ``token_match``
            expressions (``⟨NAME⟩`` naming a class of ``classes``).
        url_match: spaCy's ``URL_MATCH`` expression.
        classes: spaCy's long character classes by name.
        exceptions: Every exception of the language (the base ones and its own), as the
            lengths of its tokens.
        whole: The exceptions the rules leave whole (spaCy's special-case matcher has no
            pattern for them; ``word_exceptions.json`` lists them): None finds them with the
            rules, which takes up to a second for the languages with many exceptions.
        cache_size: Pieces remembered; the cache starts over when full.
    """

    def __init__(
        self,
        rules: dict[str, str | None],
        url_match: str,
        classes: dict[str, str],
        exceptions: dict[str, tuple[int, ...]],
        whole: frozenset[str] | None = None,
        cache_size: int = 50_000,
    ) -> None:
        def expand(pattern: str) -> str:
            return _CLASS.sub(lambda m: classes[m.group(1)], pattern)

        self._prefix = re.compile(expand(rules["prefix"] or "")).search
        self._suffix = re.compile(expand(rules["suffix"] or "")).search
        self._infixes = re.compile(expand(rules["infix"] or "")).finditer
        token_match = rules.get("token_match")
        self._token_match: Match | None = (
            re.compile(expand(token_match)).match if token_match else None
        )
        self._url_match: Match = re.compile(url_match).match
        self._specials = exceptions
        self._cache: dict[str, tuple[tuple[int, ...], bool]] = {}
        self._cache_size = cache_size
        # spaCy's special-case matcher knows the exceptions its affix rules would split: each with
        # the tokens its text gives without exceptions (the matcher's pattern, ``_pattern``).
        if whole is None:
            whole = frozenset(orth for orth in exceptions if not self._affixes_split(orth))
        # The matcher compares tokens' texts, not the whitespace between them: an exception is
        # found by its text without whitespace (``и др.``: ``и`` ``др`` ``.``), and applied
        # where the run's text with its whitespace is the exception.
        self._affixed: dict[str, tuple[str, ...]] = {}
        for orth in exceptions:
            if orth not in whole:
                key = "".join(orth.split())
                self._affixed[key] = (*self._affixed.get(key, ()), orth)
        self._patterns: dict[str, tuple[int, ...]] = {}
        self._longest = max(map(len, self._affixed), default=0)
        self._firsts = frozenset(key[0] for key in self._affixed if key)  # a run starts with one
        spaced = sorted((o for o in exceptions if o not in whole and o.split() != [o]), key=len)
        self._spaced: Match | None = None
        if spaced:  # a text holding one takes the matcher over all its tokens
            alternatives = "|".join(re.escape(orth) for orth in reversed(spaced))
            self._spaced = re.compile(alternatives).search
        self._lock = threading.Lock()

    def _affixes_split(self, orth: str) -> bool:
        """Whether spaCy's special-case matcher has a pattern for the exception ``orth``."""
        affixed = self._find_prefix(orth) or self._find_suffix(orth) or self._has_infix(orth)
        return bool(affixed) or " " in orth

    def _pattern(self, orth: str) -> tuple[int, ...]:
        """The tokens an affixed exception's text gives without exceptions (the lengths of its
        pieces' tokens, whitespace apart), split once."""
        pattern = self._patterns.get(orth)
        if pattern is None:
            pieces = orth.split()
            lengths = tuple(n for piece in pieces for n in self._split(piece, specials=False))
            pattern = self._patterns[orth] = lengths
        return pattern

    def _find_prefix(self, text: str) -> int:
        m = self._prefix(text)
        return m.end() - m.start() if m is not None else 0

    def _find_suffix(self, text: str) -> int:
        m = self._suffix(text)
        return m.end() - m.start() if m is not None else 0

    def _has_infix(self, text: str) -> bool:
        return next(self._infixes(text), None) is not None

    def _special(self, text: str, specials: bool) -> tuple[int, ...] | None:
        return self._specials.get(text) if specials else None

    def _split(self, piece: str, specials: bool) -> tuple[int, ...]:
        """Token lengths of one whitespace-free piece (spaCy's ``_tokenize``)."""
        special = self._special(piece, specials)
        if special is not None:
            return special
        prefixes: list[int] = []
        suffixes: list[int] = []
        string = piece
        last = 0
        token_match = self._token_match
        while string and len(string) != last:  # spaCy's _split_affixes
            if token_match is not None and token_match(string):
                break
            if specials and string in self._specials:
                break
            last = len(string)
            pre = self._find_prefix(string)
            if pre and string[pre:] and specials and string[pre:] in self._specials:
                prefixes.append(pre)
                string = string[pre:]
                break
            suf = self._find_suffix(string[pre:])
            if suf and string[:-suf] and specials and string[:-suf] in self._specials:
                suffixes.append(suf)
                string = string[:-suf]
                break
            if pre and suf and pre + suf <= len(string):
                prefixes.append(pre)
                suffixes.append(suf)
                string = string[pre:-suf]
            elif pre:
                prefixes.append(pre)
                string = string[pre:]
            elif suf:
                suffixes.append(suf)
                string = string[:-suf]
        tokens = prefixes  # spaCy's _attach_tokens
        if string:
            special = self._special(string, specials)
            if special is not None:
                tokens.extend(special)
            elif (token_match is not None and token_match(string)) or self._url_match(string):
                tokens.append(len(string))
            else:
                start = 0
                for m in self._infixes(string):
                    infix_start, infix_end = m.start(), m.end()
                    if infix_start == 0:
                        continue
                    if infix_start != start:
                        tokens.append(infix_start - start)
                    if infix_start != infix_end:
                        tokens.append(infix_end - infix_start)
                    start = infix_end
                if start < len(string):
                    tokens.append(len(string) - start)
        tokens.extend(reversed(suffixes))
        return tuple(tokens)

    def _piece(self, piece: str) -> tuple[tuple[int, ...], bool]:
        """The piece's token lengths, and whether a run of them spells an affixed exception."""
        cached = self._cache.get(piece)
        if cached is None:
            lengths = self._with_suffix(piece) or self._split(piece, specials=True)
            cached = (lengths, len(lengths) > 1 and self._has_run(piece, lengths))
            if len(self._cache) >= self._cache_size:
                with self._lock:
                    self._cache.clear()
            self._cache[piece] = cached
        return cached

    def _with_suffix(self, piece: str) -> tuple[int, ...] | None:
        """The piece's token lengths when its first step in spaCy's loop only takes off a
        one-character suffix (``Europe,``): then the loop goes on with the rest exactly as it
        would split the rest alone, so its tokens are the rest's (cached, or one word for
        letters alone) and the suffix. None when the first step does anything else."""
        token_match = self._token_match
        if len(piece) < 2 or piece in self._specials:
            return None
        if token_match is not None and token_match(piece):
            return None
        if self._find_prefix(piece) != 0 or self._find_suffix(piece) != 1:
            return None
        rest = piece[:-1]
        if rest.isalpha() and rest not in self._specials:
            return (len(rest), 1)
        return (*self._piece(rest)[0], 1)

    def _has_run(self, piece: str, lengths: tuple[int, ...]) -> bool:
        starts = [0]
        for n in lengths:
            starts.append(starts[-1] + n)
        if not any(piece[start] in self._firsts for start in starts[:-2]):
            return False
        spans = [(starts[k], starts[k + 1]) for k in range(len(lengths))]
        return bool(self._runs(piece, spans))

    def _runs(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Runs [i, j) of 2 or more tokens the special-case matcher finds: their texts joined
        spell an affixed exception (whitespace apart) whose pattern is their lengths. Tokens
        with more than one space between them are not next to each other for the matcher
        (spaCy makes a whitespace token of the rest)."""
        found = []
        for i in range(len(spans) - 1):
            joined = text[spans[i][0] : spans[i][1]]
            for j in range(i + 2, len(spans) + 1):
                gap = spans[j - 1][0] - spans[j - 2][1]
                if gap > 1 or (gap == 1 and text[spans[j - 2][1]] != " "):
                    break
                joined += text[spans[j - 1][0] : spans[j - 1][1]]
                if len(joined) > self._longest:
                    break
                orths = self._affixed.get(joined)
                if orths is None:
                    continue
                lengths = tuple(e - s for s, e in spans[i:j])
                if any(self._pattern(orth) == lengths for orth in orths):
                    found.append((i, j))
        return found

    def starts(self, text: str) -> list[int]:
        """Where the tokens of ``text`` start (code-point offsets), as spaCy's tokenizer of the
        language splits it (whitespace is no token)."""
        starts: list[int] = []
        add = starts.append
        specials = self._specials
        find = text.find
        runs = False
        position = 0
        for piece in text.split():  # spaCy splits at str.isspace too
            position = find(piece, position)
            if piece.isalpha() and piece not in specials:
                add(position)  # no affix rule matches letters alone
            else:
                lengths, run = self._piece(piece)
                runs = runs or run
                start = position
                for n in lengths:
                    add(start)
                    start += n
            position += len(piece)
        if runs or (self._spaced is not None and self._spaced(text)):
            spans = self._apply_special_cases(text, self._spans(text, starts))
            return [start for start, _ in spans]
        return starts

    @staticmethod
    def _spans(text: str, starts: list[int]) -> list[tuple[int, int]]:
        ends = [*starts[1:], len(text)] if starts else []
        spans = []
        for start, end in zip(starts, ends, strict=True):
            while end > start and text[end - 1].isspace():
                end -= 1
            spans.append((start, end))
        return spans

    def _apply_special_cases(
        self, text: str, spans: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """spaCy's _apply_special_cases: runs longest first, then leftmost, kept if their first
        and last tokens are in no run taken before; a kept run whose text (whitespace included)
        is no exception stays as it is (``: )`` is not ``:)``)."""
        found = sorted(self._runs(text, spans), key=lambda r: (r[0] - r[1], r[0]))
        seen: set[int] = set()
        keep: dict[int, int] = {}
        for i, j in found:
            free = i not in seen and j - 1 not in seen
            if free and text[spans[i][0] : spans[j - 1][1]] in self._specials:
                keep[i] = j
            seen.update(range(i, j))
        out: list[tuple[int, int]] = []
        t = 0
        while t < len(spans):
            end = keep.get(t)
            if end is None:
                out.append(spans[t])
                t += 1
                continue
            start = spans[t][0]
            for n in self._specials[text[start : spans[end - 1][1]]]:
                out.append((start, start + n))
                start += n
            t = end
        return out


@functools.cache
def tokenizer(language: str) -> AffixTokenizer:
    """The tokenizer of the spaCy ``language`` (one with affix rules of its own), built once."""
    from lakemix.udf.quality.exceptions import base_exceptions

    data = spacy_rules()
    entry = data["rules"].get(language)
    if entry is None or "affixes" not in entry:
        known = sorted(k for k, v in data["rules"].items() if "affixes" in v)
        raise ValueError(
            f"no affix rules for spaCy language {language!r}; known: {', '.join(known)}"
        )
    return AffixTokenizer(
        entry["affixes"],
        data["url_match"],
        data["classes"],
        language_exceptions(entry, base_exceptions()),
        frozenset(entry["whole"]),
    )


def language_exceptions(
    entry: dict[str, Any], base: dict[str, tuple[int, ...]]
) -> dict[str, tuple[int, ...]]:
    """A spaCy language's exceptions (an entry of ``word_exceptions.json``'s rules): the base
    ones it takes and its own, as the lengths of their tokens."""
    without = set(entry.get("without", ()))
    exceptions = {orth: lengths for orth, lengths in base.items() if orth not in without}
    exceptions.update((orth, tuple(lengths)) for orth, lengths in entry["exceptions"].items())
    return exceptions
