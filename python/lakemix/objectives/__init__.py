"""Data-quality objectives declared once in the project, measured for reports and releases."""

from __future__ import annotations

from lakemix.objectives.config import ObjectiveConfigError, Objectives, parse_objectives
from lakemix.objectives.evaluate import ObjectiveResult, evaluate
from lakemix.objectives.validation import verdicts_needed, wilson_lower_bound

__all__ = [
    "ObjectiveConfigError",
    "ObjectiveResult",
    "Objectives",
    "evaluate",
    "parse_objectives",
    "verdicts_needed",
    "wilson_lower_bound",
]
