"""Write spaCy's per-language tokenizer exceptions, which the word splitting uses, as package data.

Usage (a Python with spaCy 3.8 and datatrove 0.10, e.g. the one ``bench/multilingual.py`` sets
up; lakemix itself does not depend on either):

    bench/out/venv-datatrove/bin/python scripts/make_word_exceptions.py

For each lid.176 label in ``seeds/language_configs.csv`` with a FineWeb-2 config, datatrove's
``load_word_tokenizer(config)`` names the word tokenizer FineWeb-2 splits it with; where that is
``SpaCyTokenizer(lang)`` with a spaCy language other than English (whose exceptions
``lakemix.udf.quality.exceptions`` builds) and the multi-language ``xx``, this writes the
language's ``tokenizer_exceptions`` that are not among every language's (``BASE_EXCEPTIONS``) and
the base ones it does not take (``without``),
each as its tokens' lengths, and whether the language's infixes split a hyphen after a digit as
English's do. Output: ``python/lakemix/udf/quality/word_exceptions.json``, sorted, byte for byte
the same on every run. spaCy's exception lists are MIT-licensed (spaCy 3.8, Explosion AI).

Where a language changes spaCy's prefix, suffix or infix rules or adds a ``token_match`` (French
and Italian elisions, German and Scandinavian hyphens and ordinals, ...), the file also holds the
language's compiled rules as spaCy builds them (``compile_prefix_regex`` etc.) under ``affixes``
(spaCy's long character classes written once, under ``classes``, and named ``⟨NAME⟩`` in the
rules): ``lakemix.udf.quality.affixes`` splits those languages with spaCy's own algorithm and
regular expressions. Two things are written so that loading them is cheap, each checked here:
``whole``, the exceptions spaCy's special-case matcher has no pattern for (spaCy runs every rule
over every exception to find them: a second for Indonesian's 16,000), and a ``token_match`` of
anchored alternatives grouped by their leading and trailing character classes (French's 266
alternatives each held spaCy's long letter classes: 1.4 MB of expression, 2 s to compile), checked
to match what spaCy's matches on the language's Leipzig and OSCAR words. ``url_match`` is
spaCy's ``URL_MATCH``, the same for every language. A language with the base rules but an
exception holding whitespace (Macedonian's ``на пр.``) gets the base rules under ``affixes``: the
numba kernels join no exception across whitespace.
``indic`` names the labels datatrove splits with Indic NLP's trivial tokenizer
(``lakemix.udf.quality.indic``).
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import sys
from pathlib import Path

import spacy
import spacy.lang.char_classes as char_classes
from datatrove.utils.word_tokenizers import load_word_tokenizer
from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.lang.punctuation import TOKENIZER_INFIXES, TOKENIZER_PREFIXES, TOKENIZER_SUFFIXES
from spacy.lang.tokenizer_exceptions import BASE_EXCEPTIONS, URL_MATCH
from spacy.symbols import ORTH
from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python/lakemix/udf/quality/word_exceptions.json"
LEIPZIG = ROOT.parent / "shared/corpora/langid/lingua_leipzig"  # words to check the rules on
OSCAR = ROOT.parent / "shared/corpora/web/oscar2019"
ENGLISH_HYPHEN = rf"(?<=[{ALPHA}0-9])(?:{HYPHENS})(?=[{ALPHA}])"
# spaCy's long character classes, written once in the file and named in the rules (⟨NAME⟩),
# longest first so that a class inside another is not named first
CLASSES = dict(
    sorted(
        (
            (name, value)
            for name, value in vars(char_classes).items()
            if name.isupper() and isinstance(value, str) and len(value) > 200
        ),
        key=lambda item: (-len(item[1]), item[0]),
    )
)


def named(pattern: str) -> str:
    """``pattern`` with spaCy's long character classes written as ⟨NAME⟩."""
    if "⟨" in pattern or "⟩" in pattern:
        raise SystemExit(f"a rule holds ⟨ or ⟩, the class markers: {pattern[:80]!r}")
    for name, value in CLASSES.items():
        pattern = pattern.replace(value, f"⟨{name}⟩")
    return pattern


def word_tokenizer(config: str) -> tuple[str, str] | None:
    """The kind of word tokenizer datatrove splits ``config`` with and its language, or None."""
    try:
        tokenizer = load_word_tokenizer(config)
    except Exception:  # stanza and botok cannot load offline: neither spaCy nor Indic NLP
        return None
    return type(tokenizer).__name__, str(getattr(tokenizer, "language", ""))


def rules(language: str) -> dict[str, object]:
    """The language's exceptions beyond the base ones, and its hyphen-after-digit infix."""
    defaults = spacy.util.get_lang_class(language).Defaults
    exceptions = {}
    for orth, tokens in sorted((defaults.tokenizer_exceptions or {}).items()):
        if orth in BASE_EXCEPTIONS and BASE_EXCEPTIONS[orth] == tokens:
            continue
        parts = [token[ORTH] for token in tokens]
        if "".join(parts) != orth:
            raise SystemExit(f"{language}: exception {orth!r} does not spell its tokens {parts}")
        exceptions[orth] = [len(part) for part in parts]
    infixes = defaults.infixes or []
    entry: dict[str, object] = {
        "hyphen_after_digit": ENGLISH_HYPHEN in infixes,
        "exceptions": exceptions,
    }
    own = defaults.tokenizer_exceptions or {}
    missing = sorted(orth for orth in BASE_EXCEPTIONS if orth not in own)
    if missing:  # a language that does not take every base exception (Lithuanian: "m.")
        entry["without"] = missing
    rules = affixes(language)
    if rules is not None:
        entry["affixes"] = rules
        entry["whole"] = whole_exceptions(language)
    return entry


def whole_exceptions(language: str) -> list[str]:
    """The language's special cases that its affix rules leave whole: those spaCy's
    special-case matcher does not know (``Tokenizer.add_special_case``), so that the splitting
    does not run every rule over every exception when it loads."""
    tokenizer = spacy.blank(language).tokenizer
    return sorted(
        orth
        for orth in tokenizer.rules
        if not (
            tokenizer.find_prefix(orth)
            or tokenizer.find_infix(orth)
            or tokenizer.find_suffix(orth)
            or " " in orth
        )
    )


_BRACKETS = r"(?:\[[^\]]*⟨[A-Z_]+⟩[^\]]*\][+*?]?)+"  # bracket expressions naming a class
_ALTERNATIVE = re.compile(rf"\(\?:\^({_BRACKETS})?(.*?)({_BRACKETS})?\$\)")


def factored(token_match: str) -> str:
    """A ``token_match`` of anchored alternatives (``(?:^...$)|(?:^...$)``, French's 266) as one
    alternative per pair of leading and trailing class expressions, the parts between them
    grouped: the same matches, but each long class is compiled a few times instead of once per
    alternative (2 s of French's start-up). Anything else is returned as it is."""
    flags = re.match(r"\(\?[a-z]+\)", token_match)
    head = flags.group(0) if flags else ""
    body = token_match[len(head) :]
    alternatives = re.split(r"\|(?=\(\?:\^)", body)
    groups: dict[tuple[str, str], list[str]] = {}
    for alternative in alternatives:
        m = _ALTERNATIVE.fullmatch(alternative)
        if m is None or _top_level_bar(m.group(2) or ""):
            return token_match
        lead, middle, trail = m.group(1) or "", m.group(2) or "", m.group(3) or ""
        try:  # a part that is a regular expression of its own can be grouped with others
            re.compile(middle.replace("⟨", "").replace("⟩", ""))
        except re.error:
            return token_match
        groups.setdefault((lead, trail), []).append(middle)
    return head + "|".join(
        f"(?:^{lead}(?:{'|'.join(middles)}){trail}$)" for (lead, trail), middles in groups.items()
    )


def _top_level_bar(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and bracket expression."""
    depth, bracket, escaped = 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif bracket:
            bracket = char != "]"
        elif char == "[":
            bracket = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
    return False


def check_factored(label: str, language: str, original: str, rewritten: str, leipzig: Path) -> None:
    """Stop unless ``rewritten`` (``factored``) matches what spaCy's ``original`` token_match
    matches, on every whitespace piece of the label's Leipzig text and the language's
    exceptions, and of the first 4 MB of its OSCAR 2019 text, each also in upper and title
    case."""
    expand = re.compile("⟨([A-Z_]+)⟩")

    def compiled(pattern: str) -> re.Pattern[str]:
        return re.compile(expand.sub(lambda m: CLASSES[m.group(1)], pattern))

    before, after = compiled(original).match, compiled(rewritten).match
    pieces = set(spacy.blank(language).tokenizer.rules)
    folder = leipzig / label
    for path in folder.glob("*.txt") if folder.is_dir() else ():
        pieces.update(path.read_text(encoding="utf-8").split())
    web = OSCAR / f"unshuffled_deduplicated_{label}.txt.gz"
    if web.is_file():  # and web text, where hyphenated words abound
        with gzip.open(web, "rt", encoding="utf-8") as f:
            pieces.update(f.read(4_000_000).split())
    pieces.update([p.upper() for p in pieces] + [p.title() for p in pieces])
    matched = 0
    for piece in sorted(pieces):
        matched += bool(before(piece))
        if bool(before(piece)) != bool(after(piece)):
            raise SystemExit(f"{language}: the factored token_match differs on {piece!r}")
    print(f"{language}: factored token_match checked on {len(pieces)} pieces ({matched} match)")


def affixes(language: str) -> dict[str, str | None] | None:
    """The language's compiled affix rules and token_match, or None where they are the base
    rules (English's only change, a hyphen after a digit, is ``hyphen_after_digit``) and no
    exception of its own holds whitespace."""
    defaults = spacy.util.get_lang_class(language).Defaults
    prefixes = list(defaults.prefixes or [])
    suffixes = list(defaults.suffixes or [])
    infixes = [rule for rule in defaults.infixes or [] if rule != ENGLISH_HYPHEN]
    base_infixes = [rule for rule in TOKENIZER_INFIXES if rule != ENGLISH_HYPHEN]
    token_match = defaults.token_match
    url_match = defaults.url_match
    if url_match is not None and url_match.__self__.pattern != URL_MATCH.__self__.pattern:  # type: ignore[attr-defined]
        raise SystemExit(f"{language}: a url_match of its own, which the splitting does not know")
    same = (
        prefixes == list(TOKENIZER_PREFIXES)
        and suffixes == list(TOKENIZER_SUFFIXES)
        and infixes == base_infixes
        and token_match is None
    )
    exceptions = defaults.tokenizer_exceptions or {}
    spaced = any(orth.split() != [orth] for orth in exceptions if orth not in BASE_EXCEPTIONS)
    if same and not spaced:  # the kernels join no exception across whitespace (Macedonian's
        return None  # "на пр."): a language with one is split by spaCy's algorithm too
    return {
        "prefix": named(compile_prefix_regex(prefixes).pattern),
        "suffix": named(compile_suffix_regex(suffixes).pattern),
        "infix": named(compile_infix_regex(defaults.infixes or []).pattern),
        "token_match": factored(named(token_match.__self__.pattern))  # type: ignore[attr-defined]
        if token_match is not None
        else None,
    }


def check_letters_whole(label: str, language: str, leipzig: Path) -> None:
    """Stop if a word of letters alone (no exception) is split by ``language``'s rules in the
    label's Leipzig text: the splitting keeps such words whole without running the rules."""
    folder = leipzig / label
    if not folder.is_dir():
        return
    tokenizer = spacy.blank(language).tokenizer
    exceptions = spacy.util.get_lang_class(language).Defaults.tokenizer_exceptions or {}
    words = set()
    for path in folder.glob("*.txt"):
        words.update(w for w in path.read_text(encoding="utf-8").split() if w.isalpha())
    for word in sorted(words - set(exceptions)):
        if len(tokenizer(word)) != 1:
            raise SystemExit(f"{language}: {word!r} (letters alone) is split by the affix rules")


def main() -> None:
    with (ROOT / "seeds/language_configs.csv").open(encoding="utf-8") as f:
        labels = {row["language"]: row["fineweb2_config"] for row in csv.DictReader(f)}
    languages: dict[str, str] = {}  # lid.176 label -> spaCy language
    indic: dict[str, str] = {}  # lid.176 label -> Indic NLP language
    spacy_rules: dict[str, dict[str, object]] = {}
    for label, config in sorted(labels.items()):
        kind, language = (word_tokenizer(config) if config else None) or ("", "")
        if kind == "IndicNLPTokenizer":
            indic[label] = language
        if kind != "SpaCyTokenizer" or language in ("en", "xx"):
            continue
        entry = spacy_rules.get(language) or rules(language)
        keys = ("exceptions", "hyphen_after_digit", "affixes", "without")
        if any(entry.get(key) for key in keys):
            languages[label] = language
            spacy_rules[language] = entry
            if "affixes" in entry:
                check_letters_whole(label, language, LEIPZIG)
                token_match = spacy.util.get_lang_class(language).Defaults.token_match
                rewritten = entry["affixes"]["token_match"]  # type: ignore[index]
                if token_match is not None:
                    original = named(token_match.__self__.pattern)  # type: ignore[attr-defined]
                    check_factored(label, language, original, rewritten, LEIPZIG)
    text = json.dumps(
        {
            "source": f"spaCy {spacy.__version__} tokenizer exceptions (MIT), "
            "written by scripts/make_word_exceptions.py",
            "languages": languages,
            "indic": indic,
            "rules": spacy_rules,
            "url_match": URL_MATCH.__self__.pattern,  # type: ignore[attr-defined]
            "classes": CLASSES,
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    OUT.write_text(re.sub(r'(?<=\}),(?=")', ",\n", text) + "\n", encoding="utf-8")
    sizes = {language: len(entry["exceptions"]) for language, entry in spacy_rules.items()}  # type: ignore[arg-type]
    affixed = sorted(language for language, entry in spacy_rules.items() if "affixes" in entry)
    print(
        f"{OUT.relative_to(ROOT)}: {len(languages)} lid.176 labels, {len(spacy_rules)} spaCy "
        f"languages, {sum(sizes.values())} exceptions, affix rules of their own: "
        f"{' '.join(affixed)}; split by Indic NLP's rules: {' '.join(sorted(indic))}"
    )
    print(" ".join(f"{language}:{n}" for language, n in sizes.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
