"""Inline SVG charts: shapes, values in tooltips, thresholds, bad input."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from lakemix.quality import svg

NS = "{http://www.w3.org/2000/svg}"


def test_bar_chart_draws_one_bar_per_value_scaled_to_the_peak() -> None:
    drawn = svg.bar_chart(["en", "de<"], {"raw": [10, 5], "clean": [4, 0]})
    root = ET.fromstring(drawn)  # well-formed, labels escaped
    bars = [r for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]
    assert len(bars) == 4
    heights = {r.find(f"{NS}title").text: float(r.get("height")) for r in bars}  # type: ignore[union-attr]
    assert heights["en raw: 10"] == 180.0 and heights["de< raw: 5"] == 90.0
    assert heights["en clean: 4"] == pytest.approx(72.0) and heights["de< clean: 0"] == 0.0


def test_stacked_bars_add_up() -> None:
    root = ET.fromstring(svg.bar_chart(["a"], {"x": [1], "y": [3]}, stacked=True))
    bars = [
        float(r.get("height")) for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None
    ]  # type: ignore[arg-type]
    assert sum(bars) == pytest.approx(180.0)


def test_histogram_draws_thresholds_inside_its_range_only() -> None:
    drawn = svg.histogram(
        [0.0, 0.5, 1.0], {"kept": [3, 1], "rejected": [0, 2]}, thresholds=[0.65, 5]
    )
    assert re.findall(r"<title>threshold ([^<]+)</title>", drawn) == ["0.65"]
    assert "[0.5, 1) rejected: 2" in drawn
    ET.fromstring(drawn)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="series 'x' has 1 values for 2"):
        svg.bar_chart(["a", "b"], {"x": [1]})
    with pytest.raises(ValueError, match="at least two bin edges"):
        svg.histogram([1.0], {"kept": []})
