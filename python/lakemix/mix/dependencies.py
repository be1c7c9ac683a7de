"""The Iceberg tables a mix reads, recorded in the lakehouse when the mix is built.

dbt knows them (``target/manifest.json``), but ``target/`` is a build artifact outside the
lakehouse: a lakehouse restored from a copy, beside a ``target/`` from a later build whose mix
models were disabled, would no longer know them. ``lakemix mix build`` therefore records them
as a property of ``marts.mix_<name>`` right after its build, and a release reads them there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from lakemix.errors import LakemixError
from lakemix.settings import target_path
from lakemix.tables import mix_languages_model, mix_model, mix_table

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

MIX_MODELS = ("model.lakemix.mix_documents", "model.lakemix.mix_languages")
PROPERTY = "lakemix.mix_dependencies"


class DependenciesError(LakemixError, RuntimeError):
    """Neither the lakehouse nor dbt's manifest says which tables a mix reads."""


def from_manifest(name: str, target: Path | None = None) -> list[str]:
    """Iceberg tables (``namespace.table``) mix ``name`` reads, itself included (dbt manifest).

    Mix models are enabled only while a mix is built, so disabled nodes count too; the two mix
    models are renamed to this mix's tables.
    """
    path = (target or target_path()) / "manifest.json"
    if not path.is_file():
        raise DependenciesError(f"{path} not found: run `lakemix mix build {name}` first")
    manifest = orjson.loads(path.read_bytes())
    nodes: dict[str, dict[str, Any]] = {**manifest["sources"]}
    for unique_id, versions in manifest.get("disabled", {}).items():
        nodes.setdefault(unique_id, versions[0])
    nodes.update(manifest["nodes"])
    renamed = {MIX_MODELS[0]: mix_model(name), MIX_MODELS[1]: mix_languages_model(name)}
    tables, seen, todo = set(), set(), list(MIX_MODELS)
    while todo:
        unique_id = todo.pop()
        if unique_id in seen or unique_id not in nodes:
            continue
        seen.add(unique_id)
        node = nodes[unique_id]
        if node["resource_type"] == "source":
            tables.add(f"{node['schema']}.{node['identifier']}")
        elif node["resource_type"] == "model":
            if node["config"].get("materialized") == "iceberg":
                alias = renamed.get(unique_id) or node.get("alias") or node["name"]
                tables.add(f"{node['schema']}.{alias}")
            todo.extend(node.get("depends_on", {}).get("nodes", []))
    return sorted(tables)


def record(catalog: Catalog, name: str, target: Path | None = None) -> list[str]:
    """Store the tables mix ``name`` reads (from the manifest of the build that just ran) on
    ``marts.mix_<name>``; returns them."""
    from lakemix.iceberg import commit_with_retry

    tables = from_manifest(name, target)
    value = orjson.dumps(tables).decode()

    def attempt(table: Table) -> None:
        if table.metadata.properties.get(PROPERTY) != value:
            with table.transaction() as tx:
                tx.set_properties({PROPERTY: value})

    commit_with_retry(catalog, mix_table(name), attempt)
    return tables


def recorded(table: Table) -> list[str] | None:
    """What ``record`` stored on a mix's table, if it did."""
    raw = table.metadata.properties.get(PROPERTY)
    return None if raw is None else [str(t) for t in orjson.loads(raw)]
