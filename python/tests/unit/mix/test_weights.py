from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lakemix.mix import weights

SIZES = st.dictionaries(
    st.sampled_from(["en", "de", "fr", "sw", "yo", "mt"]), st.floats(1, 1e9), min_size=1
)


def test_temperature_matches_the_formula() -> None:
    shares = weights.temperature({"en": 900.0, "sw": 100.0}, 0.3)
    p_en, p_sw = 0.9**0.3, 0.1**0.3
    assert shares["en"] == pytest.approx(p_en / (p_en + p_sw))
    assert shares["sw"] == pytest.approx(p_sw / (p_en + p_sw))


@given(SIZES, st.floats(0.01, 1.0))
def test_temperature_shares_sum_to_one_and_flatten(sizes: dict[str, float], alpha: float) -> None:
    shares = weights.temperature(sizes, alpha)
    assert sum(shares.values()) == pytest.approx(1.0)
    total = sum(sizes.values())
    smallest = min(sizes, key=lambda k: sizes[k])
    assert shares[smallest] >= sizes[smallest] / total - 1e-12  # alpha < 1 upsamples the tail


def test_unimax_worked_example() -> None:
    # budget 1,000; tail languages capped at 2 epochs, the rest shared equally
    tokens = weights.unimax({"yo": 10.0, "sw": 100.0, "de": 1_000.0, "en": 10_000.0}, 1_000, 2)
    assert tokens["yo"] == pytest.approx(20)
    assert tokens["sw"] == pytest.approx(200)
    assert tokens["de"] == pytest.approx(390)
    assert tokens["en"] == pytest.approx(390)


@given(SIZES, st.floats(1, 1e10), st.floats(0.5, 10))
def test_unimax_never_exceeds_epochs_or_budget(
    sizes: dict[str, float], budget: float, epochs: float
) -> None:
    tokens = weights.unimax(sizes, budget, epochs)
    assert sum(tokens.values()) <= budget * (1 + 1e-9)
    assert all(tokens[k] <= epochs * sizes[k] * (1 + 1e-9) for k in tokens)
