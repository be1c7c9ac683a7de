"""The search index follows its relation: new, changed and removed rows; words in every script."""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from lakemix.search import SearchIndexError, match, sync_index
from lakemix.search.sql import macro_sql, register
from lakemix.search.sync import _writing

RELATION = "select * from documents"
COLUMNS = (
    "document_id varchar, is_clean boolean, source_id varchar, language varchar, "
    "language_score double, url varchar, file_path varchar, file_offset bigint, "
    "ingest_id varchar, ingested_at timestamptz, failed_rule_names varchar[], "
    "duplicate_of_document_id varchar, text varchar"
)
TEXTS = {
    "en": "Human rights and the privacy of every person",
    "de": "Die Würde des Menschen ist unantastbar, Privatsphäre",
    "zh": "东京是日本的首都，人口众多。",  # noqa: RUF001
    "ja": "東京都に行きます。京都ではありません。",
    "th": "ภาษาไทยเป็นภาษาราชการของประเทศไทย",
}


def add(conn: duckdb.DuckDBPyConnection, document_id: str, text: str, **kw: object) -> None:
    row = {
        "document_id": document_id,
        "is_clean": True,
        "source_id": "s",
        "language": "en",
        "language_score": 0.9,
        "url": None,
        "file_path": f"/raw/{document_id}.jsonl",
        "file_offset": 7,
        "ingest_id": "i1",
        "ingested_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "failed_rule_names": [],
        "duplicate_of_document_id": None,
        "text": text,
        **kw,
    }
    conn.execute(f"insert into documents values ({', '.join('?' * len(row))})", list(row.values()))


@pytest.fixture
def conn() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    conn.execute(f"create table documents ({COLUMNS})")
    for language, text in TEXTS.items():
        add(conn, language, text, language=language)
    return conn


def ids(path: Path, query: str, **kw: object) -> set[str]:
    return {hit.document_id for hit in match(path, query, **kw)}  # type: ignore[arg-type]


def test_words_in_every_script(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    first = sync_index(conn, RELATION, tmp_path / "ix")
    assert (first.documents, first.added, first.deleted, first.rebuilt) == (5, 5, 0, True)
    path = tmp_path / "ix"
    assert ids(path, "PRIVACY human") == {"en"}
    assert ids(path, "privatsphare") == {"de"}  # accents folded, case ignored
    assert ids(path, "东京") == {"zh"}  # Chinese: a phrase of characters, not a whole run
    assert ids(path, "東京") == {"ja"} and ids(path, "京都") == {"ja"}
    assert ids(path, "日本") == {"zh"} and ids(path, "本日") == set()  # order matters
    assert ids(path, "ภาษาไทย") == {"th"} and ids(path, "ไทยภาษา") == set()
    assert ids(path, "京都", language="en") == set()
    assert match(path, "...") == []
    hit = match(path, "human")[0]
    assert (hit.file_path, hit.file_offset, hit.failed_rule_names) == ("/raw/en.jsonl", 7, [])
    assert hit.ingested_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_only_changes_are_indexed(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "ix"
    sync_index(conn, RELATION, path, batch_rows=2)
    add(conn, "new", "privacy for a new document")
    conn.execute("delete from documents where document_id = 'de'")
    conn.execute(
        "update documents set is_clean = false, failed_rule_names = ['c4_lorem_ipsum'] "
        "where document_id = 'en'"
    )
    asked: list[list[str]] = []

    @contextlib.contextmanager
    def narrow(keys: pa.Table) -> Iterator[duckdb.DuckDBPyConnection]:
        """Reads the relation on a connection of its own, given the ids of the rows it reads."""
        asked.append(sorted(keys["document_id"].to_pylist()))
        reader = conn.cursor()
        reader.register("narrowed_keys", keys)
        yield reader

    second = sync_index(conn, RELATION, path, batch_rows=2, narrow=narrow)
    assert asked == [["en", "new"]]  # the new and the changed row, not the unchanged ones
    assert (second.documents, second.added, second.deleted, second.rebuilt) == (5, 2, 2, False)
    assert ids(path, "privatsphare") == set()  # removed from the relation: gone from results
    assert ids(path, "privacy") == {"en", "new"}
    assert ids(path, "privacy", clean_only=True) == {"new"}
    assert match(path, "human")[0].failed_rule_names == ["c4_lorem_ipsum"]
    unchanged = sync_index(conn, RELATION, path)
    assert (unchanged.documents, unchanged.added, unchanged.deleted) == (5, 0, 0)
    assert sync_index(conn, RELATION, path, rebuild=True).added == 5


def test_interrupted_sync_indexes_nothing_twice(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ix"
    sync_index(conn, RELATION, path)
    assert not (path / "lakemix_sync.pending").exists()  # cleared with the state written
    add(conn, "new", "privacy again")

    def stop(*args: object) -> None:  # the process dies after Tantivy's commit, before the state
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr("lakemix.search.sync.os.replace", stop)
        with pytest.raises(KeyboardInterrupt):
            sync_index(conn, RELATION, path)
    assert (path / "lakemix_sync.pending").exists()
    assert len(match(path, "again")) == 1  # committed, but the state file is the one before
    again = sync_index(conn, RELATION, path)
    assert again.added == 1 and again.documents == 6
    assert [h.document_id for h in match(path, "again")] == ["new"]
    assert not (path / "lakemix_sync.pending").exists()


def test_sql_macro_and_errors(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "ix"
    with pytest.raises(SearchIndexError, match="no search index"):
        match(path, "privacy")
    sync_index(conn, RELATION, path)
    register(conn)
    conn.execute("create schema search")
    conn.execute(macro_sql("search", path))
    rows = conn.execute(
        "select document_id, score, language, failed_rule_names "
        "from search.match_documents('privacy human') order by score desc"
    ).fetchall()
    assert [r[0] for r in rows] == ["en", "de"] or [r[0] for r in rows] == ["en"]
    assert rows[0][1] > 0 and rows[0][2] == "en" and rows[0][3] == []
    assert conn.execute("select count(*) from search.match_documents('zzz')").fetchone() == (0,)
    with pytest.raises(ValueError, match="batch_rows"):
        sync_index(conn, RELATION, path, batch_rows=0)


def test_a_full_disk_is_named_with_the_room_left(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    # Tantivy's indexing thread dies on the write error and reports only that it was killed (a
    # 5M-document build met it): the error says where, and how much room the disk has.
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(small)], check=True)
    try:
        assert sync_index(conn, RELATION, small / "ix").documents == len(TEXTS)  # it fits
        conn.execute(
            "insert into documents select 'x' || i, true, 's', 'en', 0.9, null, 'f', 0, 'i', "
            "now(), [], null, (select string_agg(md5((i * 64 + j)::varchar), ' ') "
            "from range(32) as words(j)) from range(20000) as docs(i)"
        )
        with pytest.raises(SearchIndexError, match=r"small/ix failed .* MB free: make room"):
            sync_index(conn, RELATION, small / "ix", heap_bytes=15_000_000)
        # room made: the next sync indexes every document, nothing of the failed one is lost
        subprocess.run(["mount", "-o", "remount,size=256m", str(small)], check=True)
        result = sync_index(conn, RELATION, small / "ix", heap_bytes=15_000_000)
        assert (result.documents, result.added, result.rebuilt) == (
            20_000 + len(TEXTS),
            20_000,
            False,
        )
        assert ids(small / "ix", hashlib.md5(b"640000").hexdigest()) == {"x10000"}
    finally:
        subprocess.run(["umount", "--lazy", str(small)], check=True)  # the index may be open


def test_a_failed_write_with_room_left_does_not_blame_the_disk(tmp_path: Path) -> None:
    # Tantivy raises ValueError for every failure; the disk is named only when nearly full.
    refused = pytest.raises(SearchIndexError, match=r"\(bad field\); its disk has .* MB free$")
    with refused, _writing(tmp_path):
        raise ValueError("bad field")
