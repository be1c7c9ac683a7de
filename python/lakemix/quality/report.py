"""``lakemix report``: the quality report of the lakehouse (or of a release) as one HTML file."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from lakemix.quality.data import ReportData, collect
from lakemix.quality.objectives_table import objective_rows
from lakemix.quality.page import render
from lakemix.quality.session import open_session
from lakemix.settings import Settings


@dataclass(frozen=True)
class ReportResult:
    """A written report: where, how large, how long it took, and what it shows."""

    path: Path
    size_bytes: int
    seconds: float
    data: ReportData


def default_path(tag: str | None, settings: Settings) -> Path:
    """``<home>/reports/quality-<tag or current>.html``."""
    return settings.home / "reports" / f"quality-{tag or 'current'}.html"


def write_report(
    path: Path | None = None, *, tag: str | None = None, settings: Settings | None = None
) -> ReportResult:
    """Query the lakehouse (current, or as released under ``tag``) and write the HTML report.

    Args:
        path: Output file (default ``default_path``).
        tag: A release tag: every table as the release pinned it, and its thresholds.
        settings: Lakehouse settings; read from the environment when omitted.
    """
    settings = settings or Settings.from_env()
    path = path or default_path(tag, settings)
    started = time.perf_counter()
    conn = open_session(tag, settings=settings)
    try:
        objectives = objective_rows(conn, tag=tag, settings=settings)
        data = collect(conn, version=tag or "current", objectives=objectives)
    finally:
        conn.close()
    html = render(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return ReportResult(
        path=path,
        size_bytes=path.stat().st_size,
        seconds=time.perf_counter() - started,
        data=data,
    )
