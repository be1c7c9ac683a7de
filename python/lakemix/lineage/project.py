"""The dbt project as lineage sees it: relations, their compiled SQL and their columns."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakemix.errors import LakemixError
from lakemix.settings import target_path

KINDS = ("model", "seed", "snapshot", "source")


class LineageError(LakemixError, ValueError):
    """Lineage cannot be computed; the message names what is missing and the way out."""


@dataclass(frozen=True)
class Relation:
    """A table or view dbt knows about.

    Attributes:
        unique_id: dbt's id (``model.lakemix.fct_clean_documents``).
        kind: ``model``, ``seed``, ``snapshot`` or ``source``.
        label: How lineage names it: the model or seed name, ``<source>.<table>`` for a source.
        database: Database of the relation.
        schema: Schema (namespace) of the relation.
        name: Name of the relation in the database (a model's alias).
        sql: The compiled SQL of a model, or None (seeds, sources, models not compiled yet).
        columns: Column names, from the catalog when there is one, else as documented.
    """

    unique_id: str
    kind: str
    label: str
    database: str
    schema: str
    name: str
    sql: str | None
    columns: tuple[str, ...]


@dataclass(frozen=True)
class Project:
    """Every relation of a dbt project, and the sqlglot schema of all of them."""

    relations: tuple[Relation, ...]

    def find(self, schema: str, name: str) -> Relation | None:
        """The relation ``schema.name`` (case-insensitive), or None."""
        for relation in self.relations:
            if (relation.schema.lower(), relation.name.lower()) == (schema.lower(), name.lower()):
                return relation
        return None

    def in_schema(self, schema: str) -> list[str]:
        """Names of the relations in ``schema``, sorted."""
        return sorted(r.name for r in self.relations if r.schema.lower() == schema.lower())

    def sqlglot_schema(self) -> dict[str, dict[str, dict[str, dict[str, str]]]]:
        """``{database: {schema: {table: {column: type}}}}`` for sqlglot's qualifier."""
        schema: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
        for relation in self.relations:
            tables = schema.setdefault(relation.database, {}).setdefault(relation.schema, {})
            tables[relation.name] = {column: "unknown" for column in relation.columns}
        return schema


def load_project(target: Path | None = None) -> Project:
    """Read ``manifest.json`` (and ``catalog.json`` when ``dbt docs generate`` wrote one).

    Raises:
        LineageError: there is no manifest.
    """
    target = target or target_path()
    manifest_file = target / "manifest.json"
    if not manifest_file.is_file():
        raise LineageError(
            f"no dbt manifest at {manifest_file}: run `dbt build` or `dbt docs generate` first"
        )
    manifest = json.loads(manifest_file.read_text())
    catalog_file = target / "catalog.json"
    catalog = json.loads(catalog_file.read_text()) if catalog_file.is_file() else {}
    built = {**catalog.get("nodes", {}), **catalog.get("sources", {})}
    nodes = {**manifest.get("nodes", {}), **manifest.get("sources", {})}
    relations = [
        _relation(node, built.get(unique_id))
        for unique_id, node in nodes.items()
        if node.get("resource_type") in KINDS
    ]
    return Project(relations=tuple(sorted(relations, key=lambda r: r.unique_id)))


def _relation(node: dict[str, Any], built: dict[str, Any] | None) -> Relation:
    kind = node["resource_type"]
    if kind == "source":
        label = f"{node['source_name']}.{node['name']}"
        name = node.get("identifier") or node["name"]
    else:
        label = node["name"]
        name = node.get("alias") or node["name"]
    if built and built.get("columns"):
        ordered = sorted(built["columns"].values(), key=lambda c: c.get("index", 0))
        columns = tuple(str(c["name"]).lower() for c in ordered)
    else:
        columns = tuple(str(c).lower() for c in node.get("columns", {}))
    return Relation(
        unique_id=node["unique_id"],
        kind=kind,
        label=label,
        database=node.get("database") or "",
        schema=node["schema"],
        name=name,
        sql=node.get("compiled_code") if kind == "model" else None,
        columns=columns,
    )
