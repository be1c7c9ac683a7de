"""analyses/explore.ipynb runs headless (nbclient) against the test lakehouse, so it never rots."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from lakemix import duck
from lakemix.settings import Settings
from tests.conftest import ROOT

NOTEBOOK = ROOT / "analyses" / "explore.ipynb"


def test_notebook_runs_and_shows_the_lakehouse(built: tuple[Settings, Path]) -> None:
    settings, _ = built
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(
        not c.get("outputs") for c in notebook.cells if c.cell_type == "code"
    )  # no stale output
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()  # raises CellExecutionError on the first failing cell
    shown = "\n".join(
        str(output.get("data", {}).get("text/plain", output.get("text", "")))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    top = conn.execute(
        "select rule, count(*) from (select unnest(failed_rule_names) as rule "
        "from marts.fct_document_rejections where duplicate_of_document_id is null) "
        "group by 1 order by 2 desc, 1 limit 1"
    ).fetchone()
    conn.close()
    assert str(settings.home) in shown and top is not None
    assert f"{top[0]}" in shown and f"{top[1]}" in shown
    assert "documents_v1" in shown and "tokens_now" in shown  # release v1 against now
    assert (
        sum(
            "image/svg+xml" in o.get("data", {})
            for c in notebook.cells
            for o in c.get("outputs", [])
        )
        == 2
    )
