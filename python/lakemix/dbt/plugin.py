"""The dbt-duckdb plugin: Iceberg extension offline, Iceberg views, models stored as Iceberg.

Enable it in ``profiles.yml``::

    plugins:
      - module: lakemix.dbt.plugin
        alias: lakemix
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from dbt.adapters.duckdb.plugins import BasePlugin

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.dbt import cache_key, store, watermark
from lakemix.dbt.csv_text import csv_json
from lakemix.dbt.texts import TextFunctions
from lakemix.git import git_state
from lakemix.iceberg import stats, views
from lakemix.iceberg.snapshots import scan_at
from lakemix.search.sql import register as register_search
from lakemix.settings import Settings, project_root
from lakemix.text_store import TextStore, store_path
from lakemix.udf import register_all, release

if TYPE_CHECKING:
    import duckdb
    from dbt.adapters.duckdb.utils import TargetConfig
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import Table

# dbt-duckdb hands a plugin the profile's DuckDB settings too: the plugin's own start with lakemix_.
PREFIX = "lakemix_"
KNOWN_SETTINGS = frozenset({"lakemix_refresh_views"})


@functools.cache
def freeze_long_lived() -> None:
    """Take what is alive when dbt sets up the adapter (the modules of dbt and every library it
    imported, the project's configuration) out of the collector's generations: they live until
    exit, and each full collection walked them all (seven in an incremental run of the dedup
    models: 0.77 s, 0.40-0.45 s frozen; measured with ``gc.callbacks``). Freeze again at exit, so
    CPython's last collection skips the manifest dbt built since (py-spy at exit:
    gc_collect_main took 1.2 s of every dbt command). Python never promises to finalize objects
    alive at exit; dbt closes its connections and logs before, and lakemix commits its writes
    in the run. Once per process: a notebook or a test session that runs dbt many times freezes
    only what was alive at its first run."""
    gc.freeze()
    atexit.register(gc.freeze)


def release_memory() -> None:
    """After a model: give back the memory Arrow's pool (mimalloc) keeps of the batches the run
    freed, for reuse: in a 1M-document `dbt build` the process grew by 1.8 GB in
    ``int_content_pairs_verified`` and kept it to the end (bench/pipeline's RSS per model);
    looking up every text of a 100k-document store left 760 MB in the pool."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def release_udfs(name: str) -> str:
    """Drop what UDF module ``name`` loaded (``lakemix.udf.release``) and give the freed heap
    back to the system (glibc keeps it otherwise): ``lakemix_release_udfs(name)``, the
    post-hook of the model that was its only user (macro ``release_udfs``). Returns ``name``."""
    import ctypes
    import ctypes.util

    release(name)
    gc.collect()  # a segmenter's closures may hold cycles
    path = ctypes.util.find_library("c")
    libc = ctypes.CDLL(path) if path is not None else None
    if libc is not None and hasattr(libc, "malloc_trim"):  # glibc's; musl has none
        libc.malloc_trim(0)
    return name


WRITING_COMMANDS = ("build", "run", "seed", "snapshot")


@dataclass(frozen=True)
class PluginFunction:
    """A SQL function the plugin gives dbt's DuckDB connection (beside the UDF registry's).

    Attributes:
        name: The SQL name.
        call: A method of ``Plugin`` (its name: it needs the plugin's catalog and state), or a
            function.
        parameters: DuckDB types of the arguments.
        returns: DuckDB type of the result.
        special_nulls: The function is called with NULL arguments (and may return NULL) instead
            of DuckDB answering NULL for it.
        side_effects: Reads or writes outside its arguments: never folded or cached.
    """

    name: str
    call: str | Callable[..., Any]
    parameters: tuple[str, ...]
    returns: str
    special_nulls: bool = False
    side_effects: bool = True


_V, _B, _I = "VARCHAR", "BOOLEAN", "BIGINT"
FUNCTIONS = (
    PluginFunction("lakemix_staging_location", "_staging_location", (_V, _V), _V),
    PluginFunction("lakemix_metadata_location", "_metadata_location", (_V,), _V),
    # NULL: the metadata cannot tell.
    PluginFunction("lakemix_null_count", "_null_count", (_V, _V), _I, special_nulls=True),
    # NULL: no such table or no snapshot.
    PluginFunction("lakemix_current_snapshot", "_current_snapshot", (_V,), _I, special_nulls=True),
    # A NULL snapshot: every row.
    PluginFunction("lakemix_written_rows", "_written_rows", (_V, _I), _V, special_nulls=True),
    PluginFunction("lakemix_scan", "_scan", (_V,), _V),
    PluginFunction("lakemix_in_files", views.in_files, (_V, "VARCHAR[]"), _V),
    PluginFunction("lakemix_release_udfs", release_udfs, (_V,), _V),
    PluginFunction("lakemix_scan_at", "_scan_at", (_V, _V), _V),
    PluginFunction("lakemix_rows_since", "_rows_since", (_V, _V, _B), _V),
    PluginFunction("lakemix_sync_plan", "_sync_plan", (_V, _V, _B, _V, _V), _V),
    PluginFunction("lakemix_cache_key", "_cache_key", (_V, _V, _B), _V),
    PluginFunction("lakemix_csv_json", csv_json, (_V,), _V, side_effects=False),
    PluginFunction("lakemix_append_build_stats", "_append_build_stats", (_V, _V, _V), _I),
    # A build that made no thresholds seed passes NULL.
    PluginFunction(
        "lakemix_record_build", "_record_build", (_V, _B, _V, _V, _V), _I, special_nulls=True
    ),
)


def _hold_writer_lock(settings: Settings) -> None:
    """A dbt command that writes holds the lakehouse's writer lock until it exits; a second one
    is refused with one line naming the holder (or waits ``LAKEMIX_WAIT`` seconds)."""
    from dbt.flags import get_flags

    from lakemix.writer import LakehouseBusyError, command_line, hold_for_process

    which = str(getattr(get_flags(), "WHICH", ""))  # type: ignore[no-untyped-call]
    if which not in WRITING_COMMANDS:
        return
    try:
        hold_for_process(command_line(), settings=settings)
    except LakehouseBusyError as exc:
        # Raised here, dbt would print a 40-line trace; the one line and exit status 2 say it.
        sys.stderr.write(f"lakemix: {exc}\n")
        sys.stderr.flush()
        os._exit(2)  # SystemExit: dbt prints a trace too


class Plugin(BasePlugin):
    """Connects DuckDB to the lakemix Iceberg catalog."""

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        unknown = {k for k in plugin_config if k.startswith(PREFIX)} - KNOWN_SETTINGS
        if unknown:
            raise ValueError(
                f"lakemix plugin: unknown setting(s) {', '.join(sorted(unknown))} in profiles.yml; "
                f"known: {', '.join(sorted(KNOWN_SETTINGS))}"
            )
        self.refresh = bool(plugin_config.get("lakemix_refresh_views", True))
        freeze_long_lived()
        self.settings = Settings.from_env()
        _hold_writer_lock(self.settings)
        # DuckDB creates its database file but not the folder: a first `dbt seed` or `dbt build`
        # on a fresh clone runs before anything else made LAKEMIX_HOME.
        self.settings.duckdb_path.parent.mkdir(parents=True, exist_ok=True)
        self.commit, self.dirty = git_state(project_root())
        self._catalog: SqlCatalog | None = None
        # Target table -> {watermark property: snapshot id} of the sources its SQL reads
        # (lakemix_rows_since at compile time), committed with its rows by ``store``.
        self._watermarks: dict[str, dict[str, str]] = {}
        # Target table -> its snapshot an incremental run decided from (its watermark's
        # snapshot): ``store`` refuses to append onto any other (``StoreRequest.parent``).
        self._parents: dict[str, int] = {}
        # Target table -> the key of the settings its rows are computed with (macro cache_key).
        self._cache_keys: dict[str, str] = {}
        self.texts = TextFunctions(TextStore(store_path(self.settings.home)))

    @property
    def catalog(self) -> SqlCatalog:
        if self._catalog is None:
            self._catalog = open_catalog(self.settings)
        return self._catalog

    def configure_connection(self, conn: duckdb.DuckDBPyConnection) -> None:
        from duckdb.func import DEFAULT, SPECIAL

        duck.load_extensions(conn)
        duck.configure_storage(conn, self.settings)
        register_all(conn)
        register_search(conn)
        self.texts.register(conn)
        (self.settings.home / "staging").mkdir(parents=True, exist_ok=True)
        for function in FUNCTIONS:
            call = getattr(self, function.call) if isinstance(function.call, str) else function.call
            conn.create_function(
                function.name,
                call,
                list(function.parameters),
                function.returns,
                null_handling=SPECIAL if function.special_nulls else DEFAULT,
                side_effects=function.side_effects,
            )
        if self.refresh:
            views.refresh_views(conn, self.catalog)

    def _staging_location(self, identifier: str, invocation_id: str) -> str:
        """Where the ``iceberg`` materialization writes a model's Parquet files."""
        return store.staging_location(
            self.catalog,
            identifier,
            invocation_id,
            local_root=str(self.settings.home / "staging"),
        )

    def _metadata_location(self, identifier: str) -> str:
        return str(self.catalog.load_table(identifier).metadata_location)

    def _null_count(self, identifier: str, column: str) -> int | None:
        """NULLs of a column of a table's current snapshot from Iceberg's column metrics, or
        None (macro ``build_layer_stats``: then it counts them)."""
        return stats.null_count(self.catalog.load_table(identifier), column)

    def _current_snapshot(self, identifier: str | None) -> int | None:
        """The current snapshot id of a table (macro ``record_tested_ingests``)."""
        from pyiceberg.exceptions import NoSuchTableError

        if identifier is None:
            return None
        try:
            return self.catalog.load_table(identifier).metadata.current_snapshot_id
        except NoSuchTableError:
            return None

    def _written_rows(self, identifier: str, since: int | None) -> str:
        """A relation of the rows of a table written after snapshot ``since`` (macro
        ``written_rows_relation``: a test with ``where: __written_rows__``): its current scan
        restricted to the data files ``since`` lacked, by ``filename`` (DuckDB then opens those
        files only). Empty when that cannot be told: the test reads every row."""
        table = self.catalog.load_table(identifier)
        files = watermark.files_since(table, since)
        if files is None:
            return ""
        return views.in_files(views.scan_sql(table, table.metadata.current_snapshot_id), files)

    def _scan(self, identifier: str) -> str:
        """``iceberg_scan(...)`` of what the view of a table reads (macro ``rows_holding``)."""
        return views.view_scan(self.catalog, identifier)

    def _scan_at(self, identifier: str, version: str) -> str:
        """``iceberg_scan(...)`` of a table at a tag, snapshot id or timestamp (macro ``at``)."""
        return scan_at(self.catalog.load_table(identifier), version)

    def _rows_since(self, source: str, target: str, incremental: bool) -> str:
        """The rows of ``source`` that ``target`` has not read (macro ``rows_since``), as JSON
        ``{"sql": ..., "exact": ...}``.

        Reads the source's current snapshot (or its pinned one): incrementally, only the data
        files added since the snapshot the target's last run read (``watermark``); otherwise,
        or when those files cannot be told, all of it. ``exact``: no row in ``sql`` was read
        before (the files were only appended since, or nothing is new), so the macro needs no
        anti-join on the key. The snapshot read is remembered and committed with the target's
        rows by ``store``. ``sql`` is empty when the source has no snapshot yet (compiling
        before anything was built): the macro then reads the relation itself.
        """
        from pyiceberg.exceptions import NoSuchTableError

        def answer(sql: str, *, exact: bool) -> str:
            return orjson.dumps({"sql": sql, "exact": exact}).decode()

        read = self._read_source(source, target)
        if read is None:
            return answer("", exact=False)  # not built yet (dbt compile, docs generate)
        table, now = read
        full = views.scan_sql(table, now)
        if not incremental:
            return answer(full, exact=True)
        try:
            target_table = self.catalog.load_table(target)
        except NoSuchTableError:
            return answer(full, exact=True)
        last = watermark.last_read(target_table, source)
        if target_table.metadata.current_snapshot_id is not None:
            self._parents[target] = target_table.metadata.current_snapshot_id
        added = watermark.added_files(table, last, now)
        if added is None:
            return answer(full, exact=False)
        if not added.paths:
            return answer(f"(select * from {full} limit 0)", exact=True)
        paths = ", ".join(views.quote_literal(path) for path in added.paths)
        return answer(f"read_parquet([{paths}], union_by_name = true)", exact=added.appended_only)

    def _sync_plan(
        self,
        target: str,
        sources_json: str,
        incremental: bool,
        invocation_id: str,
        sql_digest: str,
    ) -> str:
        """Whether a model of ``incremental_strategy='sync'`` writes only its changed rows
        this run (``lakemix.dbt.sync``), as JSON ``{"sync", "reason", "stored",
        "deleted_keys"}``: ``stored`` reads the table's rows at the snapshot the sync compares
        with (the one its commit must land on), ``deleted_keys`` is the local file where the
        materialization writes the keys of the rows to delete.
        Records the snapshot of each incremental source (``sources_json``, a list of
        ``namespace.table``) that the run reads and the digest of its SQL, committed with its
        rows by ``store``."""
        from pyiceberg.exceptions import NoSuchTableError

        from lakemix.dbt.sync import SQL_PROPERTY, SyncPlan, plan

        self._record(target, {SQL_PROPERTY: sql_digest})
        sources = {}
        for name in orjson.loads(sources_json):
            read = self._read_source(name, target)
            if read is not None:  # else not built yet (dbt compile, docs generate)
                sources[name] = read
        decided, stored, stored_table = SyncPlan(False, "not an incremental run"), "", None
        if incremental:
            try:
                stored_table = self.catalog.load_table(target)
            except NoSuchTableError:
                stored_table = None
            decided = plan(stored_table, sources, sql_digest)
        if decided.parent is not None and stored_table is not None:
            self._parents[target] = decided.parent
            stored = views.scan_sql(stored_table, decided.parent)
        keys = self.settings.home / "staging" / f"{invocation_id}-{target}-deleted-keys.parquet"
        return orjson.dumps(
            {
                "sync": decided.sync,
                "reason": decided.reason,
                "stored": stored,
                "deleted_keys": str(keys),
            }
        ).decode()

    def _record(self, target: str, properties: dict[str, str]) -> None:
        """Snapshot properties ``store`` commits with ``target``'s rows (what its run read)."""
        self._watermarks[target] = self._watermarks.get(target, {}) | properties

    def _read_source(self, source: str, target: str) -> tuple[Table, int] | None:
        """The table ``source`` and the snapshot ``target``'s run reads of it (its pinned one,
        or the current), recorded for ``store`` (``lakemix.read.<source>``); None when it has
        no table or no snapshot yet."""
        from pyiceberg.exceptions import NoSuchTableError

        try:
            table = self.catalog.load_table(source)
        except NoSuchTableError:
            return None
        now = views.pinned_snapshots().get(source) or table.metadata.current_snapshot_id
        if now is None:
            return None
        self._record(target, {watermark.watermark_property(source): str(now)})
        return table, now

    def _cache_key(self, target: str, spec: str, incremental: bool) -> str:
        """Record the key of ``target``'s settings (macro ``cache_key``); incrementally, refuse
        a key other than that of the rows already stored (``cache_key.check``)."""
        from pyiceberg.exceptions import NoSuchTableError

        key = cache_key.key_of(orjson.loads(spec))
        if incremental:
            with contextlib.suppress(NoSuchTableError):  # a first run: nothing to differ from
                cache_key.check(self.catalog.load_table(target), target, key)
        self._cache_keys[target] = key
        return key

    def _append_build_stats(self, invocation_id: str, rows_json: str, objectives: str) -> int:
        """Append a build's statistics to meta.build_stats (macro ``record_build_stats``), with
        the consistency and accuracy objectives as this build leaves the lakehouse when
        ``objectives`` (the var ``lakemix_quality_objectives`` as JSON) is not empty."""
        from lakemix.dbt.build_stats import append_build_stats

        measured = self._objective_rows(objectives) if objectives else []
        return append_build_stats(self.catalog, invocation_id, rows_json, measured)

    def _objective_rows(self, declared: str) -> list[dict[str, Any]]:
        """Consistency and accuracy measured on a session of their own over the lakehouse (the
        build's session is busy running the hook that asks)."""
        from lakemix.objectives.config import VAR, parse_objectives
        from lakemix.objectives.per_build import build_rows

        objectives = parse_objectives({VAR: orjson.loads(declared)})
        if objectives.consistency is None and objectives.accuracy is None:
            return []
        conn = duck.connect(settings=self.settings)
        try:
            views.refresh_views(conn, self.catalog)
            return build_rows(conn, objectives)
        finally:
            conn.close()

    def _record_build(
        self,
        invocation_id: str,
        is_passed: bool,
        failures_json: str,
        vars_json: str,
        thresholds_json: str | None,
    ) -> int:
        """Append a build's outcome to meta.builds (macro ``record_build_result``)."""
        from lakemix.dbt.build_record import record_build

        return record_build(
            self.catalog,
            invocation_id,
            is_passed=is_passed,
            failures_json=failures_json,
            vars_json=vars_json,
            thresholds_json=thresholds_json,
        )

    def store(self, target_config: TargetConfig) -> None:
        """Commit what the ``iceberg`` materialization staged (via ``adapter.store_relation``)."""
        relation = target_config.relation
        options = dict(target_config.config or {})
        if target_config.location is None:
            raise store.StoreError(f"{relation}: no staged files to store")
        properties = {
            "lakemix.dbt_invocation_id": str(options.get("invocation_id", "")),
            "lakemix.dbt_model": str(options.get("unique_id", "")),
            "lakemix.git_commit": self.commit,
            "lakemix.git_dirty": str(self.dirty).lower(),
        }
        identifier = f"{relation.schema}.{relation.identifier}"
        read = self._watermarks.pop(identifier, {})
        properties |= read
        parent = self._parents.pop(identifier, None)
        key = self._cache_keys.pop(identifier, None)
        if key is not None:
            properties[cache_key.PROPERTY] = key
        store.store(
            self.catalog,
            store.StoreRequest(
                identifier=identifier,
                staged=target_config.location.path,
                mode=str(options.get("mode", "overwrite")),
                properties=properties,
                full_refresh=bool(options.get("full_refresh", False)),
                commit_when_empty=bool(read),
                s3=self.settings.s3,
                parent=parent,
                key=options.get("key"),
                deleted_keys=options.get("deleted_keys"),
            ),
        )
        self.texts.commit(identifier)
        release_memory()
