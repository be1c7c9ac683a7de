"""``parquet`` and ``jsonl``: one row per document, its text with its ids, language, source and
lineage keys, ordered by document id (the order a resumed export continues in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from lakemix.export.journal import PARTIAL, publish
from lakemix.export.shards import Piece
from lakemix.export.source import pinned_tables
from lakemix.iceberg.views import scan_sql
from lakemix.loader.store import SCAN_EXTENSIONS
from lakemix.tables import CLEAN_DOCUMENTS, RAW_DOCUMENTS, mix_table

if TYPE_CHECKING:
    from lakemix.settings import Settings
    from lakemix.versions.manifest import Manifest

BATCH_ROWS = 2048
ROW_GROUP = 1024  # rows of a Parquet row group
# DuckDB sorts by document id within this much memory, spilling to disk beyond it.
MEMORY_LIMIT = "1GB"
# (column, type, description): the exported columns, in order.
COLUMNS = (
    ("document_id", pa.string(), "lakemix document id: `lakemix lineage DOCUMENT_ID` traces it"),
    ("text", pa.string(), "normalized, PII-redacted text"),
    ("language", pa.string(), "ISO 639 language code"),
    ("script", pa.string(), "ISO 15924 script"),
    ("language_score", pa.float64(), "how sure the language is, 0 to 1"),
    ("source_id", pa.string(), "corpus the document was ingested from"),
    ("url", pa.string(), "page URL, when known"),
    ("repeat_count", pa.int64(), "copies of the document in the mix (1 = once an epoch)"),
    ("token_count", pa.int64(), "tokens of the text under the release's tokenizer"),
    ("file_path", pa.string(), "raw file the document was read from"),
    ("file_offset", pa.int64(), "its byte offset (or record number) in that file"),
    ("ingest_id", pa.string(), f"the ingest that read it (a {RAW_DOCUMENTS} snapshot)"),
)
SCHEMA = pa.schema([(name, kind) for name, kind, _ in COLUMNS])


class TextFormat:
    """Rows of text with their keys, from the release's pinned snapshots through DuckDB."""

    def __init__(
        self, name: str, manifest: Manifest, split: str, settings: Settings, out: Path
    ) -> None:
        self.name, self.manifest, self.split = name, manifest, split
        self.settings, self.out = settings, out

    def options(self) -> dict[str, Any]:
        return {}

    def pieces(self, resume_at: dict[str, Any] | None) -> Iterator[Piece]:
        from lakemix import duck
        from lakemix.catalog import catalog

        cat = catalog(self.settings)
        pinned = pinned_tables(self.manifest).items()
        scans = {name: scan_sql(cat.load_table(name), sid) for name, sid in pinned}
        mix = scans[mix_table(self.manifest.mix)]
        params: list[Any] = [self.split]
        after = ""
        if resume_at is not None:
            after, params = "and mix.document_id > ?", [self.split, resume_at["after_document_id"]]
        conn = duck.connect(settings=self.settings, extensions=SCAN_EXTENSIONS)
        try:
            spill = self.settings.home / "tmp"
            spill.mkdir(parents=True, exist_ok=True)
            conn.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
            conn.execute(f"set temp_directory = '{spill}'")
            reader = conn.execute(
                f"""
                select
                    mix.document_id, clean.text, mix.language, clean.script,
                    clean.language_score, mix.source_id, clean.url,
                    cast(mix.repeat_count as bigint) as repeat_count,
                    cast(clean.token_count as bigint) as token_count,
                    clean.file_path, cast(clean.file_offset as bigint) as file_offset,
                    clean.ingest_id
                from {mix} as mix
                inner join {scans[CLEAN_DOCUMENTS]} as clean using (document_id)
                where mix.split = ? and mix.repeat_count > 0 {after}
                order by mix.document_id
                """,
                params,
            ).to_arrow_reader(BATCH_ROWS)
            for batch in reader:
                batch = pa.RecordBatch.from_arrays(
                    [batch.column(i).cast(kind) for i, (_, kind, _) in enumerate(COLUMNS)],
                    schema=SCHEMA,
                )
                sizes = pc.binary_length(batch.column("text").cast(pa.binary()))
                yield Piece(batch, np.asarray(sizes.fill_null(0), dtype=np.int64))
        finally:
            conn.close()

    def open_shard(self, stem: str) -> ParquetShard | JsonlShard:
        path = self.out / f"{stem}.{self.name}"
        return ParquetShard(path) if self.name == "parquet" else JsonlShard(path)

    def card(self) -> str:
        rows = "\n".join(f"| `{name}` | {kind} | {text} |" for name, kind, text in COLUMNS)
        if self.name == "parquet":
            load = (
                f'load_dataset("parquet", data_files="OUT/{self.split}-*.parquet", split="train")'
            )
        else:
            load = f'load_dataset("json", data_files="OUT/{self.split}-*.jsonl", split="train")'
        return (
            "One row per document of the split (a document the mix repeats is one row with its "
            "`repeat_count`), ordered by `document_id`.\n\n"
            f"| column | type | meaning |\n|---|---|---|\n{rows}\n\n"
            f"```python\nfrom datasets import load_dataset\nds = {load}\n```\n"
        )


class _Counts:
    def __init__(self) -> None:
        self.documents = self.copies = self.tokens = 0
        self.last: str | None = None

    def add(self, batch: pa.RecordBatch) -> None:
        self.documents += batch.num_rows
        self.copies += int(pc.sum(batch.column("repeat_count")).as_py() or 0)
        copies = pc.multiply(batch.column("token_count"), batch.column("repeat_count"))
        self.tokens += int(pc.sum(copies).as_py() or 0)
        self.last = str(batch.column("document_id")[-1].as_py())

    def record(self, files: dict[str, Any]) -> dict[str, Any]:
        counts = {"documents": self.documents, "copies": self.copies, "tokens": self.tokens}
        return {"files": files, "counts": counts, "next": {"after_document_id": self.last}}


class ParquetShard:
    """A Parquet file (zstd) in row groups of ``ROW_GROUP`` rows counted from its first row,
    each written from one chunk a column: the same rows give the same bytes however they came
    in (a resumed export reads other batches than an uninterrupted one)."""

    def __init__(self, path: Path) -> None:
        import pyarrow.parquet as pq

        self.path, self.partial = path, path.with_name(path.name + PARTIAL)
        self.writer = pq.ParquetWriter(str(self.partial), SCHEMA, compression="zstd")
        self.counts = _Counts()
        self.pending: list[pa.RecordBatch] = []
        self.rows = 0

    def write(self, piece: Piece, start: int, stop: int) -> None:
        batch = piece.data.slice(start, stop - start)
        self.counts.add(batch)
        self.pending.append(batch)
        self.rows += batch.num_rows
        if self.rows >= ROW_GROUP:
            table = pa.Table.from_batches(self.pending, schema=SCHEMA)
            whole = self.rows - self.rows % ROW_GROUP
            # one chunk a column: Arrow's page boundaries follow the chunks it is given
            self.writer.write_table(table.slice(0, whole).combine_chunks(), ROW_GROUP)
            self.pending = table.slice(whole).to_batches()
            self.rows -= whole

    def close(self) -> dict[str, Any]:
        if self.rows:
            table = pa.Table.from_batches(self.pending, schema=SCHEMA).combine_chunks()
            self.writer.write_table(table)
        self.writer.close()
        return self.counts.record({self.path.name: publish(self.partial, self.path)})


class JsonlShard:
    """A JSON Lines file: one object a line, the columns as keys."""

    def __init__(self, path: Path) -> None:
        self.path, self.partial = path, path.with_name(path.name + PARTIAL)
        self.handle = self.partial.open("wb")
        self.counts = _Counts()

    def write(self, piece: Piece, start: int, stop: int) -> None:
        batch = piece.data.slice(start, stop - start)
        lines = [orjson.dumps(row) for row in batch.to_pylist()]
        self.handle.write(b"\n".join(lines) + b"\n")
        self.counts.add(batch)

    def close(self) -> dict[str, Any]:
        self.handle.close()
        return self.counts.record({self.path.name: publish(self.partial, self.path)})
