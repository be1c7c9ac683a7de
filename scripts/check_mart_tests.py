"""Fail when a column of a mart has no data test of its own.

Usage: .venv/bin/python scripts/check_mart_tests.py MANIFEST

MANIFEST is a ``manifest.json`` of ``dbt parse`` (``make lint`` writes ``target/lint/``). The
marts are what the loader, the mixes, the report, lineage and the objectives read, so every
column of every enabled model under ``models/marts/`` needs at least one column-level data test
(a test whose ``column_name`` is that column, as dbt-coverage counts them). Prints the coverage
of each layer and the untested mart columns, and exits 1 when there are any.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

MARTS = "models/marts/"


def column_tests(manifest: dict[str, Any]) -> set[tuple[str, str]]:
    """``(model unique_id, column)`` of every column-level data test."""
    tested = set()
    for node in manifest["nodes"].values():
        column = node.get("column_name")
        attached = node.get("attached_node")
        if node["resource_type"] == "test" and column and attached:
            tested.add((attached, column.lower()))
    return tested


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    manifest = json.loads(Path(argv[0]).read_text())
    tested = column_tests(manifest)
    total: Counter[str] = Counter()
    covered: Counter[str] = Counter()
    untested = []
    for uid, node in sorted(manifest["nodes"].items()):
        if node["resource_type"] != "model":
            continue
        layer = node["original_file_path"].split("/")[1]
        for column in node["columns"]:
            total[layer] += 1
            if (uid, column.lower()) in tested:
                covered[layer] += 1
            elif node["original_file_path"].startswith(MARTS):
                untested.append(f"{node['name']}.{column}")
    for layer in sorted(total):
        print(f"columns with a test, {layer}: {covered[layer]}/{total[layer]}")
    if untested:
        print(f"mart columns without a test ({len(untested)}):", *untested, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
