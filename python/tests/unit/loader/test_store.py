"""Preload: DuckDB and the tokenizer, loaded in the background for a store's first build;
the bytes of text of each token id."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import orjson
import pytest

from lakemix.loader.store import Preload, preload_hint
from lakemix.settings import Settings


def settings_in(home: Path) -> Settings:
    return Settings.from_env({"LAKEMIX_HOME": str(home)})


def test_the_preloaded_connection_scans_iceberg(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    preload = Preload(settings)
    connection = preload.connection()
    loaded = connection.execute("select extension_name from duckdb_extensions() where loaded")
    assert {"avro", "iceberg"} <= {row[0] for row in loaded.fetchall()}
    again = preload.connection()  # taken already: a new one
    assert again is not connection
    preload.close()  # nothing left to close: the caller owns both
    assert connection.execute("select 1").fetchone() == (1,)
    connection.close()
    again.close()


def test_an_unused_connection_is_closed(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    preload = Preload(settings)
    future = preload._connection
    assert future is not None
    preload.close()
    connection = future.result()
    deadline = time.monotonic() + 10  # the callback closes it just after the result is set
    while time.monotonic() < deadline:
        try:
            connection.execute("select 1")
        except duckdb.ConnectionException:
            return
        time.sleep(0.01)
    pytest.fail("the unused connection is still open")


def test_the_hint_is_the_json_copy_s_tokenizer(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    assert preload_hint(None, settings) == "cl100k"
    assert preload_hint("v1", settings) == "cl100k"  # no JSON copy
    (tmp_path / "releases").mkdir()
    manifest = {
        "tag": "v1",
        "mix": "m",
        "released_at": "2026-12-05T00:00:00+00:00",
        "checksum": "1-0",
        "snapshots": {},
        "vars": {"lakemix_tokenizer": "o200k"},
    }
    (tmp_path / "releases" / "v1.json").write_bytes(orjson.dumps(manifest))
    assert preload_hint("v1", settings) == "o200k"
    (tmp_path / "releases" / "v2.json").write_bytes(b"{not json")
    assert preload_hint("v2", settings) == "cl100k"


def test_token_byte_lengths_count_each_tokens_text() -> None:
    """cl100k: an English word is one token of several bytes, an Armenian letter two tokens of
    one byte each (what makes its per-token loss low), end-of-text stands for no text."""
    from lakemix.loader.store import end_of_text, token_byte_lengths
    from lakemix.udf.tokens import _tokenizer

    lengths = token_byte_lengths("cl100k")
    encode = _tokenizer("cl100k").encode_ordinary
    for text in (" world", "Բարեւ աշխարհ", "東京", "hello, world"):
        ids = encode(text)
        assert int(lengths[ids].sum()) == len(text.encode()), text
    assert lengths[encode(" world")].tolist() == [6]
    assert lengths[encode("Բ")].tolist() == [1, 1]
    assert lengths[end_of_text("cl100k")] == 0
