"""The base of lakemix's own errors."""

from __future__ import annotations


class LakemixError(Exception):
    """An error lakemix raises on purpose: its message names the offending value and the way out.

    Each subclass also keeps the built-in base that says its kind (``ValueError`` for bad
    input, ``LookupError`` for something not found, ``RuntimeError`` for a state that forbids
    the work), so callers may catch either. The ``lakemix`` command prints any of them as one
    line and exits with status 1, without a traceback.
    """
