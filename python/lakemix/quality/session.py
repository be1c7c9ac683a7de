"""A read-only DuckDB session over the lakehouse as it is now, or as it was at a release."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from lakemix import tables
from lakemix.errors import LakemixError
from lakemix.settings import Settings

if TYPE_CHECKING:
    import duckdb

THRESHOLDS_SEED = "seeds/quality_thresholds.csv"


class NoBuildError(LakemixError, FileNotFoundError):
    """The lakehouse has no dbt build to read yet."""


def open_session(tag: str | None, *, settings: Settings) -> duckdb.DuckDBPyConnection:
    """Every Iceberg table as a view (current, or at release ``tag``) and the thresholds seed.

    Current: the seed as the last ``dbt build`` loaded it, from the lakehouse's build record
    (``meta.builds``), so that a report can be made while another build holds the DuckDB file;
    a lakehouse last built before builds were recorded there reads it from ``lakemix.duckdb``.
    At a tag: the seed the release recorded in its manifest.

    Raises:
        ReleaseError: No release ``tag``.
        NoBuildError: No dbt build yet (a ``FileNotFoundError``).
        BuildStateError: Only the DuckDB file holds the seed and a running dbt holds the file.
    """
    import pyarrow as pa
    import pyarrow.csv

    from lakemix.versions.builds import BuildStateError, last_build
    from lakemix.versions.refs import connect_at
    from lakemix.versions.release import get_release

    manifest = get_release(tag, settings) if tag is not None else None
    seed: pa.Table | None = None
    if manifest is not None:
        text = manifest.config_files[THRESHOLDS_SEED]
        seed = pyarrow.csv.read_csv(io.BytesIO(text.encode()))
    else:
        try:
            rows = last_build(settings)["quality_thresholds"]
        except BuildStateError:
            if not settings.duckdb_path.is_file():
                raise NoBuildError(
                    f"no dbt build yet ({settings.duckdb_path} does not exist)"
                ) from None
            rows = None  # built, but no passing record: the seed as the DuckDB file holds it
        if rows:
            seed = pa.Table.from_pylist(rows)
        elif not settings.duckdb_path.is_file():
            raise NoBuildError(f"no dbt build yet ({settings.duckdb_path} does not exist)")
    # Tables the release did not tag (those its mix does not read, such as
    # fct_document_rejections) are shown at the snapshot current when it was released.
    released_at = manifest.released_at if manifest is not None else None
    conn = connect_at(tag, settings=settings, otherwise=released_at)
    conn.execute(f"create schema if not exists {tables.SEEDS}")
    if seed is None:
        _copy_built_seed(conn, settings)
    else:
        conn.register("recorded_seed", seed)
        conn.execute(f"create table {tables.QUALITY_THRESHOLDS} as select * from recorded_seed")
        conn.unregister("recorded_seed")
    return conn


def _copy_built_seed(conn: duckdb.DuckDBPyConnection, settings: Settings) -> None:
    """The thresholds seed from ``lakemix.duckdb`` (a lakehouse whose builds predate
    ``meta.builds``); one line when a running dbt holds the file."""
    import duckdb

    from lakemix.versions.builds import BuildStateError

    try:
        conn.execute(f"attach '{settings.duckdb_path}' as built (read_only)")
    except duckdb.IOException as exc:
        conn.close()
        raise BuildStateError(
            f"cannot read {settings.duckdb_path} (is dbt running?), and this lakehouse's "
            f"builds predate {tables.BUILDS}: run the report after the build: {exc}"
        ) from None
    seed = tables.QUALITY_THRESHOLDS
    conn.execute(f"create table {seed} as select * from built.{seed}")
    conn.execute("detach built")
