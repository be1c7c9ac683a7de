"""The text store: texts by MD5, written in segments, read back at random, never wrong."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.dbt.texts import TextFunctions
from lakemix.text_store import MAX_SEGMENTS, TextStore, hex_keys
from tests.conftest import WEB
from tests.unit.test_mapped import advice_flags


def md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def write(store: TextStore, texts: list[str | None], *, replace: bool = False) -> Path | None:
    writer = store.writer(replace=replace)
    hashes = [md5(t) if t is not None else None for t in texts]
    writer.write(pa.array(hashes, pa.string()), pa.array(texts, pa.string()))
    return writer.commit()


def test_texts_come_back_by_hash_and_missing_ones_are_null(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    texts = ["one text", "another text", "ünïcödé ✓ 文字", ""]
    assert write(store, texts) is not None
    query = [md5("another text"), md5("not stored"), None, "not a hash", md5("ünïcödé ✓ 文字")]
    query += [md5(""), md5("one text").upper()]
    got = store.lookup(pa.array(query, pa.string()))
    assert got.type == pa.large_string()
    assert got.to_pylist() == ["another text", None, None, None, "ünïcödé ✓ 文字", "", None]


def test_an_empty_or_missing_store_answers_nulls(tmp_path: Path) -> None:
    store = TextStore(tmp_path / "absent")
    assert store.lookup(pa.array([md5("x"), None])).to_pylist() == [None, None]
    assert store.lookup(pa.chunked_array([], pa.string())).to_pylist() == []


def test_segments_add_up_and_a_text_is_stored_once(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    write(store, ["a", "b", "a"])
    writer = store.writer(replace=False)
    writer.write(pa.array([md5("b"), md5("c")]), pa.array(["b", "c"]))
    writer.write(pa.array([md5("c"), md5("d")]), pa.array(["c", "d"]))
    assert writer.texts == 2  # b was stored, c came twice
    writer.commit()
    assert len(list(tmp_path.glob("*.keys.npy"))) == 2
    got = TextStore(tmp_path).lookup(pa.array([md5(t) for t in "abcde"]))
    assert got.to_pylist() == ["a", "b", "c", "d", None]


def test_a_replacing_write_becomes_the_whole_store(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    write(store, ["old", "kept"])
    write(store, ["kept", "new"], replace=True)
    assert store.lookup(pa.array([md5("old"), md5("kept"), md5("new")])).to_pylist() == [
        None,
        "kept",
        "new",
    ]
    assert len(list(tmp_path.glob("*.arrow"))) == 1


def test_uncommitted_or_discarded_texts_are_not_read(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    writer = store.writer(replace=False)
    writer.write(pa.array([md5("pending")]), pa.array(["pending"]))
    assert store.lookup(pa.array([md5("pending")])).to_pylist() == [None]
    writer.discard()
    assert list(tmp_path.iterdir()) == []
    # A segment whose index was never written (a crash before the commit) is ignored.
    write(store, ["committed"])
    (next(tmp_path.glob("*.keys.npy"))).unlink()
    assert store.lookup(pa.array([md5("committed")])).to_pylist() == [None]


def test_null_texts_and_bad_hashes_are_not_written(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    writer = store.writer(replace=False)
    writer.write(pa.array([md5("x"), "nothex", None]), pa.array([None, "y", "z"]))
    assert writer.texts == 0
    assert writer.commit() is None


def test_concurrent_writers_threads(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    writer = store.writer(replace=False)
    texts = [f"text {n}" for n in range(4000)]

    def run(part: list[str]) -> None:
        for start in range(0, len(part), 100):
            chunk = part[start : start + 100]
            writer.write(pa.array([md5(t) for t in chunk]), pa.array(chunk))

    threads = [threading.Thread(target=run, args=(texts[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.commit()
    assert store.lookup(pa.array([md5(t) for t in texts])).to_pylist() == texts


def test_real_documents_round_trip(tmp_path: Path) -> None:
    import json

    path = next((WEB / "dolma_cc_en_head").glob("*.jsonl"))
    with path.open() as f:
        texts = [json.loads(line)["text"] for line, _ in zip(f, range(300), strict=False)]
    store = TextStore(tmp_path)
    write(store, texts)
    assert store.lookup(pa.array([md5(t) for t in reversed(texts)])).to_pylist() == texts[::-1]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(), max_size=30), st.lists(st.text(), max_size=30))
def test_any_texts_round_trip(first: list[str], second: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        store = TextStore(Path(folder))
        write(store, first)
        write(store, second)
        both = first + second + ["never written \x00"]
        expected = [t if t in first or t in second else None for t in both]
        assert store.lookup(pa.array([md5(t) for t in both])).to_pylist() == expected


def test_hex_keys_are_the_md5_bytes() -> None:
    keys, valid = hex_keys(pa.chunked_array([[md5("a")], [None, "x" * 32]]))
    digest = hashlib.md5(b"a").digest()
    assert valid.tolist() == [True, False, False]
    assert int(keys[0, 0]) == int.from_bytes(digest[:8], "little")
    assert int(keys[1, 0]) == int.from_bytes(digest[8:], "little")


def test_duckdb_functions_store_and_read_texts(tmp_path: Path) -> None:
    functions = TextFunctions(TextStore(tmp_path))
    conn = duckdb.connect()
    functions.register(conn)
    conn.execute(
        "create table docs as select 'document number ' || i as text from range(5000) t(i)"
    )
    hashes = conn.execute(
        "select lakemix_store_text('m.t', true, md5(text), text) as h from docs"
    ).fetchall()
    assert [h for (h,) in hashes[:2]] == [md5("document number 0"), md5("document number 1")]
    # Nothing is read before the plugin commits the model's run.
    assert conn.execute("select lakemix_stored_text(md5('document number 7'))").fetchone() == (
        None,
    )
    assert functions.commit("m.t") is not None
    assert functions.commit("m.t") is None  # nothing pending any more
    rows = conn.execute(
        "select count(*) filter (where lakemix_stored_text(md5(text)) = text) from docs"
    ).fetchone()
    assert rows == (5000,)


def test_a_write_to_a_file_not_a_folder_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises((FileExistsError, NotADirectoryError)):
        TextStore(tmp_path / "file").writer(replace=False)


def test_many_segments_are_merged_into_the_largest_and_one_more(tmp_path: Path) -> None:
    store = TextStore(tmp_path)
    write(store, [f"big {n}" for n in range(500)])
    largest = next(tmp_path.glob("*.keys.npy")).name
    batches = [[f"run {k} text {n}" for n in range(30)] + ["big 7"] for k in range(MAX_SEGMENTS)]
    for texts in batches:
        write(store, texts)
    assert store.compact() is not None
    names = sorted(p.name for p in tmp_path.glob("*.keys.npy"))
    assert len(names) == 2 and largest in names
    assert not list(tmp_path.glob("*.tmp"))
    every = [f"big {n}" for n in range(500)] + [t for texts in batches for t in texts]
    assert TextStore(tmp_path).lookup(pa.array([md5(t) for t in every])).to_pylist() == every
    assert store.compact() is None  # two segments: nothing to do


def test_committing_through_the_functions_compacts(tmp_path: Path) -> None:
    functions = TextFunctions(TextStore(tmp_path))
    conn = duckdb.connect()
    functions.register(conn)
    for run in range(MAX_SEGMENTS + 1):
        conn.execute(
            f"select lakemix_store_text('m.t', false, md5(t), t) "
            f"from (select 'run {run} doc ' || i as t from range(50) r(i))"
        ).fetchall()
        functions.commit("m.t")
    assert len(list(tmp_path.glob("*.keys.npy"))) == 2
    texts = [f"run {run} doc {i}" for run in range(MAX_SEGMENTS + 1) for i in range(50)]
    assert functions.store.lookup(pa.array([md5(t) for t in texts])).to_pylist() == texts


def test_segments_are_mapped_for_random_reads(tmp_path: Path) -> None:
    # A lookup reads a few texts at random: the kernel must not read megabytes around each
    # (lakemix.mapped: 779 GB read for 72,115 texts of a 12 GB store in 2 GiB without it).
    store = TextStore(tmp_path / "store")
    write(store, [f"text {i}" for i in range(100)])
    segments = store._open()
    (name,) = segments
    flags = advice_flags(store.root / f"{name}.arrow")
    assert flags and all("rr" in f for f in flags)
