"""CSV text held in a value (a seed file recorded in a release manifest) as JSON rows."""

from __future__ import annotations

import csv
import io

import orjson

# Fields past the header's end (a malformed line) are kept under this key, not dropped.
EXTRA_KEY = "_extra"


def csv_json(text: str | None) -> str:
    """A CSV document, header line first, as a JSON array of objects keyed by the header.

    Quoting is the ``csv`` module's (a quoted field may hold commas and line breaks), and a
    column is found by its name, not its position. SQL macro use: ``from_json(
    lakemix_csv_json(text), '[{"rule": "VARCHAR", ...}]')``. ``None`` or empty text gives ``[]``.
    """
    rows = csv.DictReader(io.StringIO(text or "", newline=""), restkey=EXTRA_KEY)
    return orjson.dumps(list(rows)).decode()
