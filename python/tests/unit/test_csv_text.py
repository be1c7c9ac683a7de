"""Seed files recorded in a release manifest are parsed as CSV, by column name."""

from __future__ import annotations

import orjson

from lakemix.dbt.csv_text import csv_json


def test_columns_by_name_and_quoted_commas() -> None:
    text = 'rule,language,threshold\n"min_words, strict",en,50\n"say ""hi""",*,0.5\n'
    assert orjson.loads(csv_json(text)) == [
        {"rule": "min_words, strict", "language": "en", "threshold": "50"},
        {"rule": 'say "hi"', "language": "*", "threshold": "0.5"},
    ]


def test_no_text_no_rows_and_extra_fields_kept() -> None:
    assert csv_json(None) == "[]"
    assert csv_json("") == "[]"
    assert orjson.loads(csv_json("a,b\n1,2,3\n")) == [{"a": "1", "b": "2", "_extra": ["3"]}]
