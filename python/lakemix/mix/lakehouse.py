"""Read what a mix can draw from, write its plan to ``meta.mix_plans``, and build it with dbt."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.dbt.runner import run_dbt
from lakemix.mix.plan import MixPlan
from lakemix.mix.spec import MixSpec, MixSpecError
from lakemix.settings import Settings, project_root
from lakemix.tables import CLEAN_DOCUMENTS, MIX_PLANS

if TYPE_CHECKING:
    from pyiceberg.table import Table


def mixes_directory() -> Path:
    """``mixes/`` of the project (next to dbt_project.yml)."""
    return (project_root() or Path.cwd()) / "mixes"


def available_tokens(
    spec: MixSpec, settings: Settings | None = None
) -> dict[tuple[str, str], float]:
    """Clean tokens per (language, source), weighted by cluster size when the mix upsamples.

    Raises:
        MixSpecError: nothing is built yet, or the lakehouse counted tokens with another tokenizer.
    """
    from pyiceberg.exceptions import NoSuchTableError

    settings = settings or Settings.from_env()
    try:
        table = open_catalog(settings).load_table(CLEAN_DOCUMENTS)
    except NoSuchTableError:
        raise MixSpecError(f"{CLEAN_DOCUMENTS} does not exist yet: run `dbt build` first") from None
    conn = duck.connect(settings=settings)
    factor = (
        "1"
        if spec.upsample_max_factor is None
        else f"least(duplicate_cluster_size, {int(spec.upsample_max_factor)})"
    )
    score = (
        ""
        if spec.min_language_score is None
        else f"where language_score >= {float(spec.min_language_score)}"
    )
    rows = conn.execute(
        f"""
        select language, source_id, sum(token_count * {factor}), string_agg(distinct tokenizer, ',')
        from iceberg_scan('{table.metadata_location}')
        {score}
        group by all
        """
    ).fetchall()
    tokenizers = {t for *_, t in rows if t}
    if tokenizers and tokenizers != {spec.tokenizer}:
        raise MixSpecError(
            f"mix {spec.name}: tokenizer {spec.tokenizer!r}, but the lakehouse counted tokens "
            f"with {', '.join(sorted(tokenizers))}; set the var lakemix_tokenizer and rebuild "
            "with --full-refresh"
        )
    return {(lang, source): float(tokens) for lang, source, tokens, _ in rows if tokens}


def column_tokens(spec: MixSpec, settings: Settings | None = None) -> dict[str, float] | None:
    """Clean tokens per value of the column a dynamic mix groups by, when that is neither
    ``language`` nor ``source_id`` (the plan itself knows those); None otherwise.

    Raises:
        MixSpecError: The clean mart has no such column (the message lists its columns).
    """
    if spec.groups is None or spec.groups.by in ("language", "source_id"):
        return None
    settings = settings or Settings.from_env()
    table = open_catalog(settings).load_table(CLEAN_DOCUMENTS)
    columns = [f.name for f in table.schema().fields]
    if spec.groups.by not in columns:
        raise MixSpecError(
            f"mix {spec.name}: groups.by: {CLEAN_DOCUMENTS} has no column {spec.groups.by!r}; "
            f"its columns: {', '.join(columns)}"
        )
    score = (
        ""
        if spec.min_language_score is None
        else f"where language_score >= {float(spec.min_language_score)}"
    )
    rows = (
        duck.connect(settings=settings)
        .execute(
            f'select cast("{spec.groups.by}" as varchar), sum(token_count) '
            f"from iceberg_scan('{table.metadata_location}') {score} group by 1"
        )
        .fetchall()
    )
    return {str(value): float(tokens) for value, tokens in rows if value is not None and tokens}


def write_plan(plan: MixPlan, settings: Settings | None = None) -> None:
    """Replace the mix's rows in ``meta.mix_plans`` (one Iceberg commit)."""
    from lakemix.iceberg import commit_with_retry, ensure_table

    spec = plan.spec
    languages = {p.language: p for p in plan.languages}
    now = datetime.now(UTC)
    rows = [
        {
            "mix_name": spec.name,
            "language": lang,
            "source_id": source,
            "rate": rate,
            "target_share": languages[lang].target_share,
            "feasible_share": languages[lang].feasible_share,
            "available_tokens": languages[lang].available_tokens,
            "planned_tokens": languages[lang].sampled_tokens,
            "max_epochs": spec.max_epochs,
            "note": languages[lang].note,
            "seed": spec.seed,
            "validation_fraction": spec.validation_fraction,
            "min_language_score": spec.min_language_score,
            "upsample_max_factor": spec.upsample_max_factor,
            "tokenizer": spec.tokenizer,
            "planned_at": now,
        }
        for (lang, source), rate in sorted(plan.rates.items())
    ]
    schema = pa.schema(
        [
            ("mix_name", pa.string()),
            ("language", pa.string()),
            ("source_id", pa.string()),
            ("rate", pa.float64()),
            ("target_share", pa.float64()),
            ("feasible_share", pa.float64()),
            ("available_tokens", pa.float64()),
            ("planned_tokens", pa.float64()),
            ("max_epochs", pa.float64()),
            ("note", pa.string()),
            ("seed", pa.int64()),
            ("validation_fraction", pa.float64()),
            ("min_language_score", pa.float64()),
            ("upsample_max_factor", pa.int64()),
            ("tokenizer", pa.string()),
            ("planned_at", pa.timestamp("us", tz="UTC")),
        ]
    )
    catalog = open_catalog(settings)
    ensure_table(catalog, MIX_PLANS, schema)

    def attempt(table: Table) -> None:
        with table.transaction() as tx, warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Delete operation did not match")  # a first build
            tx.delete(f"mix_name == '{spec.name}'")  # the name is validated: [a-z][a-z0-9_]*
            tx.append(pa.Table.from_pylist(rows, schema=schema))

    commit_with_retry(catalog, MIX_PLANS, attempt)


def build_arguments(spec: MixSpec) -> list[str]:
    """dbt's arguments that materialize marts.mix_<name> and its summary (tests included), on
    whichever engine runs them."""
    return [
        "build",
        "--select",
        "stg_meta__mix_plans+",
        "--exclude",
        "fct_clean_documents",
        "--vars",
        f"{{lakemix_mix: {spec.name}}}",
    ]


def build(spec: MixSpec) -> int:
    """Materialize marts.mix_<name> and its summary with dbt on DuckDB; dbt's exit code.

    (On Spark: ``lakemix.spark.dbt.run_dbt(build_arguments(spec))``; the command line chooses.)
    """
    return run_dbt(build_arguments(spec), cwd=project_root() or Path.cwd()).returncode
