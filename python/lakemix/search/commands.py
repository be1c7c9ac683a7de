"""``lakemix search``: full-text search over the documents, from the command line."""

from __future__ import annotations

import click


@click.command("search")
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
    from lakemix.search import search

    hits = search(
        query,
        language=language,
        source=source,
        min_score=min_score,
        include_rejected=include_rejected,
        limit=limit,
    )
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
