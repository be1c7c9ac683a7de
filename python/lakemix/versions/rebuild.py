"""``lakemix rebuild TAG``: re-materialize a release from its raw snapshot and recorded config."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import yaml

from lakemix import duck
from lakemix.catalog import READS_FROM
from lakemix.catalog import catalog as open_catalog
from lakemix.dbt.runner import dbt_executable, run_dbt
from lakemix.git import git_state
from lakemix.iceberg import ensure_namespace
from lakemix.iceberg.views import PIN_VARIABLE, scan_sql
from lakemix.settings import Settings, project_root
from lakemix.tables import CLEAN_DOCUMENTS, ON_REQUEST, RAW, mix_table, split
from lakemix.versions.checksum import mix_checksum
from lakemix.versions.release import ReleaseError, get_release

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

PROJECT_PARTS = ("dbt_project.yml", "profiles.yml", "models", "macros", "tests", "seeds", "mixes")
PROJECT_PARTS_OPTIONAL = ("snapshots", "analyses")
# The scratch lakehouse gets its own catalog, DuckDB file and dbt folders.
OVERRIDDEN = ("LAKEMIX_CATALOG_URI", "LAKEMIX_WAREHOUSE", "LAKEMIX_DUCKDB_PATH", PIN_VARIABLE)


@dataclass(frozen=True)
class RebuildResult:
    """What a rebuild produced.

    Attributes:
        tag: The release.
        expected: The checksum recorded at release time.
        checksum: The checksum of the rebuilt mix.
        directory: The scratch project and lakehouse (removed after a match unless kept).
        warnings: Why the rebuild may legitimately differ (models changed since the release).
    """

    tag: str
    expected: str
    checksum: str
    directory: Path
    warnings: tuple[str, ...]

    @property
    def is_identical(self) -> bool:
        return self.checksum == self.expected


def _scratch_project(root: Path, directory: Path, manifest: Manifest) -> Path:
    """A copy of the project with the release's seeds, mix file and vars restored; a seed
    added since the release keeps only its header."""
    project = directory / "project"
    project.mkdir(parents=True)
    for part in PROJECT_PARTS + PROJECT_PARTS_OPTIONAL:
        source = root / part
        if source.is_dir():
            shutil.copytree(source, project / part)
        elif source.is_file():
            shutil.copy2(source, project / part)
        elif part in PROJECT_PARTS:
            raise ReleaseError(f"{source} is missing: cannot rebuild outside a complete project")
    for relative, content in manifest.config_files.items():
        target = project / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    # Every seed is recorded, so a seed the release lacks came later: it had no rows then (a
    # release from before seeds/calibrated_thresholds.csv rebuilds without calibration).
    for seed in sorted((project / "seeds").glob("*.csv")):
        if str(seed.relative_to(project)) not in manifest.config_files:
            seed.write_text(seed.read_text(encoding="utf-8").split("\n", 1)[0] + "\n")
    config = yaml.safe_load((project / "dbt_project.yml").read_text())
    config["vars"] = {**manifest.vars, "lakemix_mix": None}
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return project


def _register_raw(manifest: Manifest, live: Settings, scratch: Settings) -> dict[str, int]:
    """Register the live raw tables (and the lists of ``ON_REQUEST`` the release read) in the
    scratch catalog; returns the release's pins.

    The current metadata is registered (it still lists the tagged snapshot: tags protect it
    from gc), so nothing is copied and the scratch build only reads it.
    """
    source, catalog = open_catalog(live), open_catalog(scratch)
    pins = {}
    for name, entry in manifest.snapshots.items():
        # the raw tables, and the lists the build read (block lists, benchmarks) as released
        if name.startswith(f"{RAW}.") or name in ON_REQUEST:
            namespace, _ = split(name)
            ensure_namespace(catalog, namespace)
            # Declared, so the scratch catalog accepts tables outside its own warehouse.
            catalog.update_namespace_properties(namespace, updates={READS_FROM: live.warehouse})
            catalog.register_table(name, source.load_table(name).metadata_location)
            pins[name] = entry.snapshot_id
    if not pins:
        raise ReleaseError(f"release {manifest.tag} records no raw table to rebuild from")
    return pins


def _check(done: subprocess.CompletedProcess[str], cmd: list[str], *, quiet: bool) -> None:
    if done.returncode != 0:
        tail = (done.stdout or "")[-3000:] if quiet else ""
        raise ReleaseError(f"`{' '.join(cmd[:3])} ...` failed (exit {done.returncode})\n{tail}")


def rebuild(
    tag: str, *, settings: Settings | None = None, keep: bool = False, quiet: bool = False
) -> RebuildResult:
    """Rebuild release ``tag`` in a scratch lakehouse and compare its mix checksum.

    The scratch project is today's models with the release's seeds, mix file and vars; raw
    tables are read at the release's snapshots (nothing is copied). The lakehouse itself is
    not touched.

    Raises:
        ReleaseError: Unknown tag, or a build step failed.
    """
    settings = settings or Settings.from_env()
    manifest = get_release(tag, settings)
    root = project_root()
    if root is None:
        raise ReleaseError("no dbt_project.yml here or above: run from the lakemix project")
    warnings = []
    commit, dirty = git_state(root)
    recorded = manifest.git
    if recorded.dirty or recorded.commit != commit or dirty:
        warnings.append(
            f"models may differ from the release: released at commit {recorded.commit[:12]}"
            f"{' (dirty)' if recorded.dirty else ''}, rebuilding with {commit[:12]}"
            f"{' (dirty)' if dirty else ''}"
        )
    directory = settings.home / "rebuilds" / f"{tag}-{uuid.uuid4().hex[:8]}"
    project = _scratch_project(root, directory, manifest)
    # The scratch build writes to a local warehouse but reads the live raw tables where they
    # are: on an object store, through the same endpoint and credentials (LAKEMIX_S3_ENDPOINT).
    env = {k: v for k, v in os.environ.items() if k not in OVERRIDDEN}
    env["LAKEMIX_HOME"] = str(directory / "lakehouse")
    if settings.s3 is not None and not env.get("LAKEMIX_S3_ENDPOINT"):
        env["LAKEMIX_S3_ENDPOINT"] = settings.s3.endpoint
    scratch = Settings.from_env(env)
    pins = _register_raw(manifest, settings, scratch)
    env.update(
        LAKEMIX_HOME=str(scratch.home),
        DBT_TARGET_PATH=str(directory / "target"),
        DBT_LOG_PATH=str(directory / "logs"),
        **{PIN_VARIABLE: orjson.dumps(pins).decode()},
    )
    mix = manifest.mix
    args = ["build", "--select", "+fct_clean_documents", "--indirect-selection", "cautious"]
    done = run_dbt(args, cwd=project, env=env, capture=quiet)
    _check(done, [str(dbt_executable()), *args], quiet=quiet)
    cmd = [str(Path(sys.executable).with_name("lakemix")), "mix", "build", mix]
    done = subprocess.run(cmd, cwd=project, env=env, check=False, capture_output=quiet, text=True)
    _check(done, cmd, quiet=quiet)
    catalog = open_catalog(scratch)
    conn = duck.connect(settings=scratch)
    checksum = mix_checksum(
        conn,
        scan_sql(catalog.load_table(mix_table(mix))),
        scan_sql(catalog.load_table(CLEAN_DOCUMENTS)),
    )
    conn.close()
    result = RebuildResult(tag, manifest.checksum, checksum, directory, tuple(warnings))
    if result.is_identical and not keep:
        shutil.rmtree(directory, ignore_errors=True)
    return result
