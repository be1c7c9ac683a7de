"""Wilson lower bound and the number of verdicts a target needs."""

from __future__ import annotations

import math

import pytest

from lakemix.objectives.validation import verdicts_needed, wilson_lower_bound, z_score


def test_wilson_matches_the_formula() -> None:
    # 45 good of 50 at 95% (one-sided z = 1.64485, z^2 = 2.70554), by hand:
    # (0.9 + 0.027055 - 1.64485 * sqrt(0.0018 + 0.00027055)) / 1.054111 = 0.80846.
    assert wilson_lower_bound(45, 50, 0.95) == pytest.approx(0.80846, abs=1e-5)
    assert wilson_lower_bound(0, 0, 0.95) == 0.0
    # All good: n / (n + z^2).
    z = z_score(0.95)
    assert wilson_lower_bound(100, 100, 0.95) == pytest.approx(100 / (100 + z * z))


def test_98_percent_at_95_percent_confidence_needs_133_good_verdicts() -> None:
    assert verdicts_needed(0, 0, 0.98, 0.95) == 133
    assert math.ceil(0.98 * z_score(0.95) ** 2 / 0.02) == 133
    assert wilson_lower_bound(133, 133, 0.95) >= 0.98 > wilson_lower_bound(132, 132, 0.95)
    # One bad verdict among them costs many more good ones.
    needed = verdicts_needed(132, 133, 0.98, 0.95)
    assert wilson_lower_bound(132 + needed, 133 + needed, 0.95) >= 0.98
    assert wilson_lower_bound(131 + needed, 132 + needed, 0.95) < 0.98
    assert verdicts_needed(200, 200, 0.98, 0.95) == 0


def test_target_must_be_below_one() -> None:
    with pytest.raises(ValueError, match="target must be in"):
        verdicts_needed(1, 1, 1.0, 0.95)
