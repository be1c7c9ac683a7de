"""The portability check parses compiled SQL in each engine's dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakemix.spark.portability import ParseFailure, duckdb_functions, parse_compiled


def write(folder: Path, name: str, sql: str) -> None:
    path = folder / "models" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sql, encoding="utf-8")


SPARK_FUNCTIONS = {"explode", "transform", "lakemix_language"}


def test_duckdb_only_syntax_fails_as_spark(tmp_path: Path) -> None:
    write(tmp_path, "portable.sql", "select a, explode(b) as c from t")
    write(tmp_path, "struct_literal.sql", "select {'rule': rule, 'value': v} as failed from t")
    assert parse_compiled(tmp_path, dialect="duckdb") == (2, [])
    count, failures = parse_compiled(tmp_path, dialect="spark")
    assert count == 2
    assert [f.path.name for f in failures] == ["struct_literal.sql"]


def test_a_function_the_engine_lacks_fails(tmp_path: Path) -> None:
    write(tmp_path, "udf.sql", "select lakemix_language(text).language from t")
    write(
        tmp_path,
        "duckdb_only.sql",
        "select list_transform(l, x -> x.rule), md5_number_upper(k) from t",
    )
    assert parse_compiled(tmp_path, dialect="spark", functions=SPARK_FUNCTIONS)[1] == [
        ParseFailure(
            tmp_path / "models" / "duckdb_only.sql",
            "no such spark function: list_transform, md5_number_upper",
        )
    ]


def test_bad_dialect_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dialect must be one of"):
        parse_compiled(tmp_path, dialect="postgres")
    with pytest.raises(ValueError, match="no compiled SQL"):
        parse_compiled(tmp_path, dialect="spark")


def test_duckdb_functions_include_the_lakemix_udfs() -> None:
    names = duckdb_functions()
    assert {"lakemix_language", "lakemix_minhash_bands", "list_transform", "md5"} <= names
    assert {"lakemix_store_text", "lakemix_stored_text"} <= names  # the plugin's text store
