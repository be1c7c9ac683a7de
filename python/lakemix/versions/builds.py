"""What the dbt project looked like when it last built: build outcome, dependencies, config."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import yaml

from lakemix import duck
from lakemix.dbt.build_record import latest_build, latest_data_build, recorded_build
from lakemix.errors import LakemixError
from lakemix.mix import dependencies
from lakemix.settings import Settings
from lakemix.tables import CLEAN_DOCUMENTS, RAW, mix_table

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

INVOCATION = "lakemix.dbt_invocation_id"  # the snapshot property: which dbt run committed it


class BuildStateError(LakemixError, RuntimeError):
    """The project has not been built, or its last build did not pass."""


def last_build(settings: Settings) -> dict[str, Any]:
    """The last ``dbt build`` as recorded by the ``record_build_result`` on-run-end hook: from
    the catalog's ``meta.builds`` (readable while another build runs), else, for a lakehouse
    last built before lakemix recorded builds there, from the DuckDB file.

    Returns:
        ``invocation_id``, ``finished_at``, ``is_passed``, ``failures``, ``cli_vars`` and
        ``quality_thresholds`` (the seed's rows as built; None from the DuckDB file).

    Raises:
        BuildStateError: No build is recorded, or only in the DuckDB file a running dbt holds.
    """
    from lakemix.catalog import catalog

    found = latest_build(catalog(settings))
    if found is None:
        found = _recorded_in_duckdb(settings, "order by finished_at desc limit 1", [])
    if found is None:
        raise BuildStateError("no dbt build is recorded yet: run `dbt build`")
    return found


def check_tested(catalog: Catalog, tables: dict[str, Table]) -> None:
    """Refuse a release of ``tables`` (name -> table, at their current snapshots) that no
    passing ``dbt build`` stands behind.

    Three things must hold, each read from the lakehouse (not from the command that ran last):
    every snapshot a dbt run committed was committed by a ``dbt build`` recorded as passed (not
    a killed build, not a ``dbt run``, which tests nothing); the last build of the documents
    (not a ``lakemix mix build``, which builds only the mix's models) passed; and no raw table
    changed after it (an ingest or an ingest removal since is data no test has seen).

    Raises:
        BuildStateError: Which of the three fails, the table and the build named, and what to run.
    """
    written: dict[str, list[str]] = {}
    for name, table in sorted(tables.items()):
        snapshot = table.current_snapshot()
        summary = snapshot.summary if snapshot is not None else None
        invocation = summary.get(INVOCATION) if summary is not None else None
        if invocation:
            written.setdefault(invocation, []).append(name)
    for invocation, names in written.items():
        build = recorded_build(catalog, invocation)
        what = names[0] + (f" and {len(names) - 1} more" if len(names) > 1 else "")
        if build is None:
            raise BuildStateError(
                f"{what} were committed by dbt invocation {invocation}, which recorded no "
                "result (killed, or a `dbt run`, which runs no test): run `dbt build`"
            )
        if not build["is_passed"]:
            raise BuildStateError(
                f"{what} were committed by dbt build {invocation}, which failed "
                f"({'; '.join(build['failures'][:3])}): fix it and run `dbt build`"
            )
    last = latest_data_build(catalog)
    if last is None:
        return  # a lakehouse built before meta.builds: the caller's last_build check stands
    if not last["is_passed"]:
        raise BuildStateError(
            f"the last dbt build ({last['invocation_id']}) failed "
            f"({'; '.join(last['failures'][:3])}): fix it and run `dbt build`"
        )
    finished = datetime.fromisoformat(last["finished_at"]).timestamp() * 1000
    for name, table in sorted(tables.items()):
        snapshot = table.current_snapshot()
        if name.split(".")[0] == RAW and snapshot is not None and snapshot.timestamp_ms > finished:
            raise BuildStateError(
                f"{name} changed after the last dbt build ({last['invocation_id']}, finished "
                f"{last['finished_at']}): an ingest or a removal no test has seen; run `dbt build`"
            )


def build_of(settings: Settings, invocation_id: str) -> dict[str, Any] | None:
    """The recorded ``dbt build`` of ``invocation_id`` (like :func:`last_build`), or None when
    that invocation is not recorded (a ``dbt run``, or a build from before the record).

    Raises:
        BuildStateError: Only the DuckDB file could hold it, and it is missing or held by a
            running dbt.
    """
    from lakemix.catalog import catalog

    found = recorded_build(catalog(settings), invocation_id)
    if found is None:
        found = _recorded_in_duckdb(settings, "where invocation_id = ? limit 1", [invocation_id])
    return found


def _recorded_in_duckdb(
    settings: Settings, clause: str, parameters: list[Any]
) -> dict[str, Any] | None:
    """A build as the DuckDB file records it (a lakehouse last built before ``meta.builds``)."""
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
            f"from main.lakemix_builds {clause}",
            parameters,
        ).fetchone()
    except duckdb.CatalogException:
        row = None
    finally:
        conn.close()
    if row is None:
        return None
    return {
        "invocation_id": row[0],
        "finished_at": row[1].isoformat(),
        "is_passed": bool(row[2]),
        "failures": orjson.loads(row[3]),
        "cli_vars": orjson.loads(row[4]),
        "quality_thresholds": None,
    }


def mix_dependencies(name: str, catalog: Catalog, target: Path | None = None) -> list[str]:
    """Iceberg tables (``namespace.table``) mix ``name`` reads, itself included: as recorded in
    the lakehouse when it was built (``mix.dependencies.record``), else, for a mix built before
    lakemix recorded them, from dbt's manifest."""
    from pyiceberg.exceptions import NoSuchTableError

    try:
        found = dependencies.recorded(catalog.load_table(mix_table(name)))
    except NoSuchTableError:
        found = None
    return found if found is not None else dependencies.from_manifest(name, target)


def project_vars(root: Path, cli_vars: dict[str, Any]) -> dict[str, Any]:
    """The project's vars (dbt_project.yml) overridden by a build's --vars, without lakemix_mix."""
    project = yaml.safe_load((root / "dbt_project.yml").read_text()) or {}
    merged = {**(project.get("vars") or {}), **cli_vars}
    merged.pop("lakemix_mix", None)
    return merged


def data_vars(
    catalog: Catalog, settings: Settings, root: Path, last: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The project's vars as the build that wrote the current snapshot of the clean documents
    ran with (its ``--vars`` over dbt_project.yml): the filter, deduplication and tokenizer
    settings the released data was made under. Not the last build's: that is mostly the mix's own
    (``lakemix mix build`` passes only ``lakemix_mix``), after a ``dbt build --vars ...``. When
    that build is not recorded (a ``dbt run``, or a build from before the record), the last
    build's (``last``, when the caller has read it).

    Raises:
        BuildStateError: No build is recorded.
    """
    snapshot = catalog.load_table(CLEAN_DOCUMENTS).current_snapshot()
    summary = snapshot.summary if snapshot is not None else None
    invocation = summary.get("lakemix.dbt_invocation_id") if summary is not None else None
    build = build_of(settings, invocation) if invocation else None
    if build is None:
        build = last if last is not None else last_build(settings)
    return project_vars(root, build["cli_vars"])


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
