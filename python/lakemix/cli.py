"""The ``lakemix`` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lakemix.ingest.formats import FORMATS

if TYPE_CHECKING:
    from lakemix.quality.review import Verdict


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lakemix")
def main() -> None:
    """lakemix: raw text corpora into clean, deduplicated, versioned training mixes."""


@main.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--source", required=True, help="Name of the corpus these files belong to.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True)
@click.option("--text-field", help="Field holding the text (default: text, then content).")
@click.option("--id-field", help="Field holding the record's own id (default: id).")
@click.option("--url-field", help="Field holding the URL (default: url, metadata.url, ...).")
@click.option(
    "--drop-field",
    "drop_fields",
    multiple=True,
    help="Field to leave out of metadata (repeatable).",
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar (default: on a terminal)."
)
def ingest_command(
    paths: tuple[Path, ...],
    source: str,
    fmt: str,
    text_field: str | None,
    id_field: str | None,
    url_field: str | None,
    drop_fields: tuple[str, ...],
    progress: bool | None,
) -> None:
    """Append raw files (JSONL, Parquet, text, OSCAR, HPLT; gzip or zstd) to raw.documents."""
    from lakemix.catalog import CatalogUnavailableError
    from lakemix.ingest import IngestInputError, ingest
    from lakemix.report import print_ingest

    try:
        result = ingest(
            paths,
            source=source,
            fmt=fmt,
            text_field=text_field,
            id_field=id_field,
            url_field=url_field,
            drop_fields=drop_fields,
            progress=progress,
        )
    except (IngestInputError, CatalogUnavailableError) as exc:
        raise click.ClickException(str(exc)) from None
    print_ingest(result, sys.stdout)


@main.command("tables")
def tables_command() -> None:
    """Row counts of every Iceberg table, and documents per source in raw.documents."""
    from lakemix.catalog import CatalogUnavailableError
    from lakemix.report import print_tables

    try:
        print_tables(sys.stdout)
    except CatalogUnavailableError as exc:
        raise click.ClickException(str(exc)) from None


@main.group("mix")
def mix_group() -> None:
    """Plan and build training mixes defined in mixes/<name>.yml."""


def _plan(name: str) -> object:
    from lakemix.mix.lakehouse import available_tokens, mixes_directory
    from lakemix.mix.plan import make_plan
    from lakemix.mix.spec import MixSpecError, load

    try:
        spec = load(name, mixes_directory())
        return make_plan(spec, available_tokens(spec))
    except MixSpecError as exc:
        raise click.ClickException(str(exc)) from None


@mix_group.command("plan")
@click.argument("name")
def mix_plan_command(name: str) -> None:
    """Print the per-language plan of a mix; nothing is written."""
    from lakemix.mix.plan import MixPlan
    from lakemix.report import print_plan

    plan = _plan(name)
    assert isinstance(plan, MixPlan)
    print_plan(plan, sys.stdout)


@mix_group.command("build")
@click.argument("name")
def mix_build_command(name: str) -> None:
    """Write the mix's plan to meta.mix_plans and materialize marts.mix_<name> (dbt build)."""
    from lakemix.mix.lakehouse import build, write_plan
    from lakemix.mix.plan import MixPlan
    from lakemix.report import print_plan

    plan = _plan(name)
    assert isinstance(plan, MixPlan)
    print_plan(plan, sys.stdout)
    write_plan(plan)
    code = build(plan.spec)
    if code != 0:
        raise click.ClickException(
            f"dbt build of mix {name} failed (exit {code}); the mix is not built"
        )
    click.echo(f"built marts.mix_{name} and marts.mix_{name}_languages")


@main.command("lineage")
@click.argument("document_id", required=False)
@click.option(
    "--column",
    metavar="marts.<table>.<column>",
    help="Column whose upstream columns and source fields to print.",
)
@click.option(
    "--run",
    "run_dir",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Training run folder (its run.json): the documents the run consumed.",
)
def lineage_command(document_id: str | None, column: str | None, run_dir: Path | None) -> None:
    """Where a document or a mart column comes from, or what a training run read.

    DOCUMENT_ID: its raw file and offset, ingest snapshot, every decision on the way (language,
    quality rules, duplicate cluster, redaction, tokens), its mixes and the releases holding it.
    --column: the upstream model columns down to raw source fields.
    --run DIR: the release the run read and every document it consumed, with its copies.
    """
    if sum(x is not None for x in (document_id, column, run_dir)) != 1:
        raise click.UsageError("give a DOCUMENT_ID, --column marts.<table>.<column> or --run DIR")
    if run_dir is not None:
        from lakemix.loader.runs import RunRecordError, format_run

        try:
            click.echo(format_run(run_dir))
        except (RunRecordError, LookupError, RuntimeError) as exc:
            raise click.ClickException(str(exc)) from None
        return
    from lakemix.lineage import LineageError, column_lineage, format_tree, load_project

    if document_id is not None:
        from lakemix.lineage.rows import document_lineage, format_document

        try:
            click.echo(format_document(document_lineage(document_id)))
        except LineageError as exc:
            raise click.ClickException(str(exc)) from None
        return
    assert column is not None
    try:
        tree = column_lineage(load_project(), column)
    except LineageError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_tree(tree, title=column))


@main.command("docs")
@click.option("--port", default=8080, show_default=True, help="Port on 127.0.0.1.")
@click.option("--mix", help="Document this mix's models too (dbt var lakemix_mix).")
@click.option("--serve/--no-serve", default=True, help="Serve the site after generating it.")
def docs_command(port: int, mix: str | None, serve: bool) -> None:
    """Generate the dbt docs site with column lineage, and serve it until Ctrl-C."""
    from lakemix import docs
    from lakemix.lineage import LineageError

    try:
        target = docs.generate(mix=mix)
        count = docs.annotate(target)
    except (docs.DocsError, LineageError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"lineage added to {count} mart columns in {target / 'manifest.json'}")
    if not serve:
        return
    server = docs.serve(target, port=port)
    click.echo(f"serving the docs site at http://127.0.0.1:{server.server_port}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@main.command("search")
@click.argument("query")
@click.option("--language", help="Only documents of this ISO 639 language code.")
@click.option("--source", help="Only documents of this source.")
@click.option("--min-score", type=float, help="Only documents scoring at least this (BM25).")
@click.option("--include-rejected", is_flag=True, help="Also rejected documents, with reasons.")
@click.option("--limit", default=10, show_default=True, help="Hits to print.")
def search_command(
    query: str,
    language: str | None,
    source: str | None,
    min_score: float | None,
    include_rejected: bool,
    limit: int,
) -> None:
    """Full-text search (BM25) over the documents, with scores and lineage."""
    from lakemix.search import SearchError, search

    try:
        hits = search(
            query,
            language=language,
            source=source,
            min_score=min_score,
            include_rejected=include_rejected,
            limit=limit,
        )
    except (SearchError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if not hits:
        click.echo(f"no document matches {query!r}")
        return
    for hit in hits:
        status = "clean" if hit.is_clean else "rejected: " + ", ".join(hit.failed_rule_names)
        click.echo(
            f"{hit.score:7.3f}  {hit.document_id}  {hit.language}  {hit.source_id}  {status}\n"
            f"         {hit.file_path}:{hit.file_offset}  {hit.url or ''}\n"
            f"         {hit.snippet(query)}"
        )


@main.command("report")
@click.option("--tag", help="Report on a release (every table as tagged) instead of now.")
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="HTML file to write (default: LAKEMIX_HOME/reports/quality-<tag or current>.html).",
)
def report_command(tag: str | None, output: Path | None) -> None:
    """Write the quality report: one static HTML file with plots and the numbers behind them."""
    from lakemix.quality import write_report
    from lakemix.versions.refs import VersionError
    from lakemix.versions.release import ReleaseError

    try:
        result = write_report(output, tag=tag)
    except (ReleaseError, VersionError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {result.path} ({result.size_bytes / 1e3:,.0f} kB) in {result.seconds:.1f} s")


@main.group("review")
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
def review_sample_command(size: int, seed: int, output: Path | None) -> None:
    """Draw kept and rejected documents, stratified by language and rule, into a CSV to label."""
    from lakemix.quality import review
    from lakemix.quality.session import open_session
    from lakemix.settings import Settings

    settings = Settings.from_env()
    try:
        conn = open_session(None, settings=settings)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        rows = review.sample(conn, n=size, seed=seed)
    except review.ReviewError as exc:
        raise click.ClickException(str(exc)) from None
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

    settings = Settings.from_env()
    if csv_path is not None:
        try:
            verdicts = review.read_verdicts(csv_path, reviewer=reviewer)
        except review.ReviewError as exc:
            raise click.ClickException(str(exc)) from None
    else:
        verdicts = _prompt_verdicts(
            sample_path or review.default_sample_path(settings, 0), reviewer
        )
    count = review.record(catalog(settings), verdicts)
    click.echo(f"recorded {count} verdicts by {reviewer} in {review.VERDICTS_TABLE}")


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
            verdicts.append(Verdict(row["document_id"], answers[choice], reviewer))
    return verdicts


def _add_version_commands() -> None:
    from lakemix.versions import commands

    for command in (
        commands.diff_command,
        commands.gc_command,
        commands.rebuild_command,
        commands.release_command,
        commands.show_command,
        commands.sql_command,
        commands.versions_command,
    ):
        main.add_command(command)


_add_version_commands()

if __name__ == "__main__":
    main()
