"""``lakemix export``: the CLI of ``lakemix.export.run.export``."""

from __future__ import annotations

import re
from pathlib import Path

import click

from lakemix.export.run import DEFAULT_SHARD_SIZE, FORMATS

UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
}


def parse_size(text: str) -> int:
    """``256MB``, ``1GiB``, ``500kB`` or a number of bytes -> bytes.

    Raises:
        click.BadParameter: Not a size.
    """
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = found.group(2).lower() if found else ""
    if found is None or unit not in UNITS or float(found.group(1)) <= 0:
        raise click.BadParameter(f"{text!r} is not a size; write e.g. 256MB, 1GiB or 500kB")
    return max(1, int(float(found.group(1)) * UNITS[unit]))


@click.command("export")
@click.argument("tag")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--split", default="train", show_default=True, help="train or validation.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True, help="File format.")
@click.option(
    "--tokenizer",
    help="megatron: token ids of this encoding (cl100k, o200k, llama3, qwen3) instead of the "
    "release's.",
)
@click.option(
    "--shard-size",
    default=f"{DEFAULT_SHARD_SIZE >> 20}MiB",
    show_default=True,
    help="About this much per shard: text for parquet/jsonl, token ids for megatron.",
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar (default: on a terminal)."
)
def export_command(
    tag: str,
    out: Path,
    split: str,
    fmt: str,
    tokenizer: str | None,
    shard_size: str,
    progress: bool | None,
) -> None:
    """Write split SPLIT of release TAG into folder OUT as FORMAT shards with a manifest.

    Resumable: run the same command again after a kill and it goes on after the last finished
    shard (finished shards are never rewritten). OUT/export.json names the release, its
    checksum and each shard's counts and SHA-256; OUT/README.md is the dataset card.
    """
    from lakemix.export import export

    result = export(
        tag,
        out,
        fmt=fmt,
        split=split,
        tokenizer=tokenizer,
        shard_size=parse_size(shard_size),
        progress=progress,
    )
    totals = result.manifest["totals"]
    shards = len(result.manifest["shards"])
    if result.written_shards == 0 and result.resumed_shards:
        click.echo(f"{out} holds this export already, complete: nothing to do")
    elif result.resumed_shards:
        click.echo(f"resumed: {result.resumed_shards} shards were finished before")
    click.echo(
        f"exported release {tag} ({split}) as {fmt}: {shards} shards, "
        f"{totals.get('documents', 0):,} documents, {totals.get('copies', 0):,} copies, "
        f"{totals.get('tokens', 0):,} tokens; manifest {out / 'export.json'}"
    )
