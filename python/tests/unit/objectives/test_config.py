"""The objectives block: defaults, and errors that name the setting."""

from __future__ import annotations

import pytest

from lakemix.objectives.config import VAR, ObjectiveConfigError, parse_objectives


def test_nothing_declared_measures_nothing() -> None:
    objectives = parse_objectives({})
    assert (objectives.completeness, objectives.consistency, objectives.accuracy) == (
        None,
        None,
        None,
    )


def test_defaults_are_half_a_percent_one_percent_and_98_percent() -> None:
    objectives = parse_objectives(
        {
            VAR: {
                "completeness": {"columns": {"fct_clean_documents": ["language"]}},
                "consistency": {"fields": {"url_share": None, "language_score": {}}},
                "accuracy": None,
            }
        }
    )
    assert objectives.completeness is not None and objectives.consistency is not None
    assert objectives.accuracy is not None
    assert objectives.completeness.max_missing_fraction == 0.005
    assert [(f.name, f.kind, f.max_deviation) for f in objectives.consistency.fields] == [
        ("url_share", "rate", 0.01),
        ("language_score", "distribution", 0.01),
    ]
    assert (objectives.accuracy.min_good_share, objectives.accuracy.confidence) == (0.98, 0.95)
    assert objectives.accuracy.severity == "error"


def test_custom_field_and_per_field_threshold() -> None:
    objectives = parse_objectives(
        {
            VAR: {
                "consistency": {
                    "max_deviation": 0.02,
                    "fields": {
                        "words": {"kind": "mean", "column": "word_count", "max_deviation": 0.1},
                        "pii_share": {},
                    },
                }
            }
        }
    )
    assert objectives.consistency is not None
    words = objectives.consistency.fields[0]
    assert (words.name, words.kind, words.expression, words.max_deviation) == (
        "words",
        "mean",
        "word_count",
        0.1,
    )
    assert objectives.consistency.fields[1].max_deviation == 0.02


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ({"completness": {}}, r"unknown key\(s\) completness; allowed: accuracy, completeness"),
        ({"accuracy": {"min_good_share": 98}}, r"accuracy.min_good_share must be a fraction"),
        ({"accuracy": {"min_good_share": 1}}, r"in \(0, 1\) \(0.01 = 1%\), got 1"),
        ({"accuracy": {"severity": "fatal"}}, r"accuracy.severity must be error or warn"),
        ({"completeness": {}}, r"completeness.columns lists no column"),
        (
            {"completeness": {"columns": {"fct_clean_documents": "language"}}},
            r"columns.fct_clean_documents must be a list of column names",
        ),
        ({"consistency": {"fields": {"url_shares": {}}}}, r"unknown field 'url_shares'"),
        (
            {"consistency": {"fields": {"w": {"kind": "median", "column": "word_count"}}}},
            r"a custom field needs kind \(rate, mean, distribution\)",
        ),
        ({"consistency": {"fields": {"url_share": {"kind": "mean"}}}}, r"kind is fixed"),
        (
            {"consistency": {"min_documents": 0, "fields": {"url_share": {}}}},
            r"min_documents must be a whole number >= 1, got 0",
        ),
        ([], r"lakemix_quality_objectives. must be a mapping"),
    ],
)
def test_bad_blocks_name_the_setting(declared: object, message: str) -> None:
    with pytest.raises(ObjectiveConfigError, match=message):
        parse_objectives({VAR: declared})
