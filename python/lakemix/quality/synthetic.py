"""Labelled documents built from clean sentences of a language: prose in several layouts, and
junk made of the same words (what a crawl's pages hold besides prose).

Both sides share a language's vocabulary, so a model trained on them learns the layout of junk
(repeated lines, menus, keyword lists, phrase spam, hashtags, fragments, boilerplate around a
sentence or two), not which words or scripts are junk. Everything is drawn from
``random.Random(key)``: the same sentences and key give the same documents.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from lakemix.quality.reference import pack_sentences, sentence_joiner

JUNK_KINDS = (
    "repeated_lines",
    "menu",
    "keyword_list",
    "phrase_spam",
    "hashtags",
    "fragments",
    "boilerplate",
    "numbers",
)


def _words(sentences: Sequence[str], language: str) -> list[str]:
    if sentence_joiner(language) == "":
        # unspaced scripts: pieces of 2-4 characters stand in for words
        pieces: list[str] = []
        for sentence in sentences:
            text = sentence.strip("。．！？.!? ")  # noqa: RUF001 -- full-width stops
            pieces.extend(text[k : k + 3] for k in range(0, max(len(text) - 2, 1), 3))
        return [p for p in pieces if p.strip()]
    words = [w.strip(".,;:!?\"'()[]«»“”") for s in sentences for w in s.split()]
    return [w for w in words if w]


def _phrase(rng: random.Random, words: Sequence[str], low: int, high: int, joiner: str) -> str:
    return joiner.join(rng.choice(words) for _ in range(rng.randint(low, high)))


def _title(word: str) -> str:
    return word[:1].upper() + word[1:]


def clean_documents(sentences: Sequence[str], *, key: str, language: str) -> list[str]:
    """Prose of 500-2,000 characters in four layouts (paragraphs; a title and headings; one
    sentence a line; a numbered list), drawn per document."""
    joiner = sentence_joiner(language)
    words = _words(sentences, language) or ["x"]
    rng = random.Random(f"{key}:layout")
    out = []
    for doc in pack_sentences(sentences, key=key, joiner=joiner):
        layout = rng.random()
        lines = doc.split("\n")
        if layout < 0.5:
            out.append(doc)
        elif layout < 0.7:
            title = _title(_phrase(rng, words, 2, 6, " " if joiner else ""))
            body = []
            for k, line in enumerate(lines):
                if k and rng.random() < 0.3:
                    body.append(_title(_phrase(rng, words, 1, 4, " " if joiner else "")))
                body.append(line)
            out.append("\n".join([title, *body]))
        elif layout < 0.85:
            out.append("\n".join(s for line in lines for s in _split_sentences(line, joiner)))
        else:
            out.append("\n".join(f"{k + 1}. {line}" for k, line in enumerate(lines)))
    return out


def _split_sentences(paragraph: str, joiner: str) -> list[str]:
    if not joiner:
        return [paragraph]
    parts, current = [], []
    for word in paragraph.split(" "):
        current.append(word)
        if word.endswith((".", "!", "?")) and len(current) > 3:
            parts.append(" ".join(current))
            current = []
    if current:
        parts.append(" ".join(current))
    return parts


def junk_documents(
    sentences: Sequence[str], *, key: str, language: str, count: int
) -> list[tuple[str, str]]:
    """``count`` junk documents, each ``(kind, text)``, the kinds of ``JUNK_KINDS`` in turn."""
    spaced = sentence_joiner(language) != ""
    space = " " if spaced else ""
    words = _words(sentences, language)
    pool = [s.strip() for s in sentences if s.strip()]
    if not words or not pool:
        return []
    rng = random.Random(f"{key}:junk")

    def phrase(low: int, high: int) -> str:
        return _phrase(rng, words, low, high, space)

    def repeated_lines() -> str:
        lines = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
        return "\n".join(rng.choice(lines) for _ in range(rng.randint(6, 30)))

    def menu() -> str:
        items = [_title(phrase(1, 3)) for _ in range(rng.randint(10, 40))]
        if rng.random() < 0.5:
            items.insert(rng.randrange(len(items)), rng.choice(pool))
        return "\n".join(items)

    def keyword_list() -> str:
        sep = rng.choice([", ", " | ", " - ", " / ", " · ", "; ", "、", " "])
        return "\n".join(
            sep.join(phrase(1, 2) for _ in range(rng.randint(10, 50)))
            for _ in range(rng.randint(1, 4))
        )

    def phrase_spam() -> str:
        spam = phrase(2, 4)
        text = (space if spaced else "").join(spam for _ in range(rng.randint(15, 60)))
        return (rng.choice(pool) + "\n" + text) if rng.random() < 0.5 else text

    def hashtags() -> str:
        tags = " ".join("#" + phrase(1, 2).replace(" ", "") for _ in range(rng.randint(10, 50)))
        return (rng.choice(pool) + "\n" + tags) if rng.random() < 0.5 else tags

    def fragments() -> str:
        return "\n".join(phrase(2, 6) for _ in range(rng.randint(15, 50)))

    def boilerplate() -> str:
        top = [_title(phrase(1, 2)) for _ in range(rng.randint(5, 20))]
        bottom = [_title(phrase(1, 3)) for _ in range(rng.randint(5, 20))]
        footer = f"© {rng.randint(1998, 2024)} {_title(phrase(1, 2))}"
        body = [rng.choice(pool) for _ in range(rng.randint(1, 2))]
        return "\n".join([*top, *body, *bottom, footer])

    def numbers() -> str:
        rows = []
        for _ in range(rng.randint(10, 40)):
            cells = [str(rng.randint(0, 99999)) for _ in range(rng.randint(2, 6))]
            cells.insert(0, _title(phrase(1, 2)))
            rows.append(rng.choice(["\t", " ", " | "]).join(cells))
        return "\n".join(rows)

    makers: dict[str, Callable[[], str]] = {
        "repeated_lines": repeated_lines,
        "menu": menu,
        "keyword_list": keyword_list,
        "phrase_spam": phrase_spam,
        "hashtags": hashtags,
        "fragments": fragments,
        "boilerplate": boilerplate,
        "numbers": numbers,
    }
    return [
        (JUNK_KINDS[k % len(JUNK_KINDS)], makers[JUNK_KINDS[k % len(JUNK_KINDS)]]())
        for k in range(count)
    ]
