"""bench/corpus: a deterministic benchmark corpus of N documents with known duplicates and junk.

Usage: .venv/bin/python bench/corpus.py --docs 100000 --out bench/out/corpus-100k
       [--seed 0] [--shard-docs 50000]

Real material only. The 1,280 distinct web documents of ``../shared/corpora/web`` (dolma
CC 2019, cc_net English head, OSCAR 2019, OSCAR 22.01, HPLT warc2text) are cut into lines; a line
seen in one distinct document is a *paragraph*, a line seen in three or more is *shared
boilerplate*. The Leipzig sentences of ``langid/lingua_leipzig/<lang>/sentences.txt`` (75
languages) give the bulk of the text, their ``single-words.txt`` the words used for edits.

Base documents. Document ``i`` has its own generator, ``random.Random(f"{seed}:{i}")``, so any
document can be rebuilt from ``(seed, i)`` alone: duplicates rebuild their original instead of
keeping it in memory, and the builder streams shard by shard. A base document picks a language
(weighted towards English; ``und`` for the unlabelled dolma pages, cut into sentences), a source
(``bench_web`` or ``bench_news``) and 8-24 sentences of that language, drawn *without
replacement* and grouped into paragraphs of 1-4 sentences (one paragraph a line). ``bench_web``
documents also get up to two real web paragraphs of their language, as long as these stay
within a quarter of the document's sentence words.

Why distinct base documents are not near-duplicates of each other: two documents of the same
language are independent samples of k of the n sentences of that language (k = 8-24, n ~ 1,000;
17,000 for ``und``), so they share about k * k / n ~ 0.3 sentences, and shared sentences are
hardly ever adjacent in both, so only the shingles inside a shared sentence match; a shared web
paragraph is at most a quarter of the words. MinHash LSH over the 80,000 base and boilerplate
documents of the 100k build found no pair of base documents above Jaccard 0.28, far below the
near-duplicate bands. One caveat: boilerplate documents of the same site share its header and
footer lines, and in Chinese and Japanese (where a sentence is one whitespace word) those lines
can carry two such documents above 0.5 -- as on real sites; strip boilerplate before scoring
dedup on them.

Injected documents, one kind per slot, shuffled in blocks of 100 slots (72 base, 5 exact, 10
near, 10 boilerplate, 3 noise):

* ``exact_duplicate``: the text of an earlier base document, byte for byte (``jaccard`` 1.0).
* ``near_duplicate``: an earlier base document of at least 100 words, edited (word substitutions,
  deletions, insertions and replaced spans of real sentence words) towards a Jaccard target of
  0.9, 0.8, 0.7 or 0.5; the *measured* Jaccard to the original is stored.
* ``boilerplate``: a new base document with the header and/or footer of one of 32 "sites", whose
  lines are real lines shared by several web pages plus a few cookie banners and menus.
* ``noise``: very short texts, lines of symbols, a spam line repeated, lorem ipsum, random tokens.

Shingles and Jaccard (the same definition everywhere, see :func:`word_shingles`): words are
``text.lower().split()`` (Python's ``str.lower``, then ``str.split()`` without argument, i.e.
runs of Unicode whitespace); the shingles are the *set* of tuples of 5 consecutive words (a text
of 1-4 words has the single shingle of all its words, an empty text none); the Jaccard of two
texts is ``|A & B| / |A | B|`` of their shingle sets (1.0 if both are empty). Texts without
spaces (Japanese, Chinese) have few such words, so they are rarely chosen for near-duplicates.

Output in ``--out``: ``part-00000.jsonl.zst``... (``{"id", "text", "url", "language",
"source"}`` per line), ``ground_truth.parquet`` (``id, kind, original_id, jaccard, language,
source``) and ``manifest.json`` (parameters, counts, bytes, SHA-256 of every file; written
last, so a folder without it is an interrupted build). The same ``(docs, seed, shard_docs)``
and the same corpora give byte-identical files.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

SHINGLE_WORDS = 5
KIND_SLOTS = (  # slots per block of 100 documents
    ("base", 72),
    ("exact_duplicate", 5),
    ("near_duplicate", 10),
    ("boilerplate", 10),
    ("noise", 3),
)
NEAR_DUPLICATE_TARGETS = (0.9, 0.8, 0.7, 0.5)
NEAR_DUPLICATE_MIN_WORDS = 100
ORIGINAL_DRAWS = 32
SOURCES = ("bench_web", "bench_news")
NEWS_FRACTION = 0.35
SITES = 32
PARAGRAPH_CHARS = (30, 600)
DOCUMENT_SENTENCES = (8, 24)  # sentences per base document, fewest and most
WEB_WORD_SHARE = 0.25  # web paragraphs: at most this share of the sentence words of a document
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
SENTENCE_CHARS = (20, 400)
WEB_PARAGRAPHS = ((100, 2), (20, 1), (0, 0))  # (least paragraphs of the language, most per doc)
BOILERPLATE_MIN_DOCUMENTS = 3
LANGUAGE_WEIGHTS = {"en": 25.0, "und": 4.0, "de": 4.0, "es": 4.0, "fr": 4.0, "it": 3.0}
LANGUAGE_WEIGHTS |= {"ja": 3.0, "pt": 3.0, "ru": 3.0, "zh": 3.0, "nl": 2.0, "pl": 2.0}
TLDS = ("com", "org", "net")
KIND_NAMES = tuple(name for name, _ in KIND_SLOTS)
BASE = KIND_NAMES.index("base")
JACCARD_BANDS = ((0.85, ">=0.85"), (0.75, "0.75-0.85"), (0.6, "0.6-0.75"), (0.0, "<0.6"))
UNCLEAN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd\ud800-\udfff]")

# HPLT labels (ISO 639-3 plus script) of the languages that also have Leipzig sentences.
ISO639_3_TO_1 = {
    "arb": "ar", "bos": "bs", "bul": "bg", "ces": "cs", "dan": "da", "deu": "de", "eng": "en",
    "fra": "fr", "hin": "hi", "ita": "it", "jpn": "ja", "kat": "ka", "kor": "ko", "lit": "lt",
    "nld": "nl", "nno": "nn", "pes": "fa", "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru",
    "slk": "sk", "som": "so", "spa": "es", "srp": "sr", "swe": "sv", "tha": "th", "tur": "tr",
    "vie": "vi", "zho": "zh", "zul": "zu",
}  # fmt: skip

FIXED_BOILERPLATE = (
    "We use cookies to improve your experience on our website. By continuing to browse, you "
    "agree to our use of cookies.",
    "This website uses cookies to ensure you get the best experience. Accept all cookies "
    "Manage preferences",
    "Home | About us | Products | Blog | Contact",
    "Skip to main content Toggle navigation Search",
    "Subscribe to our newsletter to receive the latest news and offers.",
    "Copyright © All rights reserved. Privacy Policy | Terms of Use | Imprint",
    "Share this: Facebook Twitter Pinterest Email Print",
    "Diese Website verwendet Cookies. Wenn Sie die Website weiter nutzen, stimmen Sie der "
    "Verwendung von Cookies zu.",
    "Utilizamos cookies propias y de terceros para mejorar nuestros servicios. Aceptar Leer más",
    "Ce site utilise des cookies pour vous offrir une meilleure expérience. Accepter Refuser",
)
LOREM_TEXT = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut "
    "labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris "
    "nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse "
    "cillum eu fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui "
    "officia deserunt mollit anim id est laborum"
)
LOREM = tuple(LOREM_TEXT.split())
SYMBOLS = "=-_*#~+|/\\<>^.:;!?@$%&()[]{}»«•©®™"
GARBAGE = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class Material:
    """Real text the documents are built from, per language, in a deterministic order.

    Attributes:
        sentences: Leipzig sentences per language (``und``: sentences of unlabelled web pages).
        paragraphs: web lines seen in exactly one distinct web document, per language.
        words: Leipzig single words per language (``und``: words of the ``und`` paragraphs).
        boilerplate: shared lines (fixed cookie banners and menus, then mined web lines).
        languages: the languages base documents are written in, sorted.
        cum_weights: cumulative sampling weights aligned with ``languages``.
        fingerprint: SHA-256 over the relative path and size of every file read.
    """

    sentences: dict[str, tuple[str, ...]]
    paragraphs: dict[str, tuple[str, ...]]
    words: dict[str, tuple[str, ...]]
    boilerplate: tuple[str, ...]
    languages: tuple[str, ...]
    cum_weights: tuple[float, ...]
    fingerprint: str


@dataclass(frozen=True)
class Document:
    """One generated document and its ground truth."""

    id: str
    text: str
    url: str
    language: str
    source: str
    kind: str
    original_id: str | None = None
    jaccard: float | None = None


@dataclass(frozen=True)
class Shard:
    """One written shard: file name, documents, bytes on disk, JSON bytes and SHA-256."""

    file: str
    docs: int
    bytes: int
    raw_bytes: int
    sha256: str


@dataclass
class Summary:
    """What :func:`build_corpus` wrote, as also recorded in ``manifest.json``."""

    out: Path
    docs: int
    seed: int
    shard_docs: int
    kinds: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    near_duplicate_bands: Counter[str] = field(default_factory=Counter)
    shards: list[Shard] = field(default_factory=list)
    text_bytes: int = 0
    seconds: float = 0.0

    @property
    def bytes_written(self) -> int:
        """Compressed bytes of all shards."""
        return sum(s.bytes for s in self.shards)


# Shingles and Jaccard ----------------------------------------------------------------------------


def word_shingles(text: str, n: int = SHINGLE_WORDS) -> set[tuple[str, ...]]:
    """Word n-gram shingle set of ``text``.

    Args:
        text: Any text.
        n: Words per shingle.

    Returns:
        The set of tuples of ``n`` consecutive words of ``text.lower().split()``; for 1 to
        ``n - 1`` words the single tuple of all of them; for no words the empty set.
    """
    words = text.lower().split()
    if len(words) < n:
        return {tuple(words)} if words else set()
    return set(zip(*(words[k:] for k in range(n)), strict=False))


def jaccard(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    """Jaccard similarity ``|a & b| / |a | b|`` of two shingle sets (1.0 if both are empty)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def text_jaccard(a: str, b: str) -> float:
    """Word-5-gram Jaccard similarity of two texts (see :func:`word_shingles`)."""
    return jaccard(word_shingles(a), word_shingles(b))


# Reading the corpora -----------------------------------------------------------------------------


def default_corpora() -> Path:
    """``$LAKEMIX_CORPORA``, else ``shared/corpora`` beside the project root."""
    default = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
    return Path(os.environ.get("LAKEMIX_CORPORA", default))


def _decompressed(path: Path, raw: BinaryIO) -> Iterable[bytes]:
    """Lines of ``raw``, gunzipped or unzstd-ed according to the suffix of ``path``."""
    if path.suffix == ".gz":
        return gzip.GzipFile(fileobj=raw)
    if path.suffix == ".zst":
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
    return raw


def _jsonl_records(path: Path) -> Iterator[dict[str, object]]:
    """JSON objects of a ``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst`` file, bad UTF-8 replaced."""
    with path.open("rb") as raw:
        for line in _decompressed(path, raw):
            if line.strip():
                yield json.loads(line.decode("utf-8", errors="replace"))


def _oscar2019_documents(path: Path) -> Iterator[str]:
    """Documents of an OSCAR 2019 file: paragraphs one a line, a blank line between documents."""
    lines: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                lines.append(line.rstrip("\n"))
            elif lines:
                yield "\n".join(lines)
                lines = []
    if lines:
        yield "\n".join(lines)


def _hplt_language(label: object) -> str:
    """ISO 639-1 code of an HPLT label such as ``eng_Latn``, else ``und``."""
    if not isinstance(label, str):
        return "und"
    return ISO639_3_TO_1.get(label.split("_")[0], "und")


def _metadata(record: dict[str, object]) -> dict[str, object]:
    value = record.get("metadata")
    return value if isinstance(value, dict) else {}


def web_documents(corpora: Path) -> Iterator[tuple[str, str, Path]]:
    """Every web document as ``(language, text, file)``, files in sorted order."""
    web = corpora / "web"
    for path in sorted((web / "dolma_cc2019").glob("*.jsonl.gz")):
        for record in _jsonl_records(path):
            yield "und", str(record["text"]), path
    for path in sorted((web / "dolma_cc_en_head").glob("*.jsonl")):
        for record in _jsonl_records(path):
            yield str(_metadata(record).get("language") or "und"), str(record["text"]), path
    for path in sorted((web / "oscar2019").glob("*.txt.gz")):
        language = path.name.removesuffix(".txt.gz").split("_", 2)[2]
        for text in _oscar2019_documents(path):
            yield language, text, path
    for path in sorted((web / "oscar2201").glob("*.jsonl")):
        for record in _jsonl_records(path):
            identification = _metadata(record).get("identification")
            label = identification.get("label") if isinstance(identification, dict) else None
            yield str(label or "und"), str(record["content"]), path
    for path in sorted((web / "hplt_warc2text").glob("sample100_*.jsonl.zst")):
        for record in _jsonl_records(path):
            if isinstance(record.get("t"), str):
                yield _hplt_language(record.get("lang")), str(record["t"]), path


def _lines(text: str) -> list[str]:
    """Non-empty stripped lines of ``text``, each once, in order."""
    return list(dict.fromkeys(s for s in (x.strip() for x in text.split("\n")) if s))


def _read_list(path: Path) -> tuple[str, ...]:
    """Non-empty stripped lines of a text file, each once, in file order."""
    return tuple(_lines(path.read_text(encoding="utf-8", errors="replace")))


def _sentences(lines: Iterable[str]) -> tuple[str, ...]:
    """Sentences of ``lines`` (split after ``.!?`` and a space) of a Leipzig-like length."""
    pieces = (p.strip() for line in lines for p in SENTENCE_END.split(line))
    low, high = SENTENCE_CHARS
    return tuple(dict.fromkeys(p for p in pieces if low <= len(p) <= high))


def _fingerprint(corpora: Path, files: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(set(files)):
        digest.update(f"{path.relative_to(corpora)}\t{path.stat().st_size}\n".encode())
    return digest.hexdigest()


def _split_web_lines(
    documents: Iterable[tuple[str, str]],
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Paragraph pools per language and shared boilerplate lines of distinct web documents."""
    seen: set[str] = set()
    by_document: list[tuple[str, list[str]]] = []
    for language, text in documents:
        if text not in seen:
            seen.add(text)
            by_document.append((language, _lines(text)))
    spread = Counter(line for _, lines in by_document for line in lines if not UNCLEAN.search(line))
    low, high = PARAGRAPH_CHARS
    paragraphs: dict[str, list[str]] = {}
    for language, lines in by_document:
        pool = paragraphs.setdefault(language, [])
        pool.extend(x for x in lines if spread[x] == 1 and low <= len(x) <= high)
    shared = sorted(
        (line for line, count in spread.items() if count >= BOILERPLATE_MIN_DOCUMENTS),
        key=lambda line: (-spread[line], line),
    )
    mined = [x for x in shared if 3 <= len(x.split()) <= 40 and 15 <= len(x) <= 300]
    boilerplate = tuple(dict.fromkeys([*FIXED_BOILERPLATE, *mined]))
    return {k: tuple(v) for k, v in sorted(paragraphs.items())}, boilerplate


@lru_cache(maxsize=4)
def load_material(corpora: Path) -> Material:
    """Read and index the real text of ``corpora`` (cached per path).

    Args:
        corpora: The ``shared/corpora`` folder.

    Returns:
        The material every document is built from.

    Raises:
        FileNotFoundError: if the Leipzig sentences or the web documents are missing.
    """
    leipzig = corpora / "langid" / "lingua_leipzig"
    folders = sorted(d for d in leipzig.glob("*") if (d / "sentences.txt").is_file())
    documents = list(web_documents(corpora))
    if not folders or not documents:
        raise FileNotFoundError(
            f"no Leipzig sentences or web documents under {corpora}; "
            "set LAKEMIX_CORPORA to the shared/corpora folder"
        )
    paragraphs, boilerplate = _split_web_lines((lang, text) for lang, text, _ in documents)
    sentences = {d.name: _read_list(d / "sentences.txt") for d in folders}
    words = {d.name: _read_list(d / "single-words.txt") for d in folders}
    sentences["und"] = _sentences(paragraphs.get("und", ()))
    words["und"] = tuple(sorted({w for p in sentences["und"] for w in p.split() if w.isalpha()}))
    languages = tuple(sorted(sentences))
    cumulative, total = [], 0.0
    for language in languages:
        total += LANGUAGE_WEIGHTS.get(language, 1.0)
        cumulative.append(total)
    files = [path for _, _, path in documents]
    files += [d / name for d in folders for name in ("sentences.txt", "single-words.txt")]
    return Material(
        sentences=sentences,
        paragraphs={k: v for k, v in paragraphs.items() if k in sentences and k != "und"},
        words=words,
        boilerplate=boilerplate,
        languages=languages,
        cum_weights=tuple(cumulative),
        fingerprint=_fingerprint(corpora, files),
    )


# The plan: which kind of document goes in which slot --------------------------------------------


def plan_kinds(docs: int, seed: int) -> bytearray:
    """Planned kind of every slot, as indexes into ``KIND_SLOTS`` (one byte per slot).

    Args:
        docs: Number of documents.
        seed: Random seed.

    Returns:
        Blocks of 100 slots with the exact kind counts of ``KIND_SLOTS``, each shuffled.
    """
    rng = random.Random(f"{seed}:plan")
    block = [k for k, (_, count) in enumerate(KIND_SLOTS) for _ in range(count)]
    plan = bytearray()
    while len(plan) < docs:
        rng.shuffle(block)
        plan.extend(block)
    del plan[docs:]
    return plan


# Building documents ------------------------------------------------------------------------------


def _doc_id(seed: int, index: int) -> str:
    return f"bench-{seed}-{index:09d}"


def _url(rng: random.Random, language: str) -> str:
    host = f"site{rng.randrange(100_000):05d}.example.{rng.choice(TLDS)}"
    return f"https://{host}/{language}/{rng.randrange(2005, 2025)}/p{rng.getrandbits(40):010x}"


def _sentence_paragraphs(rng: random.Random, pool: tuple[str, ...]) -> list[str]:
    """Paragraphs of 1-4 sentences, ``DOCUMENT_SENTENCES`` in all, drawn without replacement."""
    drawn = rng.sample(pool, min(rng.randint(*DOCUMENT_SENTENCES), len(pool)))
    paragraphs, start = [], 0
    while start < len(drawn):
        size = rng.randint(1, 4)
        paragraphs.append(" ".join(drawn[start : start + size]))
        start += size
    return paragraphs


def _base_text(rng: random.Random, material: Material, language: str, source: str) -> str:
    """Body of a base document: sentence paragraphs, and for the web some web paragraphs.

    Web paragraphs are added while their words stay within a quarter of the sentence words, so
    a web paragraph shared by two documents never dominates them (nor a space-rich paragraph a
    Chinese or Japanese document, whose sentences are one whitespace word each).
    """
    paragraphs = _sentence_paragraphs(rng, material.sentences[language])
    web = material.paragraphs.get(language, ())
    if source == "bench_web":
        budget = sum(len(p.split()) for p in paragraphs) * WEB_WORD_SHARE
        for line in rng.sample(web, rng.randint(0, _web_paragraphs_allowed(len(web)))):
            words = len(line.split())
            if words <= budget:
                budget -= words
                paragraphs.insert(rng.randint(0, len(paragraphs)), line)
    return "\n".join(paragraphs)


def _web_paragraphs_allowed(pool: int) -> int:
    """At most 2 web paragraphs per document, fewer when the language has few of them.

    A small pool would make documents of the language share paragraphs too often.
    """
    return next(allowed for least, allowed in WEB_PARAGRAPHS if pool >= least)


def make_base(material: Material, seed: int, index: int) -> Document:
    """The base document of slot ``index``, rebuilt identically on every call."""
    rng = random.Random(f"{seed}:{index}")
    language = rng.choices(material.languages, cum_weights=material.cum_weights)[0]
    source = SOURCES[1] if rng.random() < NEWS_FRACTION else SOURCES[0]
    text = _base_text(rng, material, language, source)
    return Document(_doc_id(seed, index), text, _url(rng, language), language, source, "base")


Edit = tuple[str, float, list[str]]


def _edit(tokens: list[str], edit: Edit) -> None:
    """Apply one edit in place; a replacement stops at the end of its line."""
    kind, where, words = edit
    position = min(int(where * len(tokens)), len(tokens) - 1)
    if kind == "delete":
        if tokens[position] != "\n" and len(tokens) > 1:
            del tokens[position]
        return
    end = position
    while kind == "replace" and end < len(tokens) and end - position < len(words):
        if tokens[end] == "\n":
            break
        end += 1
    tokens[position:end] = words


def _tokens(text: str) -> list[str]:
    """Words of ``text`` with ``"\\n"`` between lines."""
    tokens = [t for line in text.split("\n") for t in (*line.split(), "\n")]
    return tokens[:-1]


def _detokenize(tokens: list[str]) -> str:
    """Inverse of :func:`_tokens` up to whitespace: one space between words, no empty lines."""
    lines = " ".join(tokens).split("\n")
    return "\n".join(s for s in (line.strip() for line in lines) if s)


def _edits(rng: random.Random, material: Material, language: str, count: int) -> list[Edit]:
    """A reproducible sequence of ``count`` edits with real words of ``language``."""
    vocab, sentences = material.words[language], material.sentences[language]
    edits: list[Edit] = []
    for _ in range(count):
        roll, where = rng.random(), rng.random()
        if roll < 0.2:
            edits.append(("replace", where, rng.choice(sentences).split()[: rng.randint(3, 10)]))
        elif roll < 0.35:
            edits.append(("delete", where, []))
        elif roll < 0.5:
            edits.append(("insert", where, [rng.choice(vocab)]))
        else:
            edits.append(("replace", where, [rng.choice(vocab)]))
    return edits


def _near_duplicate(
    rng: random.Random, material: Material, original: Document, target: float
) -> tuple[str, float] | None:
    """Edit ``original`` towards Jaccard ``target``: the edited text and its measured Jaccard.

    The edits form one fixed random sequence; the first ``m`` of them are applied and ``m`` is
    corrected from the measured Jaccard (at most five tries, the closest result below 1 wins;
    None if every try left the shingles unchanged).
    """
    base = word_shingles(original.text)
    tokens = _tokens(original.text)
    needed = len(base) * (1 - target) / (1 + target)
    ops = _edits(rng, material, original.language, max(8, int(needed)))
    count = max(1, round(needed / 6))
    best: tuple[float, str, float] | None = None
    for _ in range(5):
        edited = list(tokens)
        for op in ops[:count]:
            _edit(edited, op)
        text = _detokenize(edited)
        measured = jaccard(base, word_shingles(text))
        if measured < 1.0 and (best is None or abs(measured - target) < best[0]):
            best = (abs(measured - target), text, measured)
        if abs(measured - target) <= 0.02:
            break
        destroyed = len(base) * (1 - measured) / (1 + measured)
        count = max(1, min(len(ops), round(count * needed / max(destroyed, 1.0))))
    return None if best is None else (best[1], best[2])


def _pick_original(
    rng: random.Random, material: Material, plan: bytearray, seed: int, index: int, min_words: int
) -> Document | None:
    """An earlier planned base document with at least ``min_words`` words, if one is found."""
    for _ in range(ORIGINAL_DRAWS if index else 0):
        candidate = rng.randrange(index)
        if plan[candidate] == BASE:
            original = make_base(material, seed, candidate)
            if min_words <= 0 or len(original.text.split()) >= min_words:
                return original
    return None


def _site(material: Material, seed: int, site: int) -> tuple[list[str], list[str], str]:
    """Header lines, footer lines and host of boilerplate site ``site``."""
    rng = random.Random(f"{seed}:site:{site}")
    pool = material.boilerplate
    header = rng.sample(pool, rng.randint(1, 3))
    footer = [rng.choice(FIXED_BOILERPLATE[:2]), *rng.sample(pool, rng.randint(0, 2))]
    return header, footer, f"site{rng.randrange(100_000):05d}.example.{rng.choice(TLDS)}"


def _with_boilerplate(rng: random.Random, material: Material, doc: Document, seed: int) -> Document:
    header, footer, host = _site(material, seed, rng.randrange(SITES))
    where = rng.choice(("header", "footer", "both"))
    lines = [
        *(header if where != "footer" else []),
        doc.text,
        *(footer if where != "header" else []),
    ]
    url = f"https://{host}/{doc.language}/p{rng.getrandbits(40):010x}"
    return Document(doc.id, "\n".join(lines), url, doc.language, doc.source, "boilerplate")


def _noise_text(rng: random.Random, vocab: tuple[str, ...]) -> tuple[str, bool]:
    """A junk text and whether it is written in the words of ``vocab``."""
    style = rng.randrange(5)
    if style == 0:
        return " ".join(rng.choices(vocab, k=rng.randint(4, 8))), True
    if style == 1:
        count = rng.randint(3, 15)
        lines = ("".join(rng.choices(SYMBOLS, k=rng.randint(5, 60))) for _ in range(count))
        return "\n".join(lines), False
    if style == 2:
        spam = " ".join(rng.choices(vocab, k=rng.randint(3, 6)))
        return "\n".join([spam] * rng.randint(5, 40)), True
    if style == 3:
        words = rng.choices(LOREM, k=rng.randint(30, 200))
        return " ".join(words).capitalize() + ".", False
    count = rng.randint(20, 120)
    tokens = ("".join(rng.choices(GARBAGE, k=rng.randint(3, 12))) for _ in range(count))
    return " ".join(tokens), False


def _noise(rng: random.Random, material: Material, seed: int, index: int) -> Document:
    language = rng.choices(material.languages, cum_weights=material.cum_weights)[0]
    text, in_language = _noise_text(rng, material.words[language])
    language = language if in_language else "und"
    url = _url(rng, language)
    return Document(_doc_id(seed, index), text, url, language, rng.choice(SOURCES), "noise")


def _duplicate(
    rng: random.Random, material: Material, plan: bytearray, seed: int, index: int, near: bool
) -> Document | None:
    """An exact or near duplicate of an earlier base document, or None if there is none."""
    min_words = NEAR_DUPLICATE_MIN_WORDS if near else 0
    original = _pick_original(rng, material, plan, seed, index, min_words)
    if original is None:
        return None
    text, value, kind = original.text, 1.0, "exact_duplicate"
    if near:
        edited = _near_duplicate(rng, material, original, rng.choice(NEAR_DUPLICATE_TARGETS))
        if edited is None:
            return None
        (text, value), kind = edited, "near_duplicate"
    return Document(
        _doc_id(seed, index),
        text,
        _url(rng, original.language),
        original.language,
        rng.choice(SOURCES),
        kind,
        original.id,
        value,
    )


def build_document(material: Material, plan: bytearray, seed: int, index: int) -> Document:
    """Document ``index`` of the corpus: a pure function of the material, plan, seed and index.

    A duplicate slot without a suitable earlier base document becomes a base document.
    """
    kind = KIND_NAMES[plan[index]]
    rng = random.Random(f"{seed}:{index}:{kind}")
    if kind == "noise":
        return _noise(rng, material, seed, index)
    if kind in ("exact_duplicate", "near_duplicate"):
        doc = _duplicate(rng, material, plan, seed, index, near=kind == "near_duplicate")
        if doc is not None:
            return doc
    base = make_base(material, seed, index)
    return _with_boilerplate(rng, material, base, seed) if kind == "boilerplate" else base


# Writing -----------------------------------------------------------------------------------------

TRUTH_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("kind", pa.string()),
        ("original_id", pa.string()),
        ("jaccard", pa.float64()),
        ("language", pa.string()),
        ("source", pa.string()),
    ]
)
TRUTH_COLUMNS = tuple(TRUTH_SCHEMA.names)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def write_shard(
    path: Path, documents: Iterable[Document], truth: pq.ParquetWriter, summary: Summary
) -> Shard:
    """Write ``documents`` as one zstd JSONL shard and their rows of the ground truth.

    Args:
        path: The shard file to create.
        documents: The documents of the shard, in order.
        truth: Open writer of ``ground_truth.parquet`` (one row group per shard).
        summary: Counts to update.

    Returns:
        What was written.
    """
    columns: dict[str, list[object]] = {name: [] for name in TRUTH_COLUMNS}
    raw = 0
    with path.open("wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as z:
        for doc in documents:
            line = _json_line(doc)
            z.write(line)
            raw += len(line)
            _tally(summary, doc)
            for name in TRUTH_COLUMNS:
                columns[name].append(getattr(doc, name))
    truth.write_table(pa.table(columns, schema=TRUTH_SCHEMA))
    return Shard(path.name, len(columns["id"]), path.stat().st_size, raw, _sha256(path))


def _json_line(doc: Document) -> bytes:
    """The shard line of ``doc``: its public fields as one JSON object and a newline."""
    record = {
        "id": doc.id,
        "text": doc.text,
        "url": doc.url,
        "language": doc.language,
        "source": doc.source,
    }
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def _tally(summary: Summary, doc: Document) -> None:
    """Count ``doc`` in ``summary``."""
    summary.kinds[doc.kind] += 1
    summary.languages[doc.language] += 1
    summary.sources[doc.source] += 1
    summary.text_bytes += len(doc.text.encode())
    if doc.kind == "near_duplicate" and doc.jaccard is not None:
        summary.near_duplicate_bands[_band(doc.jaccard)] += 1


def _band(value: float) -> str:
    """Label of the Jaccard band ``value`` falls in."""
    return next(label for low, label in JACCARD_BANDS if value >= low)


def _remove_stale(out: Path) -> None:
    """Delete the files of an earlier build in ``out`` (only names this builder writes)."""
    for path in [
        *out.glob("part-*.jsonl.zst"),
        out / "ground_truth.parquet",
        out / "manifest.json",
    ]:
        path.unlink(missing_ok=True)


def _manifest(summary: Summary, material: Material, truth: Path) -> dict[str, object]:
    return {
        "generator": "bench/corpus.py",
        "parameters": {
            "docs": summary.docs,
            "seed": summary.seed,
            "shard_docs": summary.shard_docs,
        },
        "jaccard": "words = text.lower().split(); shingles = set of tuples of 5 consecutive "
        "words (all words if fewer than 5); jaccard = |A intersect B| / |A union B|",
        "corpora_fingerprint": material.fingerprint,
        "counts": {
            "kind": dict(sorted(summary.kinds.items())),
            "language": dict(sorted(summary.languages.items())),
            "source": dict(sorted(summary.sources.items())),
            "near_duplicate_jaccard": {
                label: summary.near_duplicate_bands[label] for _, label in JACCARD_BANDS
            },
        },
        "bytes": {
            "text_utf8": summary.text_bytes,
            "jsonl": sum(s.raw_bytes for s in summary.shards),
            "shards_zst": summary.bytes_written,
            "ground_truth": truth.stat().st_size,
        },
        "shards": [
            {"file": s.file, "docs": s.docs, "bytes": s.bytes, "sha256": s.sha256}
            for s in summary.shards
        ],
        "ground_truth": {"file": truth.name, "rows": summary.docs, "sha256": _sha256(truth)},
    }


def build_corpus(
    out: Path,
    *,
    docs: int,
    seed: int = 0,
    shard_docs: int = 50_000,
    corpora: Path | None = None,
) -> Summary:
    """Build a benchmark corpus of ``docs`` documents in ``out``, streaming shard by shard.

    Args:
        out: Output folder (created; files of an earlier build are replaced).
        docs: Number of documents.
        seed: Random seed; the same ``(docs, seed, shard_docs)`` gives byte-identical files.
        shard_docs: Documents per shard.
        corpora: The ``shared/corpora`` folder; default :func:`default_corpora`.

    Returns:
        Counts, shards and timing.

    Raises:
        ValueError: if ``docs`` or ``shard_docs`` is not positive or ``seed`` is negative.
    """
    if docs < 1 or shard_docs < 1:
        raise ValueError(f"docs and shard_docs must be positive, got {docs=} {shard_docs=}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    started = time.perf_counter()
    material = load_material((corpora or default_corpora()).resolve())
    plan = plan_kinds(docs, seed)
    out.mkdir(parents=True, exist_ok=True)
    _remove_stale(out)
    summary = Summary(out=out, docs=docs, seed=seed, shard_docs=shard_docs)
    truth_path = out / "ground_truth.parquet"
    with pq.ParquetWriter(truth_path, TRUTH_SCHEMA, compression="zstd") as truth:
        for number, begin in enumerate(range(0, docs, shard_docs)):
            indexes = range(begin, min(begin + shard_docs, docs))
            documents = (build_document(material, plan, seed, i) for i in indexes)
            shard = write_shard(out / f"part-{number:05d}.jsonl.zst", documents, truth, summary)
            summary.shards.append(shard)
            elapsed = time.perf_counter() - started
            print(
                f"{shard.file}: {shard.docs:,} docs, {shard.raw_bytes / 1e6:.1f} MB jsonl, "
                f"{shard.bytes / 1e6:.1f} MB zst, {elapsed:.1f} s",
                file=sys.stderr,
            )
    manifest = _manifest(summary, material, truth_path)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    summary.seconds = time.perf_counter() - started
    return summary


def _report(summary: Summary) -> str:
    kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(summary.kinds.items()))
    return (
        f"{summary.docs:,} documents in {summary.out} ({kinds}); "
        f"{summary.bytes_written / 1e6:.1f} MB written in {len(summary.shards)} shards "
        f"({summary.text_bytes / 1e6:.1f} MB of text), {summary.seconds:.1f} s"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--docs", type=int, required=True, help="number of documents")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--shard-docs", type=int, default=50_000, help="documents per shard")
    return parser.parse_args(argv)


def cached_corpus(docs: int, seed: int = 0, *, shard_docs: int = 50_000) -> Path:
    """``bench/out/corpus-<docs>``, built unless its manifest already matches (the one cache the
    benchmarks share)."""
    out = Path(__file__).resolve().parent / "out" / f"corpus-{docs}"
    manifest = out / "manifest.json"
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        if (
            m["parameters"] == {"docs": docs, "seed": seed, "shard_docs": shard_docs}
            and all((out / s["file"]).is_file() for s in m["shards"])
            and sum(s["docs"] for s in m["shards"]) == docs
        ):
            return out
    print(f"building {out} (bench/corpus.py) ...", file=sys.stderr, flush=True)
    build_corpus(out, docs=docs, seed=seed, shard_docs=shard_docs)
    return out


def shards(corpus: Path) -> list[Path]:
    """The corpus's ``part-*.jsonl.zst`` files, in order."""
    return sorted(corpus.glob("part-*.jsonl.zst"))


def main(argv: list[str] | None = None) -> None:
    """Build the corpus the command line asks for and print a summary to stderr."""
    args = parse_args(argv)
    summary = build_corpus(args.out, docs=args.docs, seed=args.seed, shard_docs=args.shard_docs)
    print(_report(summary), file=sys.stderr)


if __name__ == "__main__":
    main()
