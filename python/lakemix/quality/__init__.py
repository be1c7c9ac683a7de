"""Data quality made visible: the HTML report."""

from __future__ import annotations

from lakemix.quality.data import ReportData
from lakemix.quality.report import ReportResult, write_report

__all__ = ["ReportData", "ReportResult", "write_report"]
