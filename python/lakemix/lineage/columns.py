"""Column lineage: which upstream columns, down to source fields, a model column derives from.

Each model's compiled SQL is traced with sqlglot's lineage (dialect duckdb), through CTEs,
function calls (our UDFs) and struct field access; the columns it reads in other relations are
traced in turn, until seeds and sources (``raw.documents``) are reached.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.lineage import Node, lineage
from sqlglot.schema import Schema, ensure_schema

from lakemix import tables
from lakemix.lineage.project import LineageError, Project, Relation

DIALECT = "duckdb"
UNNAMED = re.compile(r"_col_\d+")
NO_UPSTREAM = "no upstream column: computed from constants or row counts"


@dataclass(frozen=True)
class ColumnLineage:
    """A column and the columns it is computed from (empty for a source field or a constant).

    Attributes:
        relation: The relation's label (model or seed name, ``raw.documents`` for a source).
        column: Column name.
        upstream: The columns of other relations this column is computed from.
        note: How the step was traced when it is not column by column, else "".
    """

    relation: str
    column: str
    upstream: tuple[ColumnLineage, ...] = ()
    note: str = ""

    @property
    def name(self) -> str:
        """``relation.column``."""
        return f"{self.relation}.{self.column}"


class LineageTracer:
    """Traces columns of one project; each model's SQL is analysed once."""

    def __init__(self, project: Project) -> None:
        self._project = project
        self._schema: Schema | None = None
        self._nodes: dict[str, dict[str, Node]] = {}
        self._done: dict[tuple[str, str], ColumnLineage] = {}

    def trace(self, relation: Relation, column: str) -> ColumnLineage:
        """The lineage of ``relation.column``, recursively down to seeds and sources."""
        return self._trace(relation, column.lower(), ())

    def _trace(
        self, relation: Relation, column: str, path: tuple[tuple[str, str], ...]
    ) -> ColumnLineage:
        key = (relation.unique_id, column)
        if key in self._done:
            return self._done[key]
        if relation.kind != "model" or key in path:
            return ColumnLineage(relation.label, column)
        inputs, note = self._inputs(relation, column)
        upstream = tuple(self._trace(rel, col, (*path, key)) for rel, col in inputs)
        result = ColumnLineage(
            relation.label, column, upstream, note or NO_UPSTREAM * (not upstream)
        )
        self._done[key] = result
        return result

    def _inputs(self, relation: Relation, column: str) -> tuple[list[tuple[Relation, str]], str]:
        """Columns of other relations that ``relation.column`` reads, and a note."""
        nodes = self._model_nodes(relation)
        note = ""
        if column in nodes:
            starts = [nodes[column]]
        else:
            # A column the SQL does not name comes out of an unnamed projection: DuckDB's
            # unnest() of a struct (a UDF result) makes one column per field.
            starts = [node for name, node in nodes.items() if UNNAMED.fullmatch(name)]
            if not starts:
                raise LineageError(
                    f"column {column} of {relation.label} is not in its compiled SQL; "
                    "run `dbt compile` (or `lakemix docs`) to refresh the manifest"
                )
            note = "a field of an unnamed struct projection (unnest)"
        found: dict[tuple[str, str], tuple[Relation, str]] = {}
        for start in starts:
            for node in start.walk():
                if not isinstance(node.expression, exp.Table):
                    continue
                table = node.expression
                upstream = self._project.find(table.db, table.name) if table.db else None
                name = node.name.rsplit(".", 1)[-1].lower()
                if upstream is not None:
                    if upstream.unique_id != relation.unique_id:
                        found.setdefault((upstream.unique_id, name), (upstream, name))
                    continue
                # sqlglot could not look inside this CTE (an UNPIVOT, say): every column of
                # the relations it reads is an input.
                for opaque in self._cte_relations(relation, table.name):
                    for col in opaque.columns:
                        found.setdefault((opaque.unique_id, col), (opaque, col))
                note = f"through {table.name} (opaque to sqlglot: every column it reads)"
        return sorted(found.values(), key=lambda rc: (rc[0].label, rc[1])), note

    def _model_nodes(self, relation: Relation) -> dict[str, Node]:
        if relation.unique_id not in self._nodes:
            if not relation.sql:
                raise LineageError(
                    f"model {relation.label} has no compiled SQL in the manifest: run `dbt "
                    "compile` or `dbt docs generate` (or `lakemix docs`) first"
                )
            if self._schema is None:
                tables: dict[str, object] = dict(self._project.sqlglot_schema())
                self._schema = ensure_schema(tables, dialect=DIALECT)
            try:
                with _quiet_sqlglot():
                    nodes = lineage(None, relation.sql, schema=self._schema, dialect=DIALECT)
            except SqlglotError as exc:
                raise LineageError(f"cannot trace model {relation.label}: {exc}") from exc
            self._nodes[relation.unique_id] = {name.lower(): n for name, n in nodes.items()}
        return self._nodes[relation.unique_id]

    def _cte_relations(self, relation: Relation, cte_name: str) -> list[Relation]:
        """Relations a CTE of the model reads, through the other CTEs it reads."""
        tree = sqlglot.parse_one(relation.sql or "", dialect=DIALECT)
        ctes = {cte.alias_or_name.lower(): cte for cte in tree.find_all(exp.CTE)}
        seen: set[str] = set()
        pending = [cte_name.lower()]
        found: dict[str, Relation] = {}
        while pending:
            name = pending.pop()
            if name in seen or name not in ctes:
                continue
            seen.add(name)
            for table in ctes[name].this.find_all(exp.Table):
                upstream = self._project.find(table.db, table.name) if table.db else None
                if upstream is not None:
                    found[upstream.unique_id] = upstream
                else:
                    pending.append(table.name.lower())
        return [found[k] for k in sorted(found)]


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning for a scope it cannot traverse; the lineage notes it instead."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def column_lineage(project: Project, column: str) -> ColumnLineage:
    """The lineage of ``<schema>.<table>.<column>`` (e.g. ``marts.fct_clean_documents.text``).

    Raises:
        LineageError: a malformed name, an unknown table or column (the message names the
            known ones), or a model that is not compiled.
    """
    parts = column.split(".")
    if len(parts) != 3 or not all(parts):
        raise LineageError(
            f"expected <schema>.<table>.<column> (e.g. {tables.CLEAN_DOCUMENTS}.text), "
            f"got {column!r}"
        )
    schema, table, name = parts
    relation = project.find(schema, table)
    if relation is None:
        known = ", ".join(project.in_schema(schema)) or "none"
        hint = (
            "; a mix is in the manifest only after dbt ran with the var lakemix_mix "
            "(`lakemix mix build NAME` or `lakemix docs --mix NAME`)"
            if tables.mix_of_any(table) is not None
            else ""
        )
        raise LineageError(f"no table {schema}.{table}; tables in {schema}: {known}{hint}")
    if name.lower() not in relation.columns:
        raise LineageError(
            f"{schema}.{table} has no column {name!r}; its columns: {', '.join(relation.columns)}"
        )
    return LineageTracer(project).trace(relation, name)
