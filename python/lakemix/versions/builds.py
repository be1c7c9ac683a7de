"""What the dbt project looked like when it last built: build outcome, dependencies, config."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import yaml

from lakemix import duck
from lakemix.errors import LakemixError
from lakemix.settings import Settings, target_path

MIX_MODELS = ("model.lakemix.mix_documents", "model.lakemix.mix_languages")


class BuildStateError(LakemixError, RuntimeError):
    """The project has not been built, or its last build did not pass."""


def last_build(settings: Settings) -> dict[str, Any]:
    """The last ``dbt build`` as recorded by the ``record_build_result`` on-run-end hook.

    Raises:
        BuildStateError: No build is recorded, or the DuckDB file is held by a running dbt.
    """
    import duckdb

    if not settings.duckdb_path.is_file():
        raise BuildStateError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    try:
        conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    except duckdb.IOException as exc:
        raise BuildStateError(
            f"cannot read {settings.duckdb_path} (is dbt running?): {exc}"
        ) from None
    try:
        row = conn.execute(
            "select invocation_id, finished_at, is_passed, failures, cli_vars "
            "from main.lakemix_builds order by finished_at desc limit 1"
        ).fetchone()
    except duckdb.CatalogException:
        row = None
    finally:
        conn.close()
    if row is None:
        raise BuildStateError("no dbt build is recorded yet: run `dbt build`")
    return {
        "invocation_id": row[0],
        "finished_at": row[1].isoformat(),
        "is_passed": bool(row[2]),
        "failures": orjson.loads(row[3]),
        "cli_vars": orjson.loads(row[4]),
    }


def mix_dependencies(name: str, target: Path | None = None) -> list[str]:
    """Iceberg tables (``namespace.table``) mix ``name`` reads, itself included (dbt manifest).

    Mix models are enabled only while a mix is built, so disabled nodes count too; the two mix
    models are renamed to this mix's tables.
    """
    path = (target or target_path()) / "manifest.json"
    if not path.is_file():
        raise BuildStateError(f"{path} not found: run `dbt build` first")
    manifest = orjson.loads(path.read_bytes())
    nodes: dict[str, dict[str, Any]] = {**manifest["sources"]}
    for unique_id, versions in manifest.get("disabled", {}).items():
        nodes.setdefault(unique_id, versions[0])
    nodes.update(manifest["nodes"])
    renamed = {MIX_MODELS[0]: f"mix_{name}", MIX_MODELS[1]: f"mix_{name}_languages"}
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


def project_vars(root: Path, cli_vars: dict[str, Any]) -> dict[str, Any]:
    """The project's vars (dbt_project.yml) overridden by a build's --vars, without lakemix_mix."""
    project = yaml.safe_load((root / "dbt_project.yml").read_text()) or {}
    merged = {**(project.get("vars") or {}), **cli_vars}
    merged.pop("lakemix_mix", None)
    return merged


def config_files(root: Path, mix: str) -> dict[str, str]:
    """Seeds and the mix file, by path relative to the project: what a rebuild restores."""
    paths = [*sorted((root / "seeds").glob("*.csv")), root / "mixes" / f"{mix}.yml"]
    return {str(p.relative_to(root)): p.read_text() for p in paths if p.is_file()}


def config_hash(files: dict[str, str], variables: dict[str, Any]) -> str:
    """SHA-256 over the config files and vars, independent of dict order."""
    digest = hashlib.sha256()
    digest.update(orjson.dumps(variables, option=orjson.OPT_SORT_KEYS))
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + files[path].encode() + b"\0")
    return digest.hexdigest()
