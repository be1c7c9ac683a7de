"""The ``lakemix`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from lakemix.errors import LakemixError
from lakemix.ingest.formats import FORMATS
from lakemix.writer import wait_option, writer

# The commands of other packages, by name (package, module, attribute): each imported when it
# is run (or listed by ``--help``), so that ``lakemix search`` does not import what ``lakemix
# release`` needs (pyarrow alone is 0.1 s of a process that otherwise answers in 0.1 s).
_ELSEWHERE = {
    "benchmark": ("lakemix.ingest", "commands", "benchmark_group"),
    "blocklist": ("lakemix.ingest", "commands", "blocklist_group"),
    "calibrate": ("lakemix.quality", "commands", "calibrate_command"),
    "compare": ("lakemix.tracking", "commands", "compare_command"),
    "diff": ("lakemix.versions", "commands", "diff_command"),
    "export": ("lakemix.export", "commands", "export_command"),
    "gc": ("lakemix.versions", "commands", "gc_command"),
    "rebuild": ("lakemix.versions", "commands", "rebuild_command"),
    "recover-metadata": ("lakemix.versions", "commands", "recover_metadata_command"),
    "relocate": ("lakemix.versions", "commands", "relocate_command"),
    "release": ("lakemix.versions", "commands", "release_command"),
    "report": ("lakemix.quality", "commands", "report_command"),
    "review": ("lakemix.quality", "commands", "review_group"),
    "runs": ("lakemix.tracking", "commands", "runs_command"),
    "quality": ("lakemix.quality", "commands", "quality_group"),
    "search": ("lakemix.search", "commands", "search_command"),
    "show": ("lakemix.loader", "show", "show_command"),  # show TAG (its tracked runs), --run RUN
    "spark": ("lakemix.spark", "commands", "spark_group"),
    "sql": ("lakemix.versions", "commands", "sql_command"),
    "verify": ("lakemix.versions", "commands", "verify_command"),
    "versions": ("lakemix.versions", "commands", "versions_command"),
}


class _Commands(click.Group):
    """Every command: a lakemix error (bad input, a missing release, an unreachable catalog with
    its password hidden, ...) is a one-line message and exit status 1, not a trace. The
    commands of ``_ELSEWHERE`` are imported when named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_ELSEWHERE})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _ELSEWHERE and cmd_name not in self.commands:
            import importlib

            package, module, name = _ELSEWHERE[cmd_name]
            command = getattr(importlib.import_module(f".{module}", package), name)
            if command.name != cmd_name:
                raise RuntimeError(f"{package}.{module}.{name} is command {command.name!r}")
            self.add_command(command)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        from lakemix.iceberg.missing import describe

        try:
            return super().invoke(ctx)
        except LakemixError as exc:
            raise click.ClickException(str(exc)) from None
        except Exception as exc:  # a lost table file, from DuckDB, pyarrow or pyiceberg
            missing = describe(exc)
            if missing is None:
                raise
            raise click.ClickException(str(missing)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="Read what symlinks in a directory lead to outside the given paths (default: list "
    "them as not read).",
)
@wait_option
def ingest_command(
    paths: tuple[Path, ...],
    source: str,
    fmt: str,
    text_field: str | None,
    id_field: str | None,
    url_field: str | None,
    drop_fields: tuple[str, ...],
    progress: bool | None,
    follow_symlinks: bool,
    wait: float,
) -> None:
    """Append raw files (JSONL, Parquet, text, OSCAR, HPLT; gzip or zstd) to raw.documents.

    Exits 1 when nothing was ingested because the files given could not be read."""
    from lakemix.ingest import ingest
    from lakemix.report import print_ingest

    with writer("lakemix ingest", wait=wait):
        result = ingest(
            paths,
            source=source,
            fmt=fmt,
            text_field=text_field,
            id_field=id_field,
            url_field=url_field,
            drop_fields=drop_fields,
            progress=progress,
            follow_symlinks=follow_symlinks,
        )
    print_ingest(result, sys.stdout)
    if result.failed:  # every file given was unreadable: a script must not carry on
        sys.exit(1)


@main.command("ingests")
def ingests_command() -> None:
    """List the ingests in raw.documents and raw.quarantine: id, time, source, files, rows."""
    from lakemix.report import print_ingests

    print_ingests(sys.stdout)


@main.command("ingest-remove")
@click.argument("ingest_id")
@wait_option
def ingest_remove_command(ingest_id: str, wait: float) -> None:
    """Delete the rows, quarantine rows and ledger entries of one ingest (its id or a prefix of
    6+ characters, from `lakemix ingests`). Releases keep reading them through their tags; the
    files can be ingested again."""
    from lakemix.ingest.remove import remove_ingest

    with writer("lakemix ingest-remove", wait=wait):
        removal = remove_ingest(ingest_id)
    rows = ", ".join(f"{n:,} rows from {t}" for t, n in removal.rows.items())
    click.echo(f"removed ingest {removal.ingest_id}: {rows} ({removal.files} files)")
    click.echo(
        "the incremental models still hold its documents: run `dbt build --full-refresh` "
        "before the next mix build or release"
    )


@main.command("tables")
def tables_command() -> None:
    """Row counts of every Iceberg table, and documents per source in raw.documents."""
    from lakemix.report import print_tables

    print_tables(sys.stdout)


@main.group("mix")
def mix_group() -> None:
    """Plan and build training mixes defined in mixes/<name>.yml."""


def _plan(name: str) -> object:
    from lakemix.mix.lakehouse import available_tokens, column_tokens, mixes_directory
    from lakemix.mix.plan import make_plan
    from lakemix.mix.spec import load

    spec = load(name, mixes_directory())
    return make_plan(spec, available_tokens(spec), group_tokens=column_tokens(spec))


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
@click.option(
    "--engine",
    type=click.Choice(["duckdb", "spark"]),
    default="duckdb",
    show_default=True,
    help="Run the mix models on DuckDB or on Spark (same Iceberg tables).",
)
@wait_option
def mix_build_command(name: str, engine: str, wait: float) -> None:
    """Write the mix's plan to meta.mix_plans and materialize marts.mix_<name> (dbt build)."""
    from lakemix.mix.lakehouse import build, build_arguments, write_plan
    from lakemix.mix.plan import MixPlan
    from lakemix.report import print_plan

    plan = _plan(name)
    assert isinstance(plan, MixPlan)
    print_plan(plan, sys.stdout)
    with writer(f"lakemix mix build {name}", wait=wait):  # its dbt build runs under this lock
        write_plan(plan)
        if engine == "spark":
            from lakemix.spark.dbt import run_dbt

            code = run_dbt(build_arguments(plan.spec))
        else:
            code = build(plan.spec)
        if code != 0:
            raise click.ClickException(
                f"dbt build of mix {name} failed (exit {code}); the mix is not built"
            )
        from lakemix.catalog import catalog
        from lakemix.mix.dependencies import record

        record(catalog(), name)  # a release needs them, whatever target/ holds by then
    from lakemix.tables import mix_languages_table, mix_table

    click.echo(f"built {mix_table(name)} and {mix_languages_table(name)}")


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
    metavar="DIR|mlflow:RUN_ID",
    help="Training run folder (its run.json), or a run tracked in MLflow: the documents the "
    "run consumed.",
)
@click.option(
    "--megatron",
    metavar="PREFIX:INDEX",
    help="Document INDEX of an exported Megatron shard (lakemix export): its document's lineage.",
)
@click.option(
    "--tracking-uri",
    envvar="MLFLOW_TRACKING_URI",
    help="MLflow tracking server of an mlflow: run (default: $MLFLOW_TRACKING_URI).",
)
@click.option(
    "--fetched",
    is_flag=True,
    help="With DOCUMENT_ID of a web archive's page: the record as fetched (its headers and "
    "the HTTP response), read again from the archive.",
)
def lineage_command(
    document_id: str | None,
    column: str | None,
    run_dir: str | None,
    megatron: str | None,
    tracking_uri: str | None,
    fetched: bool,
) -> None:
    """Where a document or a mart column comes from, or what a training run read.

    DOCUMENT_ID: its raw file and offset, ingest snapshot, every decision on the way (language,
    quality rules, duplicate cluster, redaction, tokens), its mixes and the releases holding it.
    --column: the upstream model columns down to raw source fields.
    --run DIR: the release the run read and every document it consumed, with its copies;
    --run mlflow:RUN_ID: the same through the run record the run logged to MLflow.
    --megatron PREFIX:INDEX: the document at INDEX of an exported Megatron shard.
    --fetched: a web archive's page as it was fetched, read again from its archive.
    """
    if sum(x is not None for x in (document_id, column, run_dir, megatron)) != 1:
        raise click.UsageError(
            "give a DOCUMENT_ID, --column marts.<table>.<column>, --run DIR or "
            "--megatron PREFIX:INDEX"
        )
    if megatron is not None:
        document_id = _megatron_document(megatron)
    if run_dir is not None:
        click.echo(_format_run(run_dir, tracking_uri))
        return
    from lakemix.lineage import column_lineage, format_tree, load_project

    if fetched and document_id is None:
        raise click.UsageError("--fetched shows the record of one DOCUMENT_ID")
    if document_id is not None:
        from lakemix.lineage.rows import document_lineage, fetched_record, format_document

        if fetched:
            click.echo(fetched_record(document_id))
            return
        click.echo(format_document(document_lineage(document_id)))
        return
    assert column is not None
    tree = column_lineage(load_project(), column)
    click.echo(format_tree(tree, title=column))


def _format_run(run: str, tracking_uri: str | None = None) -> str:
    """``lakemix lineage --run``: a run folder, or ``mlflow:RUN_ID`` (its logged run record)."""
    import tempfile

    from lakemix.loader.runs import format_run, read_run_record
    from lakemix.settings import Settings
    from lakemix.tracking.runs import PREFIX, TrackingError, fetch_record, release_problem

    settings = Settings.from_env()
    with tempfile.TemporaryDirectory(prefix="lakemix-run-") as tmp:
        tracked = run.startswith(PREFIX)
        folder = fetch_record(run, tmp, uri=tracking_uri).parent if tracked else Path(run)
        record = read_run_record(folder)
        problem = release_problem(record["tag"], record["checksum"], settings)
        if problem is not None:
            raise TrackingError(f"run {run} read release {record['tag']}, but {problem}")
        return format_run(folder, settings, label=run)


def _megatron_document(position: str) -> str:
    """``PREFIX:INDEX`` of an exported Megatron shard -> the document id there (echoed)."""
    from lakemix.export import locate

    prefix, _, index = position.rpartition(":")
    if not prefix or not index.isdigit():
        raise click.BadParameter(
            f"{position!r}: write PREFIX:INDEX, e.g. out/train-00000:12", param_hint="--megatron"
        )
    try:
        found = locate(prefix, document=int(index))
    except (FileNotFoundError, IndexError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"{prefix} document {found['index']}: {found['document_id']} (copy {found['copy']}, "
        f"tokens {found['token_start']}..{found['token_start'] + found['token_count']})"
    )
    return str(found["document_id"])


@main.command("docs")
@click.option("--port", default=8080, show_default=True, help="Port on 127.0.0.1.")
@click.option("--mix", help="Document this mix's models too (dbt var lakemix_mix).")
@click.option("--serve/--no-serve", default=True, help="Serve the site after generating it.")
def docs_command(port: int, mix: str | None, serve: bool) -> None:
    """Generate the dbt docs site with column lineage, and serve it until Ctrl-C."""
    from lakemix import docs

    target = docs.generate(mix=mix)
    count = docs.annotate(target)
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


if __name__ == "__main__":
    main()
