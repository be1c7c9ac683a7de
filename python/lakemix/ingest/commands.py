"""``lakemix blocklist`` and ``lakemix benchmark``: the lists the build rejects documents by
(domains and URLs; evaluation sets to decontaminate against)."""

from __future__ import annotations

from pathlib import Path

import click

from lakemix.writer import wait_option, writer


@click.group("blocklist")
def blocklist_group() -> None:
    """Domain and URL block lists (UT1's format; a do-not-train list): add, list, remove. The
    next `dbt build` rejects every document they list (rule url_blocklist:<category>)."""


@blocklist_group.command("add")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", required=True, help="The list's name; adding a name again replaces it.")
@click.option(
    "--category",
    help="Category of every entry (default: UT1's folder of each file, or the file's name).",
)
@click.option(
    "--kind",
    type=click.Choice(["domain", "url"]),
    help="What a file not named `domains` or `urls` lists.",
)
@wait_option
def add_command(path: Path, name: str, category: str | None, kind: str | None, wait: float) -> None:
    """Store the list at PATH: a UT1 folder or archive (a `domains` and a `urls` file per
    category), or one file of a domain or URL per line."""
    from lakemix.catalog import catalog
    from lakemix.ingest.blocklists import add

    with writer("lakemix blocklist add", wait=wait):
        added = add(catalog(), name, path, category=category, kind=kind)
    for (own, file_kind), count in sorted(added.entries.items()):
        click.echo(f"{name}: {count:,} {file_kind}s in category {own}")
    if added.unreadable:
        click.echo(f"{name}: {added.unreadable:,} lines read as no domain or URL, skipped")
    if added.replaced:
        click.echo(f"{name}: replaced its {added.replaced:,} entries stored before")


@blocklist_group.command("list")
def list_command() -> None:
    """The stored lists: name, category, kind, entries, when added."""
    from lakemix.catalog import catalog
    from lakemix.ingest.blocklists import stored

    summaries = stored(catalog())
    if not summaries:
        click.echo("no block list stored: `lakemix blocklist add PATH --name NAME`")
        return
    for s in summaries:
        when = s.added_at.strftime("%Y-%m-%d %H:%M")
        click.echo(f"{s.name}\t{s.category}\t{s.kind}\t{s.entries:,}\t{when}")


@blocklist_group.command("remove")
@click.argument("name")
@wait_option
def remove_command(name: str, wait: float) -> None:
    """Delete the list stored under NAME."""
    from lakemix.catalog import catalog
    from lakemix.ingest.blocklists import remove

    with writer("lakemix blocklist remove", wait=wait):
        count = remove(catalog(), name)
    click.echo(f"removed block list {name} ({count:,} entries)")


@click.group("benchmark")
def benchmark_group() -> None:
    """Evaluation sets to decontaminate against: add, list, remove. The next `dbt build`
    rejects every document sharing a 13-word n-gram with an item (rule
    decontamination:<name>)."""


@benchmark_group.command("add")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", required=True, help="The benchmark's name; adding it again replaces it.")
@click.option(
    "--field",
    "fields",
    multiple=True,
    help="A field holding the item's text (repeat; default: text, else question and answer "
    "fields).",
)
@wait_option
def benchmark_add_command(path: Path, name: str, fields: tuple[str, ...], wait: float) -> None:
    """Store the evaluation set at PATH (JSON Lines, .gz too): one item per line."""
    from lakemix.catalog import catalog
    from lakemix.ingest.benchmarks import NGRAM_WORDS, add

    with writer("lakemix benchmark add", wait=wait):
        added = add(catalog(), name, path, fields)
    click.echo(f"{name}: {added.items:,} items")
    if added.short:
        click.echo(
            f"{name}: {added.short:,} items of fewer than {NGRAM_WORDS} words cannot be matched "
            "by a long n-gram and are not checked"
        )
    if added.replaced:
        click.echo(f"{name}: replaced its {added.replaced:,} items stored before")


@benchmark_group.command("list")
def benchmark_list_command() -> None:
    """The stored benchmarks: name, items, file, when added."""
    from lakemix.catalog import catalog
    from lakemix.ingest.benchmarks import stored

    summaries = stored(catalog())
    if not summaries:
        click.echo("no benchmark stored: `lakemix benchmark add FILE --name NAME`")
        return
    for s in summaries:
        click.echo(f"{s.name}\t{s.items:,}\t{s.file}\t{s.added_at.strftime('%Y-%m-%d %H:%M')}")


@benchmark_group.command("remove")
@click.argument("name")
@wait_option
def benchmark_remove_command(name: str, wait: float) -> None:
    """Delete the benchmark stored under NAME."""
    from lakemix.catalog import catalog
    from lakemix.ingest.benchmarks import remove

    with writer("lakemix benchmark remove", wait=wait):
        count = remove(catalog(), name)
    click.echo(f"removed benchmark {name} ({count:,} items)")
