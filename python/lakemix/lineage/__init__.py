"""Column lineage of the dbt models, computed with sqlglot over their compiled SQL."""

from __future__ import annotations

from lakemix.lineage.columns import ColumnLineage, LineageTracer, column_lineage
from lakemix.lineage.project import LineageError, Project, Relation, load_project, target_path
from lakemix.lineage.render import derivation_markdown, format_tree, lineage_paths

__all__ = [
    "ColumnLineage",
    "LineageError",
    "LineageTracer",
    "Project",
    "Relation",
    "column_lineage",
    "derivation_markdown",
    "format_tree",
    "lineage_paths",
    "load_project",
    "target_path",
]
