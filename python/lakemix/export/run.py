"""``lakemix export``: a release split into the files trainers read, shard by shard, resumably."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.export.card import dataset_card
from lakemix.export.journal import CARD, Journal, shard_stem, write_atomically
from lakemix.export.shards import Format, Shard, cut
from lakemix.export.source import ExportError, open_release, split_documents
from lakemix.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from lakemix.versions.manifest import Manifest

FORMATS = ("megatron", "parquet", "jsonl")
DEFAULT_SHARD_SIZE = 256 << 20


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote.

    Attributes:
        out: The export folder.
        manifest: Its ``export.json``, as written.
        resumed_shards: Shards a previous, interrupted run had finished (0 for a fresh export).
        written_shards: Shards this run wrote.
    """

    out: Path
    manifest: dict[str, Any]
    resumed_shards: int
    written_shards: int


def _format(fmt: str, manifest: Manifest, split: str, settings: Settings, out: Path,
            tokenizer: str | None, announce: bool) -> Format:  # fmt: skip
    if fmt == "megatron":
        from lakemix.export.megatron import MegatronFormat
        from lakemix.loader.store import build_store, store_path, tokenizer_of

        encoding = tokenizer or tokenizer_of(manifest)
        if announce and not store_path(manifest, split, settings, encoding=encoding).exists():
            print(f"tokenizing {split} of {manifest.tag} with {encoding} (once)", file=sys.stderr)
        try:
            store = build_store(manifest, split, settings, encoding=encoding)
        except ValueError as exc:
            raise ExportError(str(exc)) from None
        return MegatronFormat(store, encoding, out)
    from lakemix.export.text import TextFormat

    return TextFormat(fmt, manifest, split, settings, out)


def _progress(total: int, done: int, enabled: bool | None) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=done,
        unit="doc",
        unit_scale=True,
        desc="export",
        disable=(not sys.stderr.isatty()) if enabled is None else not enabled,
        file=sys.stderr,
    )


def export(
    tag: str,
    out: str | Path,
    *,
    fmt: str,
    split: str = "train",
    tokenizer: str | None = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    progress: bool | None = None,
    settings: Settings | None = None,
    on_shard: Callable[[dict[str, Any]], None] | None = None,
) -> ExportResult:
    """Export split ``split`` of release ``tag`` into ``out`` in format ``fmt``.

    Streams: at most a piece of documents (a few thousand) and one shard's per-document
    index are held at once. Each shard is published (renamed into place) and then recorded in
    ``out/export.json``; run again after a kill, it resumes after the last recorded shard and
    writes the same files an uninterrupted run would have. A finished export is not redone.

    Args:
        tag: The release.
        out: The folder (new, empty, or holding this same export, interrupted or finished).
        fmt: ``megatron``, ``parquet`` or ``jsonl``.
        split: ``train`` or ``validation``.
        tokenizer: ``megatron`` only: another encoding than the release's.
        shard_size: Bytes a shard holds, about (text bytes for parquet and jsonl, token bytes
            for megatron); the document that reaches it ends the shard.
        progress: A progress bar on stderr (default: when stderr is a terminal).
        settings: The lakehouse (from the environment when None).
        on_shard: Called with each shard's record once it is recorded.

    Raises:
        ExportError: Bad argument, unknown tag or split, a garbage-collected release
            (``ReleaseGoneError``), or an ``out`` that holds something else.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if tokenizer is not None and fmt != "megatron":
        raise ExportError(f"--tokenizer is for --format megatron; {fmt} carries the text")
    if shard_size < 1:
        raise ExportError(f"shard size must be positive, got {shard_size}")
    settings = settings or Settings.from_env()
    out = Path(out)
    manifest = open_release(tag, split, settings)
    announce = sys.stderr.isatty() if progress is None else progress
    writer = _format(fmt, manifest, split, settings, out, tokenizer, announce)
    header = {
        "release": {
            "tag": manifest.tag,
            "mix": manifest.mix,
            "checksum": manifest.checksum,
            "released_at": manifest.released_at,
        },
        "split": split,
        "format": fmt,
        "settings": {"shard_size": shard_size, **writer.options()},
    }
    journal = Journal.open(out, header)
    resumed = len(journal.shards)
    if not journal.complete:
        _write(journal, writer, shard_size, split, manifest, progress, on_shard)
        card = dataset_card(journal, manifest, writer.card())
        write_atomically(out / CARD, card.encode())
        journal.finish()
    return ExportResult(out, journal.as_dict(), resumed, len(journal.shards) - resumed)


def _write(
    journal: Journal,
    writer: Format,
    limit: int,
    split: str,
    manifest: Manifest,
    progress: bool | None,
    on_shard: Callable[[dict[str, Any]], None] | None,
) -> None:
    """Cut the documents into shards of ``limit`` bytes, each recorded once published."""
    bar = _progress(
        split_documents(manifest, split), journal.totals().get("documents", 0), progress
    )
    shard: Shard | None = None
    filled = 0
    try:
        for piece in writer.pieces(journal.resume_at):
            at = 0
            while at < len(piece):
                if shard is None:
                    shard, filled = writer.open_shard(shard_stem(split, len(journal.shards))), 0
                fits = cut(filled, piece.sizes[at:], limit)
                stop = len(piece) if fits is None else at + fits
                shard.write(piece, at, stop)
                filled += int(piece.sizes[at:stop].sum())
                bar.update(stop - at)
                at = stop
                if fits is not None:
                    _record(journal, shard, on_shard)
                    shard = None
        if shard is not None:
            _record(journal, shard, on_shard)
    finally:
        bar.close()


def _record(
    journal: Journal, shard: Shard, on_shard: Callable[[dict[str, Any]], None] | None
) -> None:
    record = shard.close()
    journal.record(record)
    if on_shard is not None:
        on_shard(record)
