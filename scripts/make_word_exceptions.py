"""Write spaCy's per-language tokenizer exceptions, which the word splitting uses, as package data.

Usage (a Python with spaCy 3.8 and datatrove 0.10, e.g. the one ``bench/multilingual.py`` sets
up; lakemix itself does not depend on either):

    bench/out/venv-datatrove/bin/python scripts/make_word_exceptions.py

For each lid.176 label in ``seeds/language_configs.csv`` with a FineWeb-2 config, datatrove's
``load_word_tokenizer(config)`` names the word tokenizer FineWeb-2 splits it with; where that is
``SpaCyTokenizer(lang)`` with a spaCy language other than English (whose exceptions
``lakemix.udf.quality.exceptions`` builds) and the multi-language ``xx``, this writes the
language's ``tokenizer_exceptions`` that are not among every language's (``BASE_EXCEPTIONS``),
each as its tokens' lengths, and whether the language's infixes split a hyphen after a digit as
English's do. Output: ``python/lakemix/udf/quality/word_exceptions.json``, sorted, byte for byte
the same on every run. spaCy's exception lists are MIT-licensed (spaCy 3.8, Explosion AI).

What the file does not hold: the prefix, suffix and infix rules some languages change (French and
Italian elisions, German and Scandinavian hyphens and ordinals, ...): the splitting applies the
base rules to them (see docs/cleaning.md).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import spacy
from datatrove.utils.word_tokenizers import load_word_tokenizer
from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.lang.tokenizer_exceptions import BASE_EXCEPTIONS
from spacy.symbols import ORTH

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python/lakemix/udf/quality/word_exceptions.json"
ENGLISH_HYPHEN = rf"(?<=[{ALPHA}0-9])(?:{HYPHENS})(?=[{ALPHA}])"


def spacy_language(config: str) -> str | None:
    """The spaCy language datatrove splits ``config`` with, or None (another tokenizer)."""
    try:
        tokenizer = load_word_tokenizer(config)
    except Exception:  # stanza and botok cannot load offline: not spaCy anyway
        return None
    if type(tokenizer).__name__ != "SpaCyTokenizer":
        return None
    return str(tokenizer.language)


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
    return {"hyphen_after_digit": ENGLISH_HYPHEN in infixes, "exceptions": exceptions}


def main() -> None:
    with (ROOT / "seeds/language_configs.csv").open(encoding="utf-8") as f:
        labels = {row["language"]: row["fineweb2_config"] for row in csv.DictReader(f)}
    languages: dict[str, str] = {}  # lid.176 label -> spaCy language
    spacy_rules: dict[str, dict[str, object]] = {}
    for label, config in sorted(labels.items()):
        language = spacy_language(config) if config else None
        if language is None or language in ("en", "xx"):
            continue
        entry = spacy_rules.get(language) or rules(language)
        if entry["exceptions"] or entry["hyphen_after_digit"]:
            languages[label] = language
            spacy_rules[language] = entry
    text = json.dumps(
        {
            "source": f"spaCy {spacy.__version__} tokenizer exceptions (MIT), "
            "written by scripts/make_word_exceptions.py",
            "languages": languages,
            "rules": spacy_rules,
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    OUT.write_text(re.sub(r'(?<=\}),(?=")', ",\n", text) + "\n", encoding="utf-8")
    sizes = {language: len(entry["exceptions"]) for language, entry in spacy_rules.items()}  # type: ignore[arg-type]
    print(
        f"{OUT.relative_to(ROOT)}: {len(languages)} lid.176 labels, {len(spacy_rules)} spaCy "
        f"languages, {sum(sizes.values())} exceptions"
    )
    print(" ".join(f"{language}:{n}" for language, n in sizes.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
