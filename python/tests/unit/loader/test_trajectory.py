"""A dynamic run's weights over its tokens: the record's rows (across world sizes), the table
and the plot of ``lakemix show --run``."""

from __future__ import annotations

from typing import Any

import pytest

from lakemix.loader.dynamic import Clock, Clocks
from lakemix.loader.trajectory import trajectory_plot, trajectory_table, weight_at
from lakemix.loader.weights import Change, WeightHistory
from lakemix.mix.schedule import WeightSchedule

NAMES = ("de", "en", "sw")


def record(rows: list[dict[str, Any]], tokens: int) -> dict[str, Any]:
    return {"weights_trajectory": rows, "run_tokens": tokens}


def test_trajectory_names_each_change_at_its_own_step_across_world_sizes() -> None:
    # 2 ranks of 10 tokens a step until step 6 (120 tokens), then 1 rank
    clock = Clocks([Clock((0, 0), 10, 2), Clock((6, 120), 10, 1)])
    history = WeightHistory(NAMES, (0.2, 0.6, 0.2))
    history = history.with_change(Change(4, 80, (0.5, 0.25, 0.25)))
    history = history.with_change(Change(9, 150, (0.1, 0.1, 0.8)))
    rows = history.trajectory(clock.tokens_at, clock.steps_until, 12)
    assert [(r["step"], r["tokens"]) for r in rows] == [(0, 0), (4, 80), (9, 150)]
    assert rows[2]["weights"] == {"de": 0.1, "en": 0.1, "sw": 0.8}
    assert clock.tokens_at(12) == 180


def test_a_constant_schedule_lands_on_the_first_step_at_or_after_its_row() -> None:
    schedule = WeightSchedule(((0, {"en": 1.0}), (25, {"en": 0.5, "sw": 0.5})))
    history = WeightHistory(NAMES, (0.0, 1.0, 0.0), schedule)
    clock = Clocks([Clock((0, 0), 10, 1)])
    rows = history.trajectory(clock.tokens_at, clock.steps_until, 5)
    assert [(r["step"], r["tokens"]) for r in rows] == [(0, 0), (3, 30)]


def test_table_lists_every_change_and_spreads_long_ones() -> None:
    rows = [
        {"step": 10 * k, "tokens": 640 * k, "weights": {"en": 1 - k / 100, "sw": k / 100}}
        for k in range(100)
    ]
    short = trajectory_table(record(rows[:3], 2000))
    assert short[0].split() == ["step", "tokens", "en", "sw"]
    assert short[2].split() == ["10", "640", "0.990", "0.010"]
    long = trajectory_table(record(rows, 70000))
    assert long[-1] == "(24 of 100 changes shown, spread over the run)"
    assert long[-2].split()[0] == "990"  # the last change is always shown


def test_plot_draws_each_groups_weight_over_the_runs_tokens() -> None:
    rows = [
        {"step": 0, "tokens": 0, "weights": {"en": 1.0, "sw": 0.0}},
        {"step": 5, "tokens": 500, "weights": {"en": 0.5, "sw": 0.5}},
    ]
    lines = trajectory_plot(record(rows, 1000), width=10)
    assert "1,000 tokens" in lines[0] and "weight 1.000" in lines[0]
    assert lines[1] == "en |█████▄▄▄▄▄| 0.500-1.000"
    assert lines[2] == "sw |     ▄▄▄▄▄| 0.000-0.500"
    assert weight_at(rows, 499, "sw") == 0.0 and weight_at(rows, 500, "sw") == 0.5
    with pytest.raises(ValueError, match="width 0"):
        trajectory_plot(record(rows, 1000), width=0)
