"""Inline SVG charts for the static report: bars (grouped or stacked), histograms, lines."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948")
FONT = 'font-family="sans-serif" font-size="11"'


def _number(value: float) -> str:
    if value == int(value) and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.3g}"


def _legend(names: Sequence[str], x: float) -> str:
    return "".join(
        f'<rect x="{x}" y="{6 + 14 * i}" width="10" height="10" fill="{PALETTE[i]}"/>'
        f'<text x="{x + 14}" y="{15 + 14 * i}" {FONT}>{escape(name)}</text>'
        for i, name in enumerate(names)
    )


def bar_chart(
    categories: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    stacked: bool = False,
    value_label: str = "",
) -> str:
    """Vertical bars per category, one colour per series (side by side, or stacked).

    Args:
        categories: Labels along the x axis.
        series: Name -> one value per category.
        stacked: Stack the series instead of placing them side by side.
        value_label: Label of the y axis.
    """
    names = list(series)
    for name, values in series.items():
        if len(values) != len(categories):
            raise ValueError(f"series {name!r} has {len(values)} values for {len(categories)}")
    slot = max(14.0, 8.0 * (1 if stacked else len(names)) + 6)
    left, top, height = 56.0, 10.0, 180.0
    width = left + slot * len(categories) + 150
    totals = (
        [sum(v[i] for v in series.values()) for i in range(len(categories))]
        if stacked
        else [max((v[i] for v in series.values()), default=0.0) for i in range(len(categories))]
    )
    peak = max(totals, default=0.0) or 1.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{top + height + 70}"'
        f' role="img">',
        f'<line x1="{left}" y1="{top + height}" x2="{width - 150}" y2="{top + height}" '
        'stroke="#333"/>',
        f'<text x="4" y="{top + 8}" {FONT}>{_number(peak)}</text>',
        f'<text x="4" y="{top + height}" {FONT}>0</text>',
        f'<text x="4" y="{top + height / 2}" {FONT}>{escape(value_label)}</text>',
    ]
    bar = (slot - 6) / (1 if stacked else len(names))
    for i, category in enumerate(categories):
        x0 = left + slot * i + 3
        base = top + height
        for j, name in enumerate(names):
            value = float(series[name][i])
            h = height * value / peak
            x = x0 if stacked else x0 + bar * j
            y = base - h if stacked else top + height - h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(category)} '
                f"{escape(name)}: {_number(value)}</title></rect>"
            )
            if stacked:
                base -= h
        cx = x0 + (slot - 6) / 2
        parts.append(
            f'<text transform="translate({cx:.1f},{top + height + 6}) rotate(60)" {FONT}>'
            f"{escape(category)}</text>"
        )
    parts.append(_legend(names, width - 140))
    parts.append("</svg>")
    return "".join(parts)


def histogram(
    edges: Sequence[float],
    counts: dict[str, Sequence[int]],
    *,
    thresholds: Sequence[float] = (),
) -> str:
    """Stacked histogram over bins ``edges`` with dashed vertical lines at ``thresholds``."""
    bins = len(edges) - 1
    if bins < 1:
        raise ValueError(f"a histogram needs at least two bin edges, got {len(edges)}")
    left, top, height, plot = 44.0, 10.0, 120.0, 300.0
    totals = [sum(c[i] for c in counts.values()) for i in range(bins)]
    peak = max(totals, default=0) or 1
    lo, hi = float(edges[0]), float(edges[-1])
    span = (hi - lo) or 1.0

    def x_of(value: float) -> float:
        return left + plot * (value - lo) / span

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + plot + 110}" '
        f'height="{top + height + 30}" role="img">',
        f'<text x="4" y="{top + 8}" {FONT}>{peak:,}</text>',
        f'<text x="4" y="{top + height}" {FONT}>0</text>',
        f'<text x="{left}" y="{top + height + 14}" {FONT}>{_number(lo)}</text>',
        f'<text x="{left + plot}" y="{top + height + 14}" {FONT} text-anchor="end">'
        f"{_number(hi)}</text>",
    ]
    step = plot / bins
    for i in range(bins):
        base = top + height
        for j, (name, values) in enumerate(counts.items()):
            h = height * values[i] / peak
            parts.append(
                f'<rect x="{left + step * i:.1f}" y="{base - h:.1f}" width="{step - 1:.1f}" '
                f'height="{h:.1f}" fill="{PALETTE[j % len(PALETTE)]}"><title>'
                f"[{_number(edges[i])}, {_number(edges[i + 1])}) {escape(name)}: {values[i]:,}"
                "</title></rect>"
            )
            base -= h
    for threshold in thresholds:
        if lo <= threshold <= hi:
            x = x_of(threshold)
            parts.append(
                f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + height}" stroke="#000" '
                f'stroke-dasharray="4 3"><title>threshold {_number(threshold)}</title></line>'
            )
    parts.append(_legend(list(counts), left + plot + 8))
    parts.append("</svg>")
    return "".join(parts)


def line_chart(points: Sequence[tuple[float, float]], *, x_label: str, y_label: str) -> str:
    """Points joined in x order, each marked and labelled with its y; both axes labelled with
    their range (y from 0 to 1 when every value lies there, as accuracies do)."""
    if not points:
        raise ValueError("a line chart needs at least one point")
    ordered = sorted(points)
    left, top, height, plot = 56.0, 14.0, 140.0, 320.0
    xs, ys = [p[0] for p in ordered], [p[1] for p in ordered]
    x_lo, x_hi = min(xs), max(xs)
    y_lo, y_hi = (0.0, 1.0) if all(0 <= y <= 1 for y in ys) else (min(ys), max(ys))

    def at(x: float, y: float) -> tuple[float, float]:
        fx = (x - x_lo) / (x_hi - x_lo) if x_hi > x_lo else 0.5
        fy = (y - y_lo) / (y_hi - y_lo) if y_hi > y_lo else 0.5
        return left + plot * fx, top + height * (1 - fy)

    marks = [at(x, y) for x, y in ordered]
    path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(marks))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + plot + 40}" '
        f'height="{top + height + 44}" role="img">',
        f'<line x1="{left}" y1="{top + height}" x2="{left + plot}" y2="{top + height}" '
        'stroke="#333"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + height}" stroke="#333"/>',
        f'<text x="4" y="{top + 4}" {FONT}>{_number(y_hi)}</text>',
        f'<text x="4" y="{top + height}" {FONT}>{_number(y_lo)}</text>',
        f'<text x="{left}" y="{top + height + 14}" {FONT}>{_number(x_lo)}</text>',
        f'<text x="{left + plot}" y="{top + height + 14}" {FONT} text-anchor="end">'
        f"{_number(x_hi)}</text>",
        f'<text x="{left + plot / 2}" y="{top + height + 32}" {FONT} text-anchor="middle">'
        f"{escape(x_label)}</text>",
        f'<text x="12" y="{top + height / 2}" {FONT} transform="rotate(-90 12 '
        f'{top + height / 2})" text-anchor="middle">{escape(y_label)}</text>',
        f'<path d="{path}" fill="none" stroke="{PALETTE[0]}" stroke-width="1.5"/>',
    ]
    for (x, y), (_, value) in zip(marks, ordered, strict=True):
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{PALETTE[0]}"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{y - 6:.1f}" {FONT} text-anchor="middle">{value:.3f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def sparkline(values: Sequence[float | None], *, title: str = "") -> str:
    """A word-sized line of ``values`` in order (gaps where None), the last value dotted; its
    tooltip (``title``) lists them. Scaled to their own range."""
    width, height, pad = 90.0, 18.0, 2.0
    known = [v for v in values if v is not None]
    lo, hi = (min(known), max(known)) if known else (0.0, 1.0)
    step = (width - 2 * pad) / max(len(values) - 1, 1)

    def y_of(v: float) -> float:
        return pad + (height - 2 * pad) * (1 - ((v - lo) / (hi - lo) if hi > lo else 0.5))

    path, pen = [], "M"
    for i, v in enumerate(values):
        if v is None:
            pen = "M"
            continue
        path.append(f"{pen}{pad + i * step:.1f},{y_of(v):.1f}")
        pen = "L"
    last = max((i for i, v in enumerate(values) if v is not None), default=None)
    dot = (
        f'<circle cx="{pad + last * step:.1f}" cy="{y_of(values[last]):.1f}" r="2" '  # type: ignore[arg-type]
        f'fill="{PALETTE[1]}"/>'
        if last is not None
        else ""
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'role="img" style="vertical-align:middle"><title>{escape(title)}</title>'
        f'<path d="{" ".join(path)}" fill="none" stroke="{PALETTE[0]}" stroke-width="1.2"/>'
        f"{dot}</svg>"
    )
