"""Relax-only thresholds from a percentile of clean reference values.

For a rule ``value <operator> threshold`` and the values of n clean reference documents (nulls
left out: a null signal passes every rule), the proposal at percentile ``p`` is:

* a ``>=`` (or ``>``) rule: ``min(current, v)``, ``v`` the value of rank ``floor(p / 100 * n)``
  from the bottom (0: the smallest), rounded down to 3 decimals (FineWeb-2's precision);
* a ``<=`` (or ``<``) rule: ``max(current, v)``, ``v`` the value of that rank from the top,
  rounded up.

So a proposal rejects at most ``p`` percent of the reference, and never more than the current
threshold does. It never tightens a rule: text the user calls clean is evidence about what
clean text looks like, not about what junk looks like; a stricter junk limit would need junk to
measure, and stays with the configs (FineWeb-2's per-language values).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np

LOWER_BOUNDS = (">=", ">")
UPPER_BOUNDS = ("<=", "<")
_STEP = Decimal("0.001")


def rejects(values: np.ndarray, operator: str, threshold: float) -> np.ndarray:
    """Which ``values`` fail ``value <operator> threshold``; NaN (a null signal) passes.

    Raises:
        ValueError: If ``operator`` is not one of >=, >, <=, <.
    """
    with np.errstate(invalid="ignore"):
        if operator == ">=":
            passed = values >= threshold
        elif operator == ">":
            passed = values > threshold
        elif operator == "<=":
            passed = values <= threshold
        elif operator == "<":
            passed = values < threshold
        else:
            raise ValueError(f"operator must be one of >=, >, <=, <, got {operator!r}")
    return np.asarray(~passed & ~np.isnan(values))


def propose(values: np.ndarray, operator: str, current: float, percentile: float) -> float:
    """The relax-only threshold at ``percentile`` of ``values`` (see the module docstring).

    Args:
        values: The signal of each reference document (NaN: no value, ignored).
        operator: The rule's operator.
        current: The threshold that applies now.
        percentile: ``p`` in (0, 50): the proposal rejects at most p percent of the values.

    Returns:
        ``current`` when it already rejects no more than that, else a looser threshold.

    Raises:
        ValueError: If ``percentile`` is not in (0, 50) or ``operator`` is unknown.
    """
    if not 0 < percentile < 50:
        raise ValueError(f"percentile must be in (0, 50), got {percentile!r}")
    present = np.sort(values[~np.isnan(values)])
    if present.size == 0:
        return current
    rank = math.floor(percentile / 100 * present.size)
    lower = operator in LOWER_BOUNDS
    if not lower and operator not in UPPER_BOUNDS:
        raise ValueError(f"operator must be one of >=, >, <=, <, got {operator!r}")
    value = float(present[rank] if lower else present[present.size - 1 - rank])
    if not rejects(np.array([value]), operator, current)[0]:
        return current  # that document passes: at most `rank` documents fail now
    rounded = Decimal(repr(value)).quantize(_STEP, ROUND_FLOOR if lower else ROUND_CEILING)
    if rejects(np.array([value]), operator, float(rounded))[0]:  # a strict operator at the value
        rounded += -_STEP if lower else _STEP
    return float(rounded)
