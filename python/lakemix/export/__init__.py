"""Exports of a release split to the formats trainers read: Megatron-LM, Parquet, JSON Lines."""

from __future__ import annotations

from lakemix.export.megatron import locate
from lakemix.export.run import FORMATS, ExportResult, export
from lakemix.export.source import ExportError, ReleaseDamagedError, ReleaseGoneError

__all__ = [
    "FORMATS",
    "ExportError",
    "ExportResult",
    "ReleaseDamagedError",
    "ReleaseGoneError",
    "export",
    "locate",
]
