"""lakemix: raw text corpora into clean, deduplicated, versioned LLM pre-training mixes."""

from __future__ import annotations

from lakemix.catalog import catalog
from lakemix.settings import Settings

__version__ = "0.1.0"

__all__ = ["Settings", "__version__", "catalog"]
