from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakemix.ingest import formats, mapping
from lakemix.ingest.records import Document, Rejected
from lakemix.ingest.streams import OpenedFile


def opened(data: bytes) -> OpenedFile:
    raw = io.BytesIO(data)
    return OpenedFile(raw=raw, stream=raw)


def jsonl(
    data: bytes, m: mapping.FieldMapping = mapping.JSONL, limit: int = 1 << 20
) -> list[Document | Rejected]:
    return list(formats.read_jsonl(opened(data), m, limit))


def test_jsonl_maps_text_id_url_and_keeps_the_rest_as_metadata() -> None:
    [doc] = jsonl(b'{"id": 7, "text": "hello", "metadata": {"url": "http://a"}, "lang": "en"}\n')
    assert isinstance(doc, Document)
    assert (doc.text, doc.record_id, doc.url) == ("hello", "7", "http://a")
    assert json.loads(doc.metadata or "") == {"metadata": {"url": "http://a"}, "lang": "en"}
    assert not doc.is_utf8_repaired


def test_jsonl_bad_records_are_rejected_with_a_reason_and_the_rest_read() -> None:
    data = (
        b'{"text": "ok 1"}\n'
        b'{"text": "broken\n'
        b"[1, 2]\n"
        b'{"content": 5}\n'
        b'{"other": "x"}\n'
        b"\n"
        b'{"text": "ok 2"}\n'
    )
    items = jsonl(data)
    kinds = [type(i).__name__ for i in items]
    assert kinds == ["Document", "Rejected", "Rejected", "Rejected", "Rejected", "Document"]
    reasons = [i.reason for i in items if isinstance(i, Rejected)]
    assert reasons[0].startswith("invalid JSON")
    assert "not an object" in reasons[1]
    assert "'content' is a JSON int, expected a string" in reasons[2]
    assert reasons[3].startswith("missing text field")
    assert [i.line_number for i in items] == [1, 2, 3, 4, 5, 7]
    assert all(i.excerpt for i in items if isinstance(i, Rejected))


def test_invalid_utf8_is_repaired_and_flagged() -> None:
    [doc] = jsonl(b'{"text": "caf\xe9 \xff ok"}\n')
    assert isinstance(doc, Document)
    assert doc.text == "caf\ufffd \ufffd ok"
    assert doc.is_utf8_repaired


def test_lone_surrogate_escape_is_repaired() -> None:
    [doc] = jsonl(b'{"text": "a\\ud800b"}\n')
    assert isinstance(doc, Document)
    assert doc.text == "a\ufffdb"
    assert doc.is_utf8_repaired


def test_oversized_record_is_rejected_not_loaded() -> None:
    items = jsonl(b'{"text": "' + b"x" * 5000 + b'"}\n{"text": "small"}\n', limit=1000)
    assert isinstance(items[0], Rejected) and "longer than 1000 bytes" in items[0].reason
    assert isinstance(items[1], Document) and items[1].text == "small"


def test_hplt_jsonl_uses_t_and_u_and_drops_html() -> None:
    [doc] = jsonl(b'{"t": "body", "u": "http://x", "h": "<html>", "lang": "eng"}\n', mapping.HPLT)
    assert isinstance(doc, Document)
    assert (doc.text, doc.url, doc.record_id) == ("body", "http://x", None)
    assert json.loads(doc.metadata or "") == {"lang": "eng"}


def test_hplt_tsv_decodes_base64_and_rejects_bad_lines() -> None:
    good = base64.b64encode("你好\n世界".encode())
    data = b"http://a\t" + good + b"\nno-tab-here\nhttp://b\t!!notbase64!!\n"
    items = list(formats.read_hplt_tsv(opened(data), 1 << 20))
    assert (
        isinstance(items[0], Document)
        and items[0].text == "你好\n世界"
        and items[0].url == "http://a"
    )
    assert isinstance(items[1], Rejected) and "no TAB" in items[1].reason
    assert isinstance(items[2], Rejected) and "base64" in items[2].reason


def test_oscar_documents_are_separated_by_blank_lines() -> None:
    data = b"p1 of d1\np2 of d1\n\n\nonly para of d2\n\n"
    docs = list(formats.read_oscar(opened(data), 1 << 20))
    assert [d.text for d in docs if isinstance(d, Document)] == [
        "p1 of d1\np2 of d1",
        "only para of d2",
    ]
    assert [(d.offset, d.line_number) for d in docs] == [(0, 1), (20, 5)]


def test_oscar_oversized_document_is_rejected() -> None:
    data = b"a" * 600 + b"\n" + b"b" * 600 + b"\n\nsmall\n"
    items = list(formats.read_oscar(opened(data), 1000))
    assert isinstance(items[0], Rejected) and items[0].line_number == 1
    assert isinstance(items[1], Document) and items[1].text == "small"


def test_text_is_one_document() -> None:
    [doc] = formats.read_text(opened(b"whole\nfile"), 1 << 20)
    assert isinstance(doc, Document) and doc.text == "whole\nfile"


def test_parquet_rows_become_documents(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "text": ["one", None]}), path)
    items = list(formats.read_parquet(path, mapping.JSONL))
    assert isinstance(items[0], Document) and items[0].record_id == "a" and items[0].offset == 0
    assert isinstance(items[1], Rejected) and items[1].offset == 1 and "null" in items[1].reason


def test_parquet_without_text_column_is_rejected_once(tmp_path: Path) -> None:
    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), path)
    [item] = formats.read_parquet(path, mapping.JSONL)
    assert isinstance(item, Rejected) and "no text column" in item.reason


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.jsonl", "jsonl"),
        ("a.jsonl.zst", "jsonl"),
        ("a.json.gz", "jsonl"),
        ("a.parquet", "parquet"),
        ("a.txt", "text"),
        ("a.tsv.zst", "hplt"),
    ],
)
def test_detect_format_by_name(name: str, fmt: str) -> None:
    assert formats.detect_format(Path(name), "auto") == fmt


def test_unknown_format_and_undetectable_name_are_clear_errors() -> None:
    with pytest.raises(formats.UnknownFormatError, match="unknown format 'csv'"):
        formats.detect_format(Path("a.csv"), "csv")
    with pytest.raises(formats.UnknownFormatError, match="pass --format"):
        formats.detect_format(Path("a.bin"), "auto")


def test_documentation_files_are_not_corpus_data() -> None:
    assert not formats.accepts(Path("d/SOURCE.txt"), "text")
    assert not formats.accepts(Path("d/README.md"), "auto")
    assert formats.accepts(Path("d/source_a.txt"), "oscar")
