"""Read what a mix can draw from, write its plan to ``meta.mix_plans``, and build it with dbt."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    score, _ = selection(spec, conn, table.metadata_location)
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
    conn = duck.connect(settings=settings)
    score, _ = selection(spec, conn, table.metadata_location)
    rows = conn.execute(
        f'select cast("{spec.groups.by}" as varchar), sum(token_count) '
        f"from iceberg_scan('{table.metadata_location}') {score} group by 1"
    ).fetchall()
    return {str(value): float(tokens) for value, tokens in rows if value is not None and tokens}


def quality_floors(spec: MixSpec, conn: Any, location: str) -> dict[str, float]:
    """The lowest ``quality_score`` the mix keeps, per language of the clean mart at
    ``location``: the mix's ``min_quality.quality_score`` for every language, or, with
    ``quality_top_fraction``, each language's score at that share from the top (among the
    documents its language-score floor keeps); empty when the mix selects by no score. The plan
    records them (``meta.mix_plans.min_quality_score``), so a mix rebuilt from its plan selects
    the same documents."""
    if spec.min_quality_score is None and spec.quality_top_fraction is None:
        return {}
    language_floor = (
        ""
        if spec.min_language_score is None
        else f"where language_score >= {float(spec.min_language_score)}"
    )
    value = (
        f"cast('{float(spec.min_quality_score)!r}' as double)"
        if spec.min_quality_score is not None
        else f"quantile_disc(quality_score, {1.0 - float(spec.quality_top_fraction or 0)})"
    )
    rows = conn.execute(
        f"select language, {value} from iceberg_scan('{location}') {language_floor} group by 1"
    ).fetchall()
    return {str(lang): float(floor) for lang, floor in rows if floor is not None}


def selection(spec: MixSpec, conn: Any, location: str) -> tuple[str, dict[str, float]]:
    """The ``where`` clause over the clean mart that a mix's ``min_quality`` keeps, and the
    quality floors per language behind it (``quality_floors``)."""
    floors = quality_floors(spec, conn, location)
    conditions = []
    if spec.min_language_score is not None:
        conditions.append(f"language_score >= {float(spec.min_language_score)}")
    if floors:
        # doubles, as the plan stores them: a bare literal is a DECIMAL, and comparing with it
        # truncates the score to the literal's scale (a document at the floor fell out)
        cases = " ".join(
            f"when '{lang}' then cast('{floor!r}' as double)"
            for lang, floor in sorted(floors.items())
        )
        conditions.append(f"quality_score >= (case language {cases} else 2.0 end)")
    return ("where " + " and ".join(conditions)) if conditions else "", floors


def write_plan(plan: MixPlan, settings: Settings | None = None) -> None:
    """Replace the mix's rows in ``meta.mix_plans`` (one Iceberg commit)."""
    from lakemix.iceberg import commit_with_retry, ensure_table

    spec = plan.spec
    languages = {p.language: p for p in plan.languages}
    now = datetime.now(UTC)
    catalog = open_catalog(settings)
    floors = quality_floors(
        spec,
        duck.connect(settings=settings or Settings.from_env()),
        catalog.load_table(CLEAN_DOCUMENTS).metadata_location,
    )
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
            "min_quality_score": floors.get(lang),
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
            ("min_quality_score", pa.float64()),
        ]
    )
    table = ensure_table(catalog, MIX_PLANS, schema)
    if "min_quality_score" not in table.schema().column_names:  # a lakehouse from before it
        with table.update_schema() as update:
            update.union_by_name(schema)

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
