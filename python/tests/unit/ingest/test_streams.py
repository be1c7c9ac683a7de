from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from lakemix.ingest.streams import (
    compression_of,
    iter_lines,
    open_file,
    read_errors,
)


@given(
    st.lists(
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b"")), max_size=30
    ),
    st.integers(1, 50),
)
def test_iter_lines_reports_every_line_with_its_offset(lines: list[bytes], limit: int) -> None:
    data = b"".join(line + b"\n" for line in lines)
    got = list(iter_lines(io.BytesIO(data), limit))
    assert [g.number for g in got] == list(range(1, len(lines) + 1))
    offset = 0
    for line, g in zip(lines, got, strict=True):
        assert g.offset == offset
        # a line longer than the limit is reported, never kept
        assert g.data == (line if len(line) <= limit else None)
        offset += len(line) + 1


def test_oversized_line_is_skipped_and_the_next_one_read() -> None:
    data = b"short\n" + b"x" * 10_000 + b"\nnext\n"
    got = list(iter_lines(io.BytesIO(data), 100))
    assert [g.data for g in got] == [b"short", None, b"next"]
    assert got[2].offset == 6 + 10_001


def test_crlf_and_missing_final_newline() -> None:
    got = list(iter_lines(io.BytesIO(b"a\r\nb"), 10))
    assert [g.data for g in got] == [b"a", b"b"]


def test_compression_is_told_by_content_not_name(tmp_path: Path) -> None:
    gz = tmp_path / "looks-plain.jsonl"
    gz.write_bytes(gzip.compress(b'{"text": "x"}\n'))
    zs = tmp_path / "x.gz"
    zs.write_bytes(zstandard.ZstdCompressor().compress(b"hello\n"))
    assert compression_of(gz) == "gzip"
    assert compression_of(zs) == "zstd"
    assert open_file(zs).stream.read() == b"hello\n"


@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_truncated_stream_raises_a_read_error(tmp_path: Path, kind: str) -> None:
    payload = b"".join(b"line %d with some text\n" % i for i in range(20_000))
    blob = (
        gzip.compress(payload) if kind == "gzip" else zstandard.ZstdCompressor().compress(payload)
    )
    path = tmp_path / "cut"
    path.write_bytes(blob[: len(blob) // 2])
    opened = open_file(path)
    with pytest.raises(read_errors()):
        opened.stream.read()


def test_zstd_multiple_frames_are_read_across(tmp_path: Path) -> None:
    c = zstandard.ZstdCompressor()
    path = tmp_path / "frames.zst"
    path.write_bytes(c.compress(b"one\n") + c.compress(b"two\n"))
    assert open_file(path).stream.read() == b"one\ntwo\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("compress", [None, "gzip", "zstd"])
def test_utf16_files_are_read_as_utf8(tmp_path: Path, encoding: str, compress: str | None) -> None:
    text = '{"id": "x", "text": "héllo wörld — 日本語 \U0001f600"}\n' * 3000
    data = text.encode(encoding)
    if compress == "gzip":
        data = gzip.compress(data)
    elif compress == "zstd":
        data = zstandard.ZstdCompressor().compress(data)
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    opened = open_file(path)
    try:
        assert opened.stream.read() == text.encode("utf-8")
    finally:
        opened.close()


def test_utf8_and_binary_pass_through(tmp_path: Path) -> None:
    for data in (b'{"a": 1}\n', "ünïcode\n".encode(), b"PAR1\x00\x00", b"\x00\x00\x00\x00"):
        path = tmp_path / "f.bin"
        path.write_bytes(data)
        opened = open_file(path)
        try:
            assert opened.stream.read() == data
        finally:
            opened.close()


def test_a_corrupt_member_comes_after_every_line_of_the_members_before_it(tmp_path: Path) -> None:
    # three small gzip members in one 64 KB chunk, the second corrupt: the first one's lines
    # are read before the error (they were lost with the chunk)
    good = gzip.compress(b"first member line\n" * 10)
    bad = bytearray(gzip.compress(b"second member line\n" * 10))
    bad[12:20] = b"\xff" * 8
    path = tmp_path / "members.gz"
    path.write_bytes(good + bytes(bad) + gzip.compress(b"third\n"))
    lines = []
    with pytest.raises(read_errors()):
        for line in iter_lines(open_file(path).stream, 1 << 20):
            lines.append(line.data)
    assert lines == [b"first member line"] * 10
