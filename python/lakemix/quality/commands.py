"""CLI commands for data quality: report, calibrate, review sample and label, quality train."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

if TYPE_CHECKING:
    from lakemix.quality.label_studio import LabelStudio
    from lakemix.quality.review import Verdict
    from lakemix.settings import Settings


@click.command("report")
@click.option("--tag", help="Report on a release (every table as tagged) instead of now.")
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="HTML file to write (default: LAKEMIX_HOME/reports/quality-<tag or current>.html).",
)
def report_command(tag: str | None, output: Path | None) -> None:
    """Write the quality report: one static HTML file with plots and the numbers behind them."""
    from lakemix.quality import write_report

    result = write_report(output, tag=tag)
    click.echo(f"wrote {result.path} ({result.size_bytes / 1e3:,.0f} kB) in {result.seconds:.1f} s")


@click.command("calibrate")
@click.option(
    "--reference",
    "reference",
    required=True,
    type=click.Path(path_type=Path),
    help="Clean text of the language: a file or folder of .txt (documents separated by a blank"
    " line), .jsonl or .jsonl.gz (field text); with --sentences, one sentence a line.",
)
@click.option("--language", required=True, help="lid.176 label (seeds/language_configs.csv).")
@click.option(
    "--percentile",
    type=click.FloatRange(0, 50, min_open=True, max_open=True),
    default=1.0,
    show_default=True,
    help="Each proposal rejects at most this percentage of the reference documents.",
)
@click.option(
    "--sentences", is_flag=True, help="One sentence a line, packed into 500-2,000 characters."
)
@click.option(
    "--lines",
    type=click.Choice(["all", "even", "odd"]),
    default="all",
    show_default=True,
    help="With --sentences: all lines, or those numbered even or odd from 0 (a held-out half).",
)
@click.option(
    "--packings",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --sentences: pack the sentences this many times, each in another order (more"
    " reference documents for a percentile when there are few sentences).",
)
@click.option(
    "--write", is_flag=True, help="Write the proposals to seeds/calibrated_thresholds.csv."
)
def calibrate_command(
    reference: Path,
    language: str,
    percentile: float,
    sentences: bool,
    lines: str,
    packings: int,
    write: bool,
) -> None:
    """Propose per-language thresholds from clean reference text of the language.

    Prints, per rule, the share of the reference its threshold rejects now and a threshold at
    --percentile that only relaxes; --write puts the proposals in
    seeds/calibrated_thresholds.csv, to review, then `dbt seed && dbt build`.
    """
    from lakemix.quality.calibrate import calibrate_reference, write_calibration
    from lakemix.quality.calibration_report import format_calibration, format_changes
    from lakemix.quality.reference import LineSelection

    calibration = calibrate_reference(
        reference,
        language=language,
        percentile=percentile,
        sentences=sentences,
        lines=cast("LineSelection", lines),  # one of click.Choice's values
        packings=packings,
    )
    click.echo(format_calibration(calibration))
    if write:
        changes = write_calibration(calibration)
        click.echo("\n" + format_changes(calibration, changes))


@click.group("review")
def review_group() -> None:
    """Manual validation: sample decisions, record verdicts (the report shows precision)."""


@review_group.command("sample")
@click.option("--n", "size", default=200, show_default=True, help="Documents to draw.")
@click.option("--seed", default=0, show_default=True, help="Seed of the random order.")
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="CSV to write (default: LAKEMIX_HOME/reviews/sample-<seed>.csv).",
)
@click.option(
    "--mix",
    help="Only kept documents of this mix not reviewed yet (what `lakemix release` counts).",
)
@click.option(
    "--label-studio",
    "project",
    metavar="PROJECT",
    help="Also create or extend this Label Studio project with the drawn documents, the quality"
    " model's verdicts as pre-annotations (LAKEMIX_LABEL_STUDIO_URL, LAKEMIX_LABEL_STUDIO_TOKEN).",
)
@click.option(
    "--strategy",
    type=click.Choice(["stratified", "random", "uncertainty", "disagreement"]),
    default="stratified",
    show_default=True,
    help="stratified: rules and languages take turns; random; uncertainty: the quality model's"
    " scores nearest its boundary; disagreement: where the model and the hand-set rules differ.",
)
def review_sample_command(
    size: int,
    seed: int,
    output: Path | None,
    mix: str | None,
    project: str | None,
    strategy: str,
) -> None:
    """Draw kept and rejected documents into a CSV to label (stratified by language and rule, or
    where a verdict teaches the quality model most: --strategy).

    With --mix: the kept documents of that mix that have no verdict on their current text."""
    from lakemix.quality import review
    from lakemix.quality.session import open_session
    from lakemix.settings import Settings

    settings = Settings.from_env()
    conn = open_session(None, settings=settings)
    try:
        rows = review.sample(conn, n=size, seed=seed, mix=mix, strategy=strategy)
        texts = review.full_texts(conn, [r["document_id"] for r in rows]) if project else {}
    finally:
        conn.close()
    path = output or review.default_sample_path(settings, seed)
    review.write_sample(rows, path)
    kept = sum(r["decision"] == "kept" for r in rows)
    strata = len({(r["decision"], r["stratum_rule"], r["language"]) for r in rows})
    click.echo(
        f"wrote {len(rows)} documents ({kept} kept, {len(rows) - kept} rejected; "
        f"{strata} strata) to {path}\nfill in verdict (good/bad), then: lakemix review label "
        f"--csv {path}"
    )
    if project is not None:
        server = _label_studio()
        project_id = server.project(project)
        added = server.push(project_id, rows, texts, model_version=_scoring_model(settings))
        click.echo(
            f"Label Studio project {project!r} ({server.url}/projects/{project_id}): {added} "
            f"tasks added; after labelling: lakemix review pull --label-studio {project!r}"
        )


def _scoring_model(settings: Settings) -> str | None:
    """The first 12 hex digits of the quality model that scored the lakehouse's documents."""
    from lakemix.catalog import catalog
    from lakemix.dbt.cache_key import recorded_setting
    from lakemix.tables import QUALITY_SCORED

    try:
        digest = recorded_setting(catalog(settings).load_table(QUALITY_SCORED), "quality_model")
    except Exception:
        return None
    return str(digest)[:12] if digest else None


def _label_studio() -> LabelStudio:
    from lakemix.quality.label_studio import LabelStudio

    url, token = (
        os.environ.get("LAKEMIX_LABEL_STUDIO_URL"),
        os.environ.get("LAKEMIX_LABEL_STUDIO_TOKEN"),
    )
    if not url or not token:
        raise click.ClickException(
            "set LAKEMIX_LABEL_STUDIO_URL and LAKEMIX_LABEL_STUDIO_TOKEN (the server's URL and an"
            " API token; scripts/services.d/40-label-studio.sh starts one)"
        )
    return LabelStudio(url, token)


@review_group.command("pull")
@click.option(
    "--label-studio",
    "project",
    required=True,
    metavar="PROJECT",
    help="The Label Studio project to bring annotations back from.",
)
def review_pull_command(project: str) -> None:
    """Record a Label Studio project's annotations in meta.review_verdicts (only what changed:
    pulling twice records nothing more)."""
    from lakemix.catalog import catalog
    from lakemix.quality import review
    from lakemix.quality.label_studio import verdicts_of
    from lakemix.settings import Settings
    from lakemix.tables import REVIEW_VERDICTS

    server = _label_studio()
    verdicts = verdicts_of(server.export(server.project(project, create=False)))
    count = review.record_new(catalog(Settings.from_env()), verdicts)
    reviewers = len({v.reviewer for v in verdicts})
    click.echo(
        f"{len(verdicts)} verdicts by {reviewers} reviewers in {project!r}; recorded {count} new "
        f"or changed in {REVIEW_VERDICTS}"
    )


@review_group.command("label")
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="A filled-in sample CSV (verdict good/bad; empty rows are skipped).",
)
@click.option(
    "--sample",
    "sample_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Label this sample CSV interactively (default when --csv is not given: sample-0).",
)
@click.option(
    "--reviewer", default=lambda: os.environ.get("USER", "reviewer"), show_default="$USER"
)
def review_label_command(csv_path: Path | None, sample_path: Path | None, reviewer: str) -> None:
    """Record verdicts in the Iceberg table meta.review_verdicts, from a CSV or a prompt."""
    from lakemix.catalog import catalog
    from lakemix.quality import review
    from lakemix.settings import Settings
    from lakemix.tables import REVIEW_VERDICTS

    settings = Settings.from_env()
    if csv_path is not None:
        verdicts = review.read_verdicts(csv_path, reviewer=reviewer)
    else:
        verdicts = _prompt_verdicts(
            sample_path or review.default_sample_path(settings, 0), reviewer
        )
    count = review.record(catalog(settings), verdicts)
    click.echo(f"recorded {count} verdicts by {reviewer} in {REVIEW_VERDICTS}")


def _prompt_verdicts(path: Path, reviewer: str) -> list[Verdict]:
    import csv

    from lakemix.quality.review import Verdict

    if not path.is_file():
        raise click.ClickException(f"no sample at {path}: run `lakemix review sample` first")
    with path.open(newline="", encoding="utf-8") as source:
        rows = [r for r in csv.DictReader(source) if not (r.get("verdict") or "").strip()]
    answers = {"g": "good", "b": "bad"}
    verdicts: list[Verdict] = []
    for number, row in enumerate(rows, start=1):
        reason = row["failed_rule_names"] or "passed every filter"
        click.echo(
            f"\n[{number}/{len(rows)}] {row['document_id']} ({row['language']}, "
            f"{row['decision']}: {reason})\n{row['excerpt']}\n"
        )
        choice = click.prompt(
            "good training text? [g]ood [b]ad [s]kip [q]uit",
            type=click.Choice(["g", "b", "s", "q"]),
            show_choices=False,
        )
        if choice == "q":
            break
        if choice in answers:
            verdicts.append(
                Verdict(
                    row["document_id"],
                    answers[choice],
                    reviewer,
                    content_md5=(row.get("content_md5") or "").strip() or None,
                )
            )
    return verdicts


@click.group("quality")
def quality_group() -> None:
    """The trained quality model: train one from labelled documents."""


@quality_group.command("train")
@click.option(
    "--labels",
    "labels",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="JSON Lines: text, label (keep/drop), optional language and source. Repeatable.",
)
@click.option(
    "--reviews",
    is_flag=True,
    help="Also the lakehouse's review verdicts (good: keep, bad: drop; source `review`).",
)
@click.option(
    "--keep-source",
    "keep_sources",
    multiple=True,
    help="An ingested source whose every document is reference text (keep). Repeatable.",
)
@click.option(
    "--drop-source",
    "drop_sources",
    multiple=True,
    help="An ingested source whose every document is junk (drop). Repeatable.",
)
@click.option(
    "--holdout-source",
    help="Measure on the documents of this source, fit on the others (the project's rule: fit"
    " on one source, report on another). Default: a tenth of every source.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of the training order.")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Model file to write (default: LAKEMIX_HOME/quality_models/<digest>.lqm).",
)
def quality_train_command(
    labels: tuple[Path, ...],
    reviews: bool,
    keep_sources: tuple[str, ...],
    drop_sources: tuple[str, ...],
    holdout_source: str | None,
    seed: int,
    out: Path | None,
) -> None:
    """Train a quality model from labelled files, review verdicts and declared sources; print
    its held-out figures and how a build uses it."""
    from lakemix.quality.training import LabelsError, lakehouse_labels, train_from_labels
    from lakemix.settings import Settings

    settings = Settings.from_env()
    if not (labels or reviews or keep_sources or drop_sources):
        raise LabelsError("nothing to learn from: give --labels, --reviews or --keep/--drop-source")
    extra = None
    if reviews or keep_sources or drop_sources:
        from lakemix.quality.session import open_session

        conn = open_session(None, settings=settings)
        try:
            extra = lakehouse_labels(
                conn, reviews=reviews, keep_sources=keep_sources, drop_sources=drop_sources
            )
        finally:
            conn.close()
    result = train_from_labels(
        list(labels),
        out_folder=settings.home / "quality_models",
        holdout_source=holdout_source,
        seed=seed,
        out=out,
        extra=extra,
    )
    from lakemix.catalog import catalog
    from lakemix.quality.training import record_training
    from lakemix.writer import writer

    with writer("lakemix quality train"):  # one row of meta.quality_models: the learning curve
        record_training(catalog(settings), result)
    m = result.metrics
    click.echo(
        f"fit on {result.fitted:,} documents; held out {result.held_out:,} ({result.held_out_by}):"
        f" accuracy {m['accuracy']:.3f}, keep precision {m['precision']:.3f}"
        f" recall {m['recall']:.3f}"
    )
    if holdout_source is None:
        click.echo("  (held out from the sources it was fit on: give --holdout-source to judge it)")
    click.echo(f"wrote {result.path} (sha256 {result.digest})")
    path = result.path.resolve()
    click.echo(
        f"use it: set the var lakemix_quality_model: {path} (dbt_project.yml), then "
        "`dbt build --select int_documents_quality_scored+ --full-refresh`"
    )


@quality_group.command("simulate")
@click.option(
    "--labels",
    "labels",
    required=True,
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The labelled pool (JSON Lines, as for train); its labels play the reviewers.",
)
@click.option(
    "--strategy",
    "strategies",
    multiple=True,
    type=click.Choice(["random", "uncertainty", "disagreement", "stratified"]),
    help="How each round chooses documents to label. Repeatable; default: all four.",
)
@click.option("--holdout-source", help="Measure on this source (default: a tenth by hash).")
@click.option("--start", default=50, show_default=True, help="Random labels to start from.")
@click.option("--batch", default=50, show_default=True, help="Labels asked for per round.")
@click.option("--budget", default=1000, show_default=True, help="Labels at most.")
@click.option("--seed", default=0, show_default=True, help="Seed of the draws and training.")
def quality_simulate_command(
    labels: tuple[Path, ...],
    strategies: tuple[str, ...],
    holdout_source: str | None,
    start: int,
    batch: int,
    budget: int,
    seed: int,
) -> None:
    """Replay the review loop on a labelled pool: labels used against held-out accuracy."""
    from lakemix.quality.simulate import STRATEGIES, simulate
    from lakemix.quality.training import read_labels

    docs, _ = read_labels(list(labels))
    curves = {}
    for strategy in strategies or STRATEGIES:
        curves[strategy] = simulate(
            docs,
            strategy=strategy,
            holdout_source=holdout_source,
            start=start,
            batch=batch,
            budget=budget,
            seed=seed,
        )
        last = curves[strategy][-1]
        click.echo(f"{strategy}: {last.labels} labels, held-out accuracy {last.accuracy:.3f}")
    names = list(curves)
    rows: dict[int, dict[str, str]] = {p.labels: {} for curve in curves.values() for p in curve}
    for name, curve in curves.items():
        for p in curve:
            rows[p.labels][name] = f"{p.accuracy:.3f}"
    click.echo("labels  " + "  ".join(f"{n:>12}" for n in names))
    for count in sorted(rows):
        click.echo(f"{count:>6}  " + "  ".join(f"{rows[count].get(n, ''):>12}" for n in names))
    if "random" in curves:
        target = curves["random"][-1]
        for name, curve in curves.items():
            reached = next((p.labels for p in curve if p.accuracy >= target.accuracy), None)
            click.echo(
                f"{name} reaches random's accuracy at {target.labels} labels "
                f"({target.accuracy:.3f}) with "
                + (f"{reached} labels" if reached is not None else "more labels than it had")
            )
