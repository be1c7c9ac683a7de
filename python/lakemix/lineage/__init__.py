"""Lineage: of mart columns (sqlglot over the compiled models) and of single documents."""

from __future__ import annotations

from lakemix.lineage.columns import ColumnLineage, LineageTracer, column_lineage
from lakemix.lineage.project import LineageError, Project, Relation, load_project
from lakemix.lineage.render import derivation_markdown, format_tree, lineage_paths
from lakemix.lineage.rows import document_lineage, format_document

__all__ = [
    "ColumnLineage",
    "LineageError",
    "LineageTracer",
    "Project",
    "Relation",
    "column_lineage",
    "derivation_markdown",
    "document_lineage",
    "format_document",
    "format_tree",
    "lineage_paths",
    "load_project",
]
