"""The group weights of a dynamic mix over a run: its schedule, then every change made online.

Weights are a function of the tokens seen by every rank (the run's clock, the same on any
number of ranks): the mix file's schedule (``lakemix.mix.schedule``), until the first change
made with ``MixLoader.set_weights``; from then on the latest change at or before that count.
A change is kept with the step it was asked for and the tokens that step starts at, so a
resumed run applies it at the same place, and the run record shows the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lakemix.mix.schedule import TOLERANCE, WeightSchedule


def weight_vector(
    weights: Mapping[str, float], groups: Sequence[str], where: str = "weights"
) -> NDArray[np.float64]:
    """Weights by group name as a vector in ``groups`` order (an unnamed group gets 0).

    Raises:
        ValueError: A group that is not one of ``groups``, a weight < 0, or a sum other than 1.
    """
    unknown = sorted(set(weights) - set(groups))
    if unknown:
        raise ValueError(
            f"{where}: unknown group(s) {', '.join(unknown)}; the groups are {', '.join(groups)}"
        )
    vector = np.array([float(weights.get(g, 0.0)) for g in groups], dtype=np.float64)
    if (vector < 0).any() or not np.isfinite(vector).all():
        raise ValueError(f"{where}: weights must be finite numbers >= 0, got {dict(weights)}")
    if abs(float(vector.sum()) - 1.0) > TOLERANCE:
        raise ValueError(f"{where}: weights must sum to 1, got {float(vector.sum()):.6g}")
    return vector


@dataclass(frozen=True)
class Change:
    """Weights set online: in force from ``at_tokens`` on (asked for step ``at_step``)."""

    at_step: int
    at_tokens: int
    weights: tuple[float, ...]


@dataclass(frozen=True)
class WeightHistory:
    """The weights of every group at every point of a run (immutable: ``with_change`` adds).

    Attributes:
        groups: The group names, in the loader's order.
        initial: The weights without schedule and before any change.
        schedule: The mix file's schedule, if any.
        changes: Changes made online, in order of ``at_tokens``.
    """

    groups: tuple[str, ...]
    initial: tuple[float, ...]
    schedule: WeightSchedule | None = None
    changes: tuple[Change, ...] = ()

    def at(self, tokens: int) -> NDArray[np.float64]:
        """The weights in force after ``tokens`` tokens of the run."""
        for change in reversed(self.changes):
            if change.at_tokens <= tokens:
                return np.array(change.weights)
        if self.schedule is None:
            return np.array(self.initial)
        w = self.schedule.weights_at(tokens)
        return np.array([w.get(g, 0.0) for g in self.groups])

    def next_change(self, tokens: int) -> int | None:
        """The first token count after ``tokens`` where the weights may differ; None if never."""
        later = [c.at_tokens for c in self.changes if c.at_tokens > tokens]
        if self.changes and self.changes[0].at_tokens <= tokens:
            return min(later, default=None)  # the schedule no longer applies
        if self.schedule is not None:
            rows = [at for at, _ in self.schedule.rows]
            if self.schedule.interpolation == "linear" and tokens < rows[-1]:
                later.append(tokens + 1)  # every step
            later += [at for at in rows if at > tokens]
        return min(later, default=None)

    def with_change(self, change: Change) -> WeightHistory:
        """This history with ``change`` added (changes at or after its tokens are replaced)."""
        kept = tuple(c for c in self.changes if c.at_tokens < change.at_tokens)
        return WeightHistory(self.groups, self.initial, self.schedule, (*kept, change))

    def to_dict(self) -> dict[str, Any]:
        """The changes (the schedule is the release's), JSON-able: ``changes_from`` reads it."""
        return {
            "groups": list(self.groups),
            "changes": [[c.at_step, c.at_tokens, list(c.weights)] for c in self.changes],
        }

    def changes_from(self, data: Mapping[str, Any]) -> WeightHistory:
        """This history with the changes of a saved one (``to_dict``).

        Raises:
            ValueError: The saved history is of other groups.
        """
        if list(data["groups"]) != list(self.groups):
            raise ValueError(
                f"the state's groups {data['groups']} are not this loader's {list(self.groups)}"
            )
        changes = tuple(Change(int(s), int(t), tuple(map(float, w))) for s, t, w in data["changes"])
        return WeightHistory(self.groups, self.initial, self.schedule, changes)

    def trajectory(
        self, tokens_at: Callable[[int], int], step_of: Callable[[int], int], steps: int
    ) -> list[dict[str, Any]]:
        """Where the weights changed over the run's first ``steps`` steps: ``{step, tokens,
        weights}`` rows (the first at 0; under a linear schedule every step until its last row).

        Args:
            tokens_at: The run's tokens when a step starts.
            step_of: The first step that starts at or after a count of the run's tokens.
            steps: The steps to cover.
        """
        rows: list[dict[str, Any]] = []
        tokens: int | None = 0
        end = tokens_at(steps)
        while tokens is not None and tokens < end:
            step = step_of(tokens)
            at = tokens_at(step)
            w = self.at(at)
            rows.append(
                {
                    "step": step,
                    "tokens": at,
                    "weights": dict(zip(self.groups, w.round(6).tolist(), strict=True)),
                }
            )
            tokens = self.next_change(at)
        return rows
