"""Dynamic mixes: groups of documents and a schedule of their weights over a training run.

A mix file may add, to its static strategy (which decides what the release holds)::

    groups: {by: language, when_exhausted: repeat, max_epochs: 4}
    schedule:
      interpolation: constant          # or linear
      rows:
        - {at_tokens: 0, weights: {en: 0.6, de: 0.3, sw: 0.1}}
        - {at_tokens: 300000, weights: {en: 0.3, de: 0.3, sw: 0.4}}

``by`` is a column of ``marts.fct_clean_documents`` (``language``, ``source_id``, ...): each of its
values is a group, and each group is its own shuffled stream in the loader. The weights say
which share of the documents drawn comes from each group (a group a row does not name has weight
0 there). ``constant``: a row's weights hold from its ``at_tokens`` until the next row's;
``linear``: they move linearly in tokens between rows. Tokens are counted over every rank.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lakemix.errors import LakemixError

INTERPOLATIONS = ("constant", "linear")
WHEN_EXHAUSTED = ("repeat", "cap")
TOLERANCE = 1e-6  # how far from 1 a row's weights may sum


class ScheduleError(LakemixError, ValueError):
    """A groups or schedule setting that cannot be used; the message names it."""


@dataclass(frozen=True)
class Groups:
    """How a dynamic mix groups its documents.

    Attributes:
        by: The clean mart's column whose values are the groups.
        when_exhausted: ``repeat`` (a group's stream starts a new epoch, counted, with a warning
            beyond ``max_epochs``) or ``cap`` (a group stops after ``max_epochs`` epochs: its
            weight goes to the other groups).
        max_epochs: Epochs of a group a run may read (a warning or the cap beyond).
    """

    by: str = "language"
    when_exhausted: str = "repeat"
    max_epochs: float = 1.0


@dataclass(frozen=True)
class WeightSchedule:
    """Group weights over tokens seen: ``rows`` of ``(at_tokens, weights)``, the first at 0."""

    rows: tuple[tuple[int, dict[str, float]], ...]
    interpolation: str = "constant"

    @property
    def groups(self) -> tuple[str, ...]:
        """Every group a row names, sorted."""
        return tuple(sorted({g for _, w in self.rows for g in w}))

    def weights_at(self, tokens: float) -> dict[str, float]:
        """The weights in force after ``tokens`` tokens (every group a row names)."""
        names = self.groups
        index = max(k for k, (at, _) in enumerate(self.rows) if at <= tokens)
        at, here = self.rows[index]
        current = {g: here.get(g, 0.0) for g in names}
        if self.interpolation == "constant" or index == len(self.rows) - 1:
            return current
        nxt_at, nxt = self.rows[index + 1]
        t = (tokens - at) / (nxt_at - at)
        return {g: (1 - t) * current[g] + t * nxt.get(g, 0.0) for g in names}

    def group_tokens(self, budget: int) -> dict[str, float]:
        """Tokens each group gets over a run of ``budget`` tokens (the integral of its weight)."""
        points = [at for at, _ in self.rows if at < budget] + [budget]
        got = dict.fromkeys(self.groups, 0.0)
        for low, high in itertools.pairwise(points):
            start, end = self.weights_at(low), self.weights_at(high)
            for g in got:
                if self.interpolation == "constant":
                    got[g] += start[g] * (high - low)
                else:  # the end point is the next row's (or the last row's own) weight
                    got[g] += (start[g] + end[g]) / 2 * (high - low)
        return got


def check_weights(weights: Mapping[str, Any], where: str) -> dict[str, float]:
    """Weights as floats, each >= 0, summing to 1 (within ``TOLERANCE``).

    Raises:
        ScheduleError: A weight that is not a number >= 0, or a sum other than 1.
    """
    if not isinstance(weights, Mapping) or not weights:
        raise ScheduleError(f"{where}: must map groups to weights, got {weights!r}")
    out: dict[str, float] = {}
    for group, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, int | float) or w < 0 or w != w:
            raise ScheduleError(f"{where}.{group}: must be a number >= 0, got {w!r}")
        out[str(group)] = float(w)
    total = sum(out.values())
    if abs(total - 1.0) > TOLERANCE:
        raise ScheduleError(
            f"{where}: weights must sum to 1, got {total:.6g} ({out}); scale them so they do"
        )
    return out


def parse_groups(raw: Any, where: str) -> Groups:
    """The ``groups`` setting of a mix file.

    Raises:
        ScheduleError: An unknown key or a bad value, named.
    """
    if isinstance(raw, str):
        raw = {"by": raw}
    if not isinstance(raw, dict):
        raise ScheduleError(f"{where}: groups: must be a column name or a mapping, got {raw!r}")
    unknown = sorted(set(raw) - {"by", "when_exhausted", "max_epochs"})
    if unknown:
        raise ScheduleError(
            f"{where}: groups.{unknown[0]}: unknown setting; known: by, when_exhausted, max_epochs"
        )
    by = raw.get("by", "language")
    if not isinstance(by, str) or not by.isidentifier():
        raise ScheduleError(f"{where}: groups.by: must be a column name, got {by!r}")
    exhausted = raw.get("when_exhausted", "repeat")
    if exhausted not in WHEN_EXHAUSTED:
        raise ScheduleError(
            f"{where}: groups.when_exhausted: must be one of {', '.join(WHEN_EXHAUSTED)}, "
            f"got {exhausted!r}"
        )
    epochs = raw.get("max_epochs", 1)
    if isinstance(epochs, bool) or not isinstance(epochs, int | float) or epochs <= 0:
        raise ScheduleError(f"{where}: groups.max_epochs: must be a number > 0, got {epochs!r}")
    return Groups(by=by, when_exhausted=exhausted, max_epochs=float(epochs))


def parse_schedule(raw: Any, where: str) -> WeightSchedule:
    """The ``schedule`` setting of a mix file (a list of rows, or ``{interpolation, rows}``).

    Raises:
        ScheduleError: The first problem found, naming the row and the field.
    """
    if isinstance(raw, list):
        raw = {"rows": raw}
    if not isinstance(raw, dict) or set(raw) - {"interpolation", "rows"}:
        raise ScheduleError(f"{where}: schedule: must be a list of rows or {{interpolation, rows}}")
    interpolation = raw.get("interpolation", "constant")
    if interpolation not in INTERPOLATIONS:
        raise ScheduleError(
            f"{where}: schedule.interpolation: must be one of {', '.join(INTERPOLATIONS)}, "
            f"got {interpolation!r}"
        )
    rows = raw.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ScheduleError(f"{where}: schedule.rows: must be a non-empty list of rows")
    parsed: list[tuple[int, dict[str, float]]] = []
    for k, row in enumerate(rows):
        name = f"{where}: schedule.rows[{k}]"
        if not isinstance(row, dict) or set(row) != {"at_tokens", "weights"}:
            raise ScheduleError(f"{name}: must be {{at_tokens: N, weights: {{group: w, ...}}}}")
        at = row["at_tokens"]
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise ScheduleError(f"{name}.at_tokens: must be a whole number >= 0, got {at!r}")
        if parsed and at <= parsed[-1][0]:
            raise ScheduleError(
                f"{name}.at_tokens: {at} is not after the previous row's {parsed[-1][0]}"
            )
        parsed.append((at, check_weights(row["weights"], f"{name}.weights")))
    if parsed[0][0] != 0:
        raise ScheduleError(f"{where}: schedule.rows[0].at_tokens: the first row must be at 0")
    return WeightSchedule(rows=tuple(parsed), interpolation=interpolation)


def check_against_groups(
    schedule: WeightSchedule,
    groups: Groups,
    tokens: Mapping[str, float],
    budget: int,
    where: str,
) -> None:
    """Check a schedule against the tokens the mix holds per group, over a run of ``budget``.

    Raises:
        ScheduleError: A row names a group without data, or a group's share asks for more than
            ``max_epochs`` times its tokens while ``when_exhausted`` is ``repeat``.
    """
    unknown = [g for g in schedule.groups if tokens.get(g, 0) <= 0]
    if unknown:
        known = ", ".join(sorted(g for g, n in tokens.items() if n > 0)) or "none"
        raise ScheduleError(
            f"{where}: schedule names group(s) {', '.join(unknown)} that have no tokens in the mix "
            f"(groups by {groups.by}: {known})"
        )
    if groups.when_exhausted == "cap":
        return
    for group, wanted in sorted(schedule.group_tokens(budget).items()):
        limit = groups.max_epochs * tokens[group]
        if wanted > limit * (1 + TOLERANCE):
            epochs = wanted / tokens[group]
            raise ScheduleError(
                f"{where}: group {group!r} has {tokens[group]:,.0f} tokens in the mix, its share "
                f"of the {budget:,} token budget asks for {wanted:,.0f} ({epochs:.2f} epochs, "
                f"max_epochs {groups.max_epochs:g}): lower its weight, raise "
                "groups.max_epochs, or set groups.when_exhausted: cap"
            )
