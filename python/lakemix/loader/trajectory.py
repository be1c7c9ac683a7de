"""A dynamic run's weights over its tokens, as text: a table of the changes and a plot.

``lakemix show --run`` prints both from a run record (``runs.py``): the table has a row where
the weights changed (at most ``MAX_ROWS``, spread over the run, under a linear schedule that
changes every step), the plot a line per group, a column per equal slice of the run's tokens,
each cell a block as high as the weight in force in the middle of the slice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

BLOCKS = " ▁▂▃▄▅▆▇█"  # weight 0, then eighths of the largest weight (any weight > 0: one)
MAX_ROWS = 24


def run_tokens(record: Mapping[str, Any]) -> int:
    """The run's tokens (every rank's) at the record's step: ``run_tokens`` (records written
    before it was kept: the last change's tokens plus one)."""
    if record.get("run_tokens"):
        return int(record["run_tokens"])
    return int(record["weights_trajectory"][-1]["tokens"]) + 1


def weight_at(rows: Sequence[Mapping[str, Any]], tokens: float, group: str) -> float:
    """The weight of ``group`` in force after ``tokens`` tokens (the rows in token order)."""
    current = 0.0
    for row in rows:
        if row["tokens"] > tokens:
            break
        current = float(row["weights"].get(group, 0.0))
    return current


def trajectory_table(record: Mapping[str, Any]) -> list[str]:
    """Lines of a table: step, tokens and each group's weight where the weights changed."""
    rows = record["weights_trajectory"]
    groups = sorted({g for row in rows for g in row["weights"]})
    shown = list(range(len(rows)))
    if len(rows) > MAX_ROWS:  # spread over the run, the last change always in
        shown = sorted({round(k * (len(rows) - 1) / (MAX_ROWS - 1)) for k in range(MAX_ROWS)})
    width = max(6, *(len(g) for g in groups))
    lines = [f"{'step':>8}  {'tokens':>12}  " + "  ".join(f"{g:>{width}}" for g in groups)]
    for k in shown:
        row = rows[k]
        cells = "  ".join(f"{row['weights'].get(g, 0.0):>{width}.3f}" for g in groups)
        lines.append(f"{row['step']:>8}  {row['tokens']:>12,}  {cells}")
    if len(shown) < len(rows):
        lines.append(f"({len(shown)} of {len(rows)} changes shown, spread over the run)")
    return lines


def trajectory_plot(record: Mapping[str, Any], width: int = 60) -> list[str]:
    """Lines of a plot: each group's weight over the run's tokens, ``width`` columns.

    Raises:
        ValueError: ``width`` < 1.
    """
    if width < 1:
        raise ValueError(f"a plot needs at least one column, got width {width}")
    rows = record["weights_trajectory"]
    groups = sorted({g for row in rows for g in row["weights"]})
    total = run_tokens(record)
    middles = [(c + 0.5) * total / width for c in range(width)]
    series = {g: [weight_at(rows, t, g) for t in middles] for g in groups}
    top = max((w for values in series.values() for w in values), default=0.0) or 1.0
    name = max(len(g) for g in groups) if groups else 5
    lines = [
        f"weight per group over the run's {total:,} tokens ({width} columns of "
        f"{total / width:,.0f} tokens; a full block is weight {top:.3f})"
    ]
    for g in groups:
        cells = "".join(
            BLOCKS[min(8, max(1, round(8 * w / top))) if w > 0 else 0] for w in series[g]
        )
        low, high = min(series[g]), max(series[g])
        lines.append(f"{g:>{name}} |{cells}| {low:.3f}-{high:.3f}")
    return lines
