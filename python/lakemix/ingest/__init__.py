"""Raw files into the Iceberg tables ``raw.documents`` and ``raw.quarantine``.

``ingest`` and its results are imported on first use: ``run`` imports pyiceberg and pyarrow
(half a second), which a command that only names the formats (the CLI's ``--format`` choices,
read by every ``lakemix`` command at start) should not pay.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lakemix.ingest.formats import FORMATS, UnknownFormatError
from lakemix.ingest.mapping import FieldMapping

if TYPE_CHECKING:
    from lakemix.ingest.run import FileResult, IngestInputError, IngestResult, ingest

__all__ = [
    "FORMATS",
    "FieldMapping",
    "FileResult",
    "IngestInputError",
    "IngestResult",
    "UnknownFormatError",
    "ingest",
]

_IN_RUN = frozenset({"FileResult", "IngestInputError", "IngestResult", "ingest"})


def __getattr__(name: str) -> Any:
    if name in _IN_RUN:
        return getattr(importlib.import_module("lakemix.ingest.run"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
