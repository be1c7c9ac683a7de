"""Evaluation sets to decontaminate against (``meta.benchmarks``), from JSON Lines files.

Each line is one item; its text is the strings of the fields named (``--field``), or by default
of ``text`` when the item has it, else of the question and answer fields evaluation sets use
(``question``, ``query``, ``prompt``, ``context``, ``passage``, ``choices``, ``options``,
``answer``, ``answers``, ``target``), in that order: strings, lists of them and objects holding
them (SQuAD's ``answers.text``) alike. The item's id is its ``id`` field, else its line number.

Adding a name again replaces that benchmark in one commit. The next build checks every document
against a benchmark added since the last one, and every new document against all of them
(int_documents_benchmark_overlaps); an item of fewer than 13 words is not checked (any long
n-gram of it is common phrase) and counted here.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from lakemix.errors import LakemixError
from lakemix.ingest import named
from lakemix.tables import BENCHMARKS
from lakemix.udf.ngrams import ngram_hashes

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.catalog import Catalog

_WHAT = "benchmark"
DEFAULT_FIELDS = (
    *("question", "query", "prompt", "context", "passage"),
    *("choices", "options", "answer", "answers", "target"),
)
# The n-gram decontamination checks (GPT-3's and FineWeb-Edu's 13 words); the models take it
# from var lakemix_decontamination_ngram_words, this only counts items too short for it.
NGRAM_WORDS = 13


class BenchmarkError(LakemixError, ValueError):
    """A file that is no evaluation set lakemix can read."""


@dataclass(frozen=True)
class Added:
    """What ``add`` stored."""

    name: str
    items: int
    short: int  # items of fewer than NGRAM_WORDS words: stored, never matched
    replaced: int


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for element in value:
            yield from _strings(element)
    elif isinstance(value, dict):
        for element in value.values():
            yield from _strings(element)


def item_text(item: dict[str, Any], fields: tuple[str, ...] = ()) -> str:
    """The text of one evaluation item (see the module's docstring)."""
    chosen = fields or (("text",) if "text" in item else DEFAULT_FIELDS)
    return "\n".join(s for f in chosen if f in item for s in _strings(item[f]) if s.strip())


def _lines(path: Path) -> Iterator[bytes]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as lines:
        yield from lines


def read(path: Path, fields: tuple[str, ...] = ()) -> tuple[list[dict[str, str]], str]:
    """The items of the JSON Lines file at ``path`` (``.gz`` too), each an id and a text, and
    the SHA-256 of its lines as read (decompressed; one pass).

    Raises:
        BenchmarkError: the file is missing, a line is no JSON object, two items share an id,
            or no item has text.
    """
    if not path.is_file():
        raise BenchmarkError(f"{path}: no such file")
    items: list[dict[str, str]] = []
    seen: set[str] = set()
    digest = hashlib.sha256()
    for number, line in enumerate(_lines(path), start=1):
        digest.update(line)
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise BenchmarkError(f"{path}:{number}: not JSON ({error})") from None
        if not isinstance(item, dict):
            raise BenchmarkError(
                f"{path}:{number}: a JSON object per line, got {type(item).__name__}"
            )
        item_id = str(item.get("id", number))
        if item_id in seen:
            raise BenchmarkError(f"{path}:{number}: id {item_id!r} again")
        seen.add(item_id)
        text = item_text(item, fields)
        if text:
            items.append({"item_id": item_id, "text": text})
    if not items:
        shown = ", ".join(fields or ("text", *DEFAULT_FIELDS))
        raise BenchmarkError(f"{path}: no item has text in the fields {shown}")
    return items, digest.hexdigest()


def _schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            ("benchmark", pa.string()),
            ("item_id", pa.string()),
            ("text", pa.string()),
            ("file", pa.string()),
            ("file_sha256", pa.string()),
            ("added_at", pa.timestamp("us", tz="UTC")),
        ]
    )


def add(catalog: Catalog, name: str, path: Path, fields: tuple[str, ...] = ()) -> Added:
    """Store the evaluation set at ``path`` as benchmark ``name``, replacing one of that name.

    Raises:
        BenchmarkError: see ``read``.
        NamedListError: a name no benchmark may have.
    """
    import pyarrow as pa

    named.check_name(name, _WHAT)
    items, sha256 = read(path, fields)
    now = datetime.now(UTC)
    rows = pa.Table.from_pylist(
        [
            {**item, "benchmark": name, "file": str(path.resolve()), "added_at": now}
            | {"file_sha256": sha256}
            for item in items
        ],
        schema=_schema(),
    )
    # the items the model's n-grams never match: counted by the same function, not a twin
    hashes = ngram_hashes(rows["text"], NGRAM_WORDS)
    short = sum(len(h) == 0 for h in hashes.to_pylist())
    replaced = named.replace(catalog, BENCHMARKS, "benchmark", name, rows)
    return Added(name, len(items), short, replaced)


@dataclass(frozen=True, order=True)
class Summary:
    """One stored benchmark."""

    name: str
    items: int
    file: str
    added_at: datetime


def stored(catalog: Catalog) -> list[Summary]:
    """The stored benchmarks; none before a first ``add``."""
    return [
        Summary(r["benchmark"], r["rows"], r["file"], r["added_at"])
        for r in named.summaries(catalog, BENCHMARKS, ["benchmark", "file"])
    ]


def remove(catalog: Catalog, name: str) -> int:
    """Delete benchmark ``name``; returns its items.

    Raises:
        NamedListError: no benchmark has that name.
    """
    return named.remove(catalog, BENCHMARKS, "benchmark", name, _WHAT)
