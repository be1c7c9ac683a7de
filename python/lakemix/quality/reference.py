"""Reference text for calibration: clean documents of one language, read from files.

Formats, told by the file name: ``.txt`` (documents separated by a blank line), ``.jsonl`` and
``.jsonl.gz`` (one JSON object a line, the document in its field ``text``). A folder is walked
in sorted order; files of other kinds are listed as not read. With ``sentences=True`` every
file is read as one sentence a line (Leipzig's ``sentences.txt``) and the sentences are packed
into documents by :func:`pack_sentences`; ``lines`` then keeps all lines, or only the even- or
odd-numbered ones (counted from 0 in each file), so that one file can give a calibration set
and a held-out set that share no line. ``packings`` packs the same sentences that many times,
each time in another order: a thousand sentences make only about fifty documents, too few for a
percentile of 1 to mean anything, while documents drawn from the same sentences in other
combinations show how far a document-level signal spreads (the same sentences' own values do
not change).
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lakemix.errors import LakemixError

LineSelection = Literal["all", "even", "odd"]
LINE_SELECTIONS: tuple[LineSelection, ...] = ("all", "even", "odd")
DOCUMENT_CHARS = (500, 2000)
PARAGRAPH_SENTENCES = (1, 4)
# Written without spaces between sentences: joining them with a space would hand the word
# splitter boundaries that real text in these languages does not have.
UNSPACED_LANGUAGES = frozenset({"ja", "wuu", "yue", "zh"})
_SUFFIXES = (".txt", ".jsonl", ".jsonl.gz")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


class ReferenceError(LakemixError, ValueError):
    """A reference that cannot be read: a missing path, no documents, a bad record."""


@dataclass(frozen=True)
class Reference:
    """Documents read from a reference path.

    Attributes:
        documents: The texts, in file order (packed documents with ``sentences``).
        files: The files read.
        not_read: Files under a folder that are none of the formats.
    """

    documents: list[str]
    files: list[Path]
    not_read: list[Path]


def select_lines(lines: Sequence[str], which: LineSelection) -> list[str]:
    """``lines`` whose number (from 0) is even or odd, or all of them.

    Raises:
        ValueError: If ``which`` is not one of ``LINE_SELECTIONS``.
    """
    if which not in LINE_SELECTIONS:
        raise ValueError(f"lines must be one of {', '.join(LINE_SELECTIONS)}, got {which!r}")
    if which == "all":
        return list(lines)
    return list(lines[0 if which == "even" else 1 :: 2])


def sentence_joiner(language: str) -> str:
    """What separates sentences in a paragraph of ``language``: nothing or a space."""
    return "" if language in UNSPACED_LANGUAGES else " "


def pack_sentences(sentences: Iterable[str], *, key: str, joiner: str = " ") -> list[str]:
    """Documents of 500-2,000 characters from sentences, the same for the same input and key.

    Blank and repeated sentences are dropped and the rest shuffled with
    ``random.Random(key)`` (a file sorted alphabetically would otherwise give neighbours that
    share their first words, and repetition signals would fire on the sorting). Each document
    draws a target length in [500, 2000] (``random.Random(f"{key}:pack")``) and takes sentences
    until it reaches it, never going past 2,000 characters; a sentence longer than 1,500 is
    skipped and a remainder under 500 dropped. Sentences form paragraphs of 1-4 (drawn per
    paragraph) joined by ``joiner``, one paragraph a line, as trafilatura extracts prose.

    Args:
        sentences: One sentence each; surrounding whitespace is stripped.
        key: Seed of the shuffle and of the draws.
        joiner: Between sentences of a paragraph (see :func:`sentence_joiner`).

    Returns:
        The documents, in packing order.
    """
    distinct = list(dict.fromkeys(s.strip() for s in sentences if s.strip()))
    random.Random(key).shuffle(distinct)
    rng = random.Random(f"{key}:pack")
    low, high = DOCUMENT_CHARS
    docs: list[str] = []
    paragraphs: list[list[str]] = []
    size, target, room = 0, rng.randint(low, high), 0
    for sentence in distinct:
        if len(sentence) > high - low:  # cannot fit a document that is under 500 characters
            continue
        new_paragraph = room == 0
        extra = len(sentence) + (0 if not paragraphs else 1 if new_paragraph else len(joiner))
        if size + extra > high:  # size >= 500 here, since the sentence is <= 1,500 characters
            docs.append("\n".join(joiner.join(p) for p in paragraphs))
            paragraphs, size, target, new_paragraph = [], 0, rng.randint(low, high), True
            extra = len(sentence)
        if new_paragraph:
            paragraphs.append([])
            room = rng.randint(*PARAGRAPH_SENTENCES)
        paragraphs[-1].append(sentence)
        room -= 1
        size += extra
        if size >= target:
            docs.append("\n".join(joiner.join(p) for p in paragraphs))
            paragraphs, size, target, room = [], 0, rng.randint(low, high), 0
    if size >= low:
        docs.append("\n".join(joiner.join(p) for p in paragraphs))
    return docs


def _is_reference_file(path: Path, sentences: bool) -> bool:
    return path.name.endswith(".txt" if sentences else _SUFFIXES)


def _text_documents(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    for block in _BLANK_LINE.split(text):
        if block.strip():
            yield block.strip()


def _jsonl_documents(path: Path) -> Iterator[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReferenceError(f"{path}:{number}: not JSON ({exc.msg})") from None
            text = record.get("text") if isinstance(record, dict) else None
            if not isinstance(text, str):
                raise ReferenceError(
                    f"{path}:{number}: no string field 'text' (a reference JSON line is "
                    '{"text": "..."}; other fields are ignored)'
                )
            if text.strip():
                yield text


def _documents(path: Path) -> list[str]:
    reader = _text_documents if path.name.endswith(".txt") else _jsonl_documents
    return list(reader(path))


def _lines(path: Path) -> list[str]:
    if path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz"):
        raise ReferenceError(
            f"{path}: sentences are read from text files (one sentence a line); "
            "leave out --sentences to read JSON Lines documents"
        )
    return path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")


def _checked(read: Callable[[Path], list[str]], path: Path) -> list[str]:
    """``read(path)``, with an undecodable or truncated file as a ReferenceError naming it."""
    try:
        return read(path)
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile) as exc:
        raise ReferenceError(f"cannot read reference file {path}: {exc}") from None


def read_reference(
    path: Path,
    *,
    sentences: bool = False,
    lines: LineSelection = "all",
    language: str = "",
    packings: int = 1,
) -> Reference:
    """The documents of a reference file or folder (see the module docstring).

    Args:
        path: A file, or a folder walked for ``.txt``, ``.jsonl`` and ``.jsonl.gz`` files.
        sentences: Read one sentence a line and pack the sentences into documents.
        lines: With ``sentences``, which lines of each file to use.
        language: With ``sentences``, the language (the packing's key and joiner).
        packings: With ``sentences``, how many times to pack the sentences (the first packing
            is keyed by ``language``, the k-th by ``f"{language}:{k}"``).

    Returns:
        The documents and the files read.

    Raises:
        ReferenceError: If ``path`` does not exist, holds no file of a known kind, a record is
            bad, ``lines`` or ``packings`` is given without ``sentences``, ``packings`` is
            under 1, or no document results.
    """
    if not path.exists():
        raise ReferenceError(f"reference {path} does not exist")
    if lines != "all" and not sentences:
        raise ReferenceError(f"lines={lines!r} selects sentences: it needs --sentences")
    if packings < 1:
        raise ReferenceError(f"packings must be at least 1, got {packings!r}")
    if packings > 1 and not sentences:
        raise ReferenceError(f"packings={packings!r} packs sentences: it needs --sentences")
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file())
        files = [p for p in found if _is_reference_file(p, sentences)]
        not_read = [p for p in found if not _is_reference_file(p, sentences)]
    else:
        files, not_read = [path], []
    if not files or (not sentences and not _is_reference_file(files[0], sentences)):
        raise ReferenceError(
            f"no reference file in {path}: give .txt (documents separated by a blank line), "
            ".jsonl or .jsonl.gz (field text), or --sentences for one sentence a line (.txt)"
        )
    if sentences:
        selected = [s for f in files for s in select_lines(_checked(_lines, f), lines)]
        joiner = sentence_joiner(language)
        keys = [language] + [f"{language}:{k}" for k in range(1, packings)]
        documents = [d for key in keys for d in pack_sentences(selected, key=key, joiner=joiner)]
        times = f" {packings} times" if packings > 1 else ""
        unit = f"{len(selected):,} lines ({lines}) packed{times} into 500-2,000 characters"
    else:
        documents = [d for f in files for d in _checked(_documents, f)]
        unit = "documents"
    if not documents:
        raise ReferenceError(f"reference {path} gives no documents (read: {unit})")
    return Reference(documents=documents, files=files, not_read=not_read)
