"""Threshold proposals: relax only, never past the percentile, rounded the safe way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakemix.quality.proposal import propose, rejects

VALUES = np.arange(100, dtype=np.float64)  # 0, 1, ..., 99


def test_a_lower_bound_relaxes_to_the_percentile() -> None:
    assert propose(VALUES, ">=", 50, 2) == 2  # rank floor(2% of 100) = 2 from the bottom
    assert rejects(VALUES, ">=", 2).sum() == 2


def test_an_upper_bound_relaxes_to_the_percentile() -> None:
    assert propose(VALUES, "<=", 50, 2) == 97
    assert rejects(VALUES, "<=", 97).sum() == 2


def test_a_threshold_that_rejects_little_enough_stays() -> None:
    assert propose(VALUES, ">=", 1, 2) == 1
    assert propose(VALUES, "<=", 99.5, 2) == 99.5
    assert propose(VALUES, "<=", 98, 2) == 98  # rejects 1 of 100, under 2%


def test_proposals_are_rounded_to_three_decimals_towards_keeping() -> None:
    values = np.array([0.77777, 0.9, 0.95, 0.99])
    assert propose(values, ">=", 0.8, 10) == 0.777
    values = np.array([0.01, 0.02, 0.1, 0.12341])
    assert propose(values, "<=", 0.1, 10) == 0.124


def test_strict_operators_let_the_percentile_value_pass() -> None:
    values = np.array([0.5, 1.0, 1.0, 1.0])
    assert propose(values, ">", 0.8, 10) == 0.499
    assert propose(np.array([1.0, 1.0, 2.0]), "<", 1.5, 10) == 2.001


def test_null_signals_pass_and_are_not_counted() -> None:
    values = np.array([np.nan, np.nan, 3.0, 4.0])
    assert list(rejects(values, ">=", 3.5)) == [False, False, True, False]
    assert propose(values, ">=", 5, 10) == 3
    assert propose(np.array([np.nan]), ">=", 5, 10) == 5


@pytest.mark.parametrize("percentile", [0, 50, -1, 80])
def test_percentile_outside_zero_to_fifty_is_an_error(percentile: float) -> None:
    with pytest.raises(ValueError, match=f"percentile must be in \\(0, 50\\), got {percentile}"):
        propose(VALUES, ">=", 50, percentile)


def test_unknown_operator_is_an_error() -> None:
    with pytest.raises(ValueError, match="got '=='"):
        propose(VALUES, "==", 50, 2)


@given(
    values=st.lists(
        st.one_of(st.floats(0, 1e6, allow_nan=False), st.just(math.nan)), min_size=1, max_size=300
    ),
    operator=st.sampled_from([">=", ">", "<=", "<"]),
    current=st.floats(0, 1e6, allow_nan=False),
    percentile=st.floats(0.01, 49.99),
)
def test_a_proposal_only_relaxes_and_rejects_at_most_the_percentile(
    values: list[float], operator: str, current: float, percentile: float
) -> None:
    v = np.array(values)
    proposed = propose(v, operator, current, percentile)
    if operator in (">=", ">"):
        assert proposed <= current
    else:
        assert proposed >= current
    now, then = rejects(v, operator, current).sum(), rejects(v, operator, proposed).sum()
    measured = int((~np.isnan(v)).sum())
    assert then <= now
    assert then <= math.floor(percentile / 100 * measured)
