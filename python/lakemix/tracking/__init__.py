"""Experiment tracking: training runs in MLflow, linked to the releases they read, and back."""

from __future__ import annotations

from lakemix.tracking.tracker import RunTracker, TrackingWarning, reachable

__all__ = ["RunTracker", "TrackingWarning", "reachable"]
