"""Raw files into the Iceberg tables ``raw.documents`` and ``raw.quarantine``."""

from __future__ import annotations

from lakemix.ingest.formats import FORMATS, UnknownFormatError
from lakemix.ingest.mapping import FieldMapping
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
