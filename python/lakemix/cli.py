"""The ``lakemix`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from lakemix.ingest.formats import FORMATS


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


if __name__ == "__main__":
    main()
