"""Reference readers: text, JSON Lines (plain and gzip), folders, and sentence packing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from lakemix.quality.reference import (
    ReferenceError,
    pack_sentences,
    read_reference,
    select_lines,
    sentence_joiner,
)

SENTENCES = [f"Sentence number {i} says something about the weather {i % 7}." for i in range(400)]


def test_text_documents_are_separated_by_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "ref.txt"
    path.write_bytes(b"First line.\r\nSame document.\r\n  \r\nSecond.\n\n\n\nThird.\n")
    found = read_reference(path)
    assert found.documents == ["First line.\nSame document.", "Second.", "Third."]
    assert found.files == [path]


def test_json_lines_plain_and_gzip(tmp_path: Path) -> None:
    records = [{"text": "one", "id": 1}, {"text": "two"}, {"text": "  "}]
    lines = "".join(json.dumps(r) + "\n" for r in records) + "\n"
    (tmp_path / "a.jsonl").write_text(lines)
    with gzip.open(tmp_path / "b.jsonl.gz", "wt") as f:
        f.write(lines)
    assert read_reference(tmp_path / "a.jsonl").documents == ["one", "two"]
    assert read_reference(tmp_path / "b.jsonl.gz").documents == ["one", "two"]


def test_a_folder_reads_every_known_file_in_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.txt").write_text("from b")
    (tmp_path / "sub" / "a.jsonl").write_text('{"text": "from a"}\n')
    (tmp_path / "README.md").write_text("not a reference")
    found = read_reference(tmp_path)
    assert found.documents == ["from b", "from a"]  # sorted paths: b.txt < sub/a.jsonl
    assert found.not_read == [tmp_path / "README.md"]


def test_bad_records_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"text": "ok"}\n{"body": "no text"}\n')
    with pytest.raises(ReferenceError, match=r"r\.jsonl:2: no string field 'text'"):
        read_reference(path)
    path.write_text('{"text": "ok"}\nnot json\n')
    with pytest.raises(ReferenceError, match=r"r\.jsonl:2: not JSON"):
        read_reference(path)
    (tmp_path / "t.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ReferenceError, match=r"cannot read reference file .*t\.jsonl\.gz"):
        read_reference(tmp_path / "t.jsonl.gz")


def test_empty_missing_and_unknown_references_are_errors(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("\n\n")
    with pytest.raises(ReferenceError, match="gives no documents"):
        read_reference(tmp_path / "empty.txt")
    with pytest.raises(ReferenceError, match="does not exist"):
        read_reference(tmp_path / "nothing.txt")
    (tmp_path / "data.csv").write_text("a,b\n")
    with pytest.raises(ReferenceError, match="no reference file"):
        read_reference(tmp_path / "data.csv")
    with pytest.raises(ReferenceError, match="needs --sentences"):
        read_reference(tmp_path / "empty.txt", lines="even")


def test_even_and_odd_lines_split_a_file_in_two() -> None:
    lines = [str(i) for i in range(7)]
    even, odd = select_lines(lines, "even"), select_lines(lines, "odd")
    assert even == ["0", "2", "4", "6"] and odd == ["1", "3", "5"]
    assert sorted(even + odd, key=int) == lines == select_lines(lines, "all")
    with pytest.raises(ValueError, match="got 'third'"):
        select_lines(lines, "third")  # type: ignore[arg-type]


def test_packing_is_deterministic_and_sized() -> None:
    docs = pack_sentences(SENTENCES, key="en")
    assert docs == pack_sentences(list(SENTENCES), key="en")
    assert docs != pack_sentences(SENTENCES, key="de")
    assert len(docs) > 10
    assert all(500 <= len(d) <= 2000 for d in docs)
    assert max(sum(d.count(s) for d in docs) for s in SENTENCES) == 1  # none twice
    chinese = [f"第{i}个句子说了一些关于天气的事情。" for i in range(200)]
    unspaced = pack_sentences(chinese, key="zh", joiner=sentence_joiner("zh"))
    assert unspaced and all(" " not in d for d in unspaced)


def test_sentences_files_are_packed_with_the_selected_lines(tmp_path: Path) -> None:
    path = tmp_path / "sentences.txt"
    path.write_text("\n".join(SENTENCES) + "\n")
    even = read_reference(path, sentences=True, lines="even", language="en").documents
    odd = read_reference(path, sentences=True, lines="odd", language="en").documents
    assert even == pack_sentences(SENTENCES[0::2], key="en")
    assert not {s for d in even for s in d.split("\n")} & {s for d in odd for s in d.split("\n")}
    (tmp_path / "x.jsonl").write_text('{"text": "a"}\n')
    with pytest.raises(ReferenceError, match="sentences are read from text files"):
        read_reference(tmp_path / "x.jsonl", sentences=True)


def test_packings_repack_the_same_sentences_in_other_orders(tmp_path: Path) -> None:
    path = tmp_path / "sentences.txt"
    path.write_text("\n".join(SENTENCES) + "\n")
    once = read_reference(path, sentences=True, language="en").documents
    thrice = read_reference(path, sentences=True, language="en", packings=3).documents
    assert thrice[: len(once)] == once  # the first packing is the default one
    assert len(thrice) > 2 * len(once)
    assert len(set(thrice)) == len(thrice)  # other orders give other documents
    for sentence in SENTENCES[:20]:
        assert sum(d.count(sentence) for d in thrice) <= 3
    with pytest.raises(ReferenceError, match="packings must be at least 1"):
        read_reference(path, sentences=True, language="en", packings=0)
    with pytest.raises(ReferenceError, match="it needs --sentences"):
        read_reference(path, packings=2)
