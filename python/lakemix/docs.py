"""The dbt docs site, with each mart column's lineage appended to its description."""

from __future__ import annotations

import functools
import json
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from lakemix.dbt.runner import run_dbt
from lakemix.errors import LakemixError
from lakemix.lineage import LineageTracer, derivation_markdown, load_project
from lakemix.lineage.render import DERIVED
from lakemix.settings import project_root
from lakemix.tables import MARTS


class DocsError(LakemixError, RuntimeError):
    """The docs site could not be generated."""


def generate(*, mix: str | None = None, root: Path | None = None) -> Path:
    """Run ``dbt docs generate`` in the project root; the target folder it wrote.

    Args:
        mix: Document the mix models too, for this mix (dbt's var lakemix_mix).
        root: The dbt project (default: the one around the working directory).

    Raises:
        DocsError: dbt failed.
    """
    from lakemix.settings import target_path

    root = root or project_root() or Path.cwd()
    args = ["docs", "generate"]
    if mix is not None:
        args += ["--vars", json.dumps({"lakemix_mix": mix})]
    code = run_dbt(args, cwd=root).returncode
    if code != 0:
        raise DocsError(f"`dbt docs generate` failed (exit {code}); see its output above")
    return target_path(root)


def annotate(target: Path) -> int:
    """Append ``Derived from: ...`` to the description of every mart column in manifest.json.

    Returns:
        How many columns were annotated.
    """
    project = load_project(target)
    tracer = LineageTracer(project)
    manifest_file = target / "manifest.json"
    manifest: dict[str, Any] = json.loads(manifest_file.read_text())
    count = 0
    for relation in project.relations:
        if relation.kind != "model" or relation.schema != MARTS:
            continue
        documented = manifest["nodes"][relation.unique_id]["columns"]
        for column in relation.columns:
            entry = documented.setdefault(column, _column_entry(column))
            own = entry.get("description", "").split(f"**{DERIVED}**")[0].rstrip()
            lineage = derivation_markdown(tracer.trace(relation, column))
            entry["description"] = f"{own}\n\n{lineage}" if own else lineage
            count += 1
    manifest_file.write_text(json.dumps(manifest))
    return count


def _column_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": "",
        "meta": {},
        "data_type": None,
        "constraints": [],
        "quote": None,
        "tags": [],
    }


def serve(target: Path, *, port: int) -> ThreadingHTTPServer:
    """An HTTP server for the site in ``target`` on 127.0.0.1 (call ``serve_forever``)."""
    handler = functools.partial(_QuietHandler, directory=str(target))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep the terminal for the URL: requests are not logged."""
