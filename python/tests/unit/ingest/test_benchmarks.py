"""Evaluation sets from JSON Lines: each item's text from its question and answer fields."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import orjson
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from lakemix.ingest import benchmarks


def write(path: Path, items: list[object]) -> Path:
    data = b"".join(orjson.dumps(item) + b"\n" for item in items)
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def test_item_texts_come_from_question_and_answer_fields() -> None:
    squad = {"id": "q1", "question": "Who?", "context": "A text.", "answers": {"text": ["Ada"]}}
    assert benchmarks.item_text(squad) == "Who?\nA text.\nAda"
    mmlu = {"question": "2+2?", "choices": ["3", "4"], "answer": 1}
    assert benchmarks.item_text(mmlu) == "2+2?\n3\n4"
    assert benchmarks.item_text({"text": "Whole.", "question": "ignored"}) == "Whole."
    assert benchmarks.item_text({"q": "Asked", "a": "Answered"}, ("q", "a")) == "Asked\nAnswered"


def test_a_set_is_stored_and_replaced_by_name(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path / 'c.db'}", warehouse=f"file://{warehouse}")
    long = " ".join(f"word{i}" for i in range(20))
    path = write(tmp_path / "set.jsonl.gz", [{"id": 7, "text": long}, {"text": "too short"}])
    added = benchmarks.add(catalog, "planted", path)
    assert (added.items, added.short, added.replaced) == (2, 1, 0)
    rows = catalog.load_table("meta.benchmarks").scan().to_arrow().to_pylist()
    assert sorted(r["item_id"] for r in rows) == ["2", "7"]
    content = gzip.decompress(path.read_bytes())  # the lines as read
    assert {r["file_sha256"] for r in rows} == {hashlib.sha256(content).hexdigest()}
    again = benchmarks.add(catalog, "planted", write(tmp_path / "b.jsonl", [{"text": long}]))
    assert again.replaced == 2
    assert [(s.name, s.items) for s in benchmarks.stored(catalog)] == [("planted", 1)]


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (b'{"text": "a"}\n[1, 2]\n', "line 2|:2: a JSON object per line"),
        (b'{"text": "a"}\nnot json\n', ":2: not JSON"),
        (b'{"id": 1, "text": "a"}\n{"id": 1, "text": "b"}\n', ":2: id '1' again"),
        (b'{"label": 3}\n', "no item has text in the fields text, question"),
    ],
)
def test_what_is_no_evaluation_set_is_refused_with_where(
    tmp_path: Path, lines: bytes, error: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(lines)
    with pytest.raises(benchmarks.BenchmarkError, match=error):
        benchmarks.read(path)
