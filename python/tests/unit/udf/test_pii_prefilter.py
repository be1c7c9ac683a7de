"""redact_pii's vectorized pre-filter changes no output: compared with the per-text redaction
as it was before the pre-filter (a copy kept here as the oracle)."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf import pii
from lakemix.udf.pii import CANDIDATE_PATTERN_RE2, redact_pii

from .test_pii import CARDS, EMAILS, IPV4S, IPV6S, NOT_PII, PHONES

# The oracle: find_pii and redact_pii before the pre-filter. Each pass ran when its hint matched
# the text as the earlier passes had masked it; card and phone passes on any digit.
_DIGIT = re.compile("[0-9]")
_ORACLE_HINTS = (re.compile("@"), pii._IPV6_HINT, pii._IPV4_HINT, _DIGIT, _DIGIT, _DIGIT)


def oracle_find(text: str) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for (placeholder, _, find), hint in zip(pii._PASSES, _ORACLE_HINTS, strict=True):
        spans = find(text) if hint.search(text) else []
        if spans:
            pieces, last = [], 0
            for start, end in spans:
                pieces += [text[last:start], "<", "\0" * (end - start - 2), ">"]
                last = end
                found.append((placeholder, start, end))
            text = "".join([*pieces, text[last:]])
    return sorted(found, key=lambda span: span[1])


def oracle_redact(text: str | None) -> dict[str, object]:
    if text is None:
        return dict.fromkeys(pii.FIELDS, 0) | {"text": None}
    pieces, last, counts = [], 0, dict.fromkeys(pii.FIELDS[1:], 0)
    field = dict(
        zip(("<EMAIL>", "<IP_ADDRESS>", "<PHONE_NUMBER>", "<CREDIT_CARD>"), counts, strict=True)
    )
    for placeholder, start, end in oracle_find(text):
        pieces += [text[last:start], placeholder]
        last = end
        counts[field[placeholder]] += 1
    row: dict[str, object] = {"text": "".join([*pieces, text[last:]])}
    return row | counts


def assert_same_as_oracle(texts: list[str | None]) -> None:
    assert redact_pii(pa.array(texts, pa.string())).to_pylist() == [oracle_redact(t) for t in texts]


# Pieces that make PII, near-PII and the separators the hints reason about (no-break space,
# "/", parentheses, "::"), between words that announce phone numbers and plain prose.
PIECES = [*EMAILS, *IPV4S, *IPV6S, *CARDS, *PHONES, *NOT_PII]
PIECES += ["tel: ", "Phone ", "fax ", " office", "call me at ", "Tél. ", "телефон: ", "电话 "]
PIECES += [" ", "\u00a0", ".", ",", ":", "::", "@", "-", "/", "(", ")", "+", "\n", "x", "é"]
PIECES += ["0", "1", "12", "123", "4567", "2019", "ab", "Cd", "the quick fox"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=14).map("".join))
def test_one_text_redacts_as_the_oracle(text: str) -> None:
    assert_same_as_oracle([text])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.none() | st.lists(st.sampled_from(PIECES), max_size=10).map("".join)))
def test_arrays_with_nulls_redact_as_the_oracle(texts: list[str | None]) -> None:
    assert_same_as_oracle(texts)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 \u00a0./()-+:@abx", max_size=40))
def test_digits_and_separators_redact_as_the_oracle(text: str) -> None:
    assert_same_as_oracle([f"tel: {text}", text])


@pytest.mark.parametrize(
    "text",
    [
        # The widest gap between two digits of a number: ") / (" in a loose number.
        "tel: 1 / (2) / (3) / (4) / (5) / (6) / (7)",
        "Phone: (12) 34 / (56) 78 9",
        "from 6e40:4041:c617:e898:c11:40d2:c669:2eb4 ok",
        "card 3782\u00a0822463 10005 and +46\u00a0(0)8 928 571 38",
    ],
)
def test_pii_at_the_edge_of_the_hints_is_redacted(text: str) -> None:
    assert re.search(CANDIDATE_PATTERN_RE2, text)
    [row] = redact_pii(pa.array([text])).to_pylist()
    assert row == oracle_redact(text)
    assert row["text"] != text


def test_texts_ruled_out_by_the_scan_hold_no_pii(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the scan rules out is returned as it came, with no Python pass run on it."""
    texts = ["in 2019, 45 people", "1,234,567 and 3.5 million", None, "", "v1.2.3", "a@b.co"]
    calls: list[str] = []
    original = pii.redact_text

    def counted(text: str, **options: object) -> tuple[str, int, int, int, int]:
        calls.append(text)
        return original(text, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(pii, "redact_text", counted)
    result = redact_pii(pa.array(texts)).to_pylist()
    assert calls == ["a@b.co"]
    assert [row["text"] for row in result] == [*texts[:-1], "<EMAIL>"]
