"""The dataset card (``README.md``) of an export: the release it holds and how to read it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakemix.export.journal import Journal

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

EXTENSIONS = {"parquet": "parquet", "jsonl": "jsonl"}


def _front_matter(split: str, fmt: str) -> str:
    """Hugging Face's YAML header: ``load_dataset(OUT)`` finds the shards of the split."""
    if fmt not in EXTENSIONS:
        return ""
    return (
        "---\nconfigs:\n  - config_name: default\n    data_files:\n"
        f'      - split: {split}\n        path: "{split}-*.{EXTENSIONS[fmt]}"\n---\n\n'
    )


def dataset_card(journal: Journal, manifest: Manifest, how_to_read: str) -> str:
    """The README of a finished export."""
    header = journal.header
    split, fmt = header["split"], header["format"]
    totals = journal.totals()
    rows = "\n".join(
        f"| {s.language} | {s.documents:,} | {s.samples:,} | {s.tokens:,} |"
        for s in manifest.split_stats(split)
    )
    git = manifest.git
    counts = ", ".join(f"{v:,} {k}" for k, v in totals.items())
    return (
        f"{_front_matter(split, fmt)}"
        f"# {manifest.mix}: release {manifest.tag}, {split} split\n\n"
        f"Exported by `lakemix export {manifest.tag} --split {split} --format {fmt}` from "
        f"the lakemix release `{manifest.tag}` of mix `{manifest.mix}` (released "
        f"{manifest.released_at}, checksum `{manifest.checksum}`, git "
        f"`{git.commit[:12]}`{' dirty' if git.dirty else ''}, config "
        f"`{manifest.config_hash[:16]}`).\n\n"
        f"{len(journal.shards)} shards: {counts}. `export.json` lists each shard's files with "
        "their bytes and SHA-256, and its counts.\n\n"
        "## Contents\n\n"
        "| language | documents | samples (copies) | tokens |\n|---|---|---|---|\n"
        f"{rows}\n\n"
        f"## Reading it\n\n{how_to_read}\n"
        "## Lineage\n\n"
        "Every document carries its lakemix `document_id`; in the lakehouse, `lakemix lineage "
        "DOCUMENT_ID` prints its raw file and offset, every decision on the way (language, "
        "quality rules, duplicate cluster, redaction) and the releases holding it; `lakemix "
        f"show {manifest.tag}` prints the release's manifest.\n"
    )
