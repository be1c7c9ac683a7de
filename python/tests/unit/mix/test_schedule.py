"""Dynamic mixes in the mix file: groups, a weight schedule, and its checks at plan time."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lakemix.mix import MixSpecError, make_plan, parse

BASE: dict[str, Any] = {
    "name": "m",
    "token_budget": 1000,
    "strategy": {"kind": "explicit", "weights": {"en": 0.5, "sw": 0.5}},
    "seed": 1,
}
AVAILABLE = {("en", "web"): 5000.0, ("sw", "web"): 400.0, ("sw", "books"): 100.0}


def spec(**changes: Any) -> Any:
    return parse({**BASE, **changes}, "mixes/m.yml")


def rows(*pairs: tuple[int, dict[str, float]]) -> list[dict[str, Any]]:
    return [{"at_tokens": at, "weights": w} for at, w in pairs]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schedule": rows((0, {"en": 0.5, "sw": 0.4}))}, "rows[0].weights: weights must sum to 1"),
        ({"schedule": rows((10, {"en": 1.0}))}, "rows[0].at_tokens: the first row must be at 0"),
        (
            {"schedule": rows((0, {"en": 1.0}), (0, {"sw": 1.0}))},
            "rows[1].at_tokens: 0 is not after",
        ),
        ({"schedule": rows((0, {"en": -1, "sw": 2}))}, "rows[0].weights.en: must be a number"),
        (
            {"schedule": {"interpolation": "cubic", "rows": rows((0, {"en": 1.0}))}},
            "schedule.interpolation: must be one of",
        ),
        ({"groups": {"by": "language", "when_exhausted": "loop"}}, "when_exhausted: must be"),
        ({"groups": {"by": "language", "size": 3}}, "groups.size: unknown setting"),
    ],
)
def test_bad_schedules_name_the_field(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(MixSpecError, match=re.escape(message)):
        spec(**changes)


def test_weights_in_force_constant_and_linear() -> None:
    both = rows((0, {"en": 1.0}), (100, {"en": 0.2, "sw": 0.8}))
    constant = spec(schedule=both).schedule
    assert constant.weights_at(99) == {"en": 1.0, "sw": 0.0}
    assert constant.weights_at(100) == {"en": 0.2, "sw": 0.8}
    linear = spec(schedule={"interpolation": "linear", "rows": both}).schedule
    assert linear.weights_at(50) == pytest.approx({"en": 0.6, "sw": 0.4})
    assert linear.weights_at(500) == {"en": 0.2, "sw": 0.8}
    assert constant.group_tokens(200) == pytest.approx({"en": 120.0, "sw": 80.0})
    assert linear.group_tokens(200) == pytest.approx({"en": 80.0, "sw": 120.0})


def test_plan_checks_the_schedule_against_the_groups() -> None:
    ok = spec(schedule=rows((0, {"en": 0.5, "sw": 0.5})), groups={"by": "language"})
    assert ok.groups.by == "language"
    make_plan(ok, AVAILABLE)  # each: 500 tokens sampled, 500 asked
    unknown = spec(schedule=rows((0, {"en": 0.5, "de": 0.5})))
    with pytest.raises(MixSpecError, match=r"group\(s\) de that have no tokens.*en, sw"):
        make_plan(unknown, AVAILABLE)
    greedy = spec(schedule=rows((0, {"en": 0.1, "sw": 0.9})))
    with pytest.raises(MixSpecError, match=r"group 'sw' has 500 tokens.*asks for 900"):
        make_plan(greedy, AVAILABLE)
    allowed = {"by": "language", "max_epochs": 2}
    make_plan(spec(schedule=rows((0, {"en": 0.1, "sw": 0.9})), groups=allowed), AVAILABLE)
    capped = {"by": "language", "when_exhausted": "cap"}
    make_plan(spec(schedule=rows((0, {"en": 0.1, "sw": 0.9})), groups=capped), AVAILABLE)
    by_source = spec(schedule=rows((0, {"web": 0.5, "books": 0.5})), groups="source_id")
    with pytest.raises(MixSpecError, match="group 'books' has 100 tokens"):
        make_plan(by_source, AVAILABLE)
    other = spec(schedule=rows((0, {"a": 1.0})), groups="quality_bucket")
    with pytest.raises(MixSpecError, match="pass the tokens per group"):
        make_plan(other, AVAILABLE)
    make_plan(other, AVAILABLE, group_tokens={"a": 5000.0})
