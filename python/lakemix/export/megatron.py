"""``megatron``: Megatron-LM's indexed dataset (``.bin`` + ``.idx``) of a release split's token
ids, one shard a dataset prefix, with a map from each document position back to its id.

The token ids come from the loader's token store (``lakemix.loader.store``: built once per
release, split and tokenizer; each document ends with the tokenizer's end-of-text token, as
Megatron's ``preprocess_data.py --append-eod`` does). Documents are in the store's order; a
document the mix repeats is written once per copy, one after the other, so the tokens of a
shard are the mix's. Each document (copy) is one sequence, as ``preprocess_data.py`` writes
without sentence splitting.

``.idx`` (Megatron-Core ``megatron/core/datasets/indexed_dataset.py``, ``_IndexWriter``): the
9 bytes ``MMIDIDX\\x00\\x00``, version ``<Q`` 1, dtype code ``<B`` (uint16 8, int32 4), sequence
count ``<Q``, document count ``<Q`` (sequences + 1), then the sequence lengths (int32), the
byte offset of each sequence in ``.bin`` (int64) and the document indices (int64: ``0..n``,
each document one sequence). ``.bin``: the ids, little-endian, uint16 when the vocabulary has
fewer than 65,500 ids (Megatron's ``DType.optimal_dtype``), else int32.

``<prefix>.documents.parquet``: row ``i`` is document ``i`` of the shard: ``document_id``,
``copy`` (0 for the first copy), ``token_start`` (its first token's position in the shard) and
``token_count``; ``locate`` reads it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lakemix.export.journal import PARTIAL, publish
from lakemix.export.shards import Piece
from lakemix.loader.reader import TokenStore

if TYPE_CHECKING:
    from numpy.typing import NDArray

HEADER = b"MMIDIDX\x00\x00"
DTYPE_CODES = {np.dtype(np.uint16): 8, np.dtype(np.int32): 4}
MAP_SUFFIX = ".documents.parquet"
ROWS = 4096  # store rows a piece: bounds the ids gathered at once
MAP_SCHEMA = pa.schema(
    [
        ("document_id", pa.string()),
        ("copy", pa.int32()),
        ("token_start", pa.int64()),
        ("token_count", pa.int32()),
    ]
)


def token_dtype(vocabulary: int) -> np.dtype[Any]:
    """Megatron-Core's ``DType.optimal_dtype``: uint16 below 65,500 ids, else int32."""
    return np.dtype(np.uint16) if vocabulary < 65500 else np.dtype(np.int32)


class MegatronFormat:
    """The token store of a release split as Megatron indexed-dataset shards.

    Args:
        store: The token store (``lakemix.loader.store.build_store``).
        encoding: Its tokenizer (a ``lakemix.udf.tokens.ENCODINGS`` key).
        out: The export folder.
    """

    name = "megatron"

    def __init__(self, store: Path, encoding: str, out: Path) -> None:
        from lakemix.udf.tokens import _tokenizer

        self.store = TokenStore(store, sequential=True)  # read in order: keep read-ahead
        self.encoding, self.out = encoding, out
        self.dtype = token_dtype(int(_tokenizer(encoding).n_vocab))
        self.itemsize = self.dtype.itemsize

    def options(self) -> dict[str, Any]:
        return {"tokenizer": self.encoding, "dtype": self.dtype.name, "eod": self.store.eot}

    def pieces(self, resume_at: dict[str, Any] | None) -> Iterator[Piece]:
        first = 0 if resume_at is None else int(resume_at["row"])
        sizes = self.store.lengths * self.store.repeats * self.itemsize
        for start in range(first, len(self.store), ROWS):
            rows = np.arange(start, min(start + ROWS, len(self.store)), dtype=np.int64)
            yield Piece(rows, sizes[rows])

    def open_shard(self, stem: str) -> MegatronShard:
        return MegatronShard(self.store, self.out / stem, self.dtype)

    def card(self) -> str:
        return (
            f"Megatron-LM indexed datasets: each `train-NNNNN` prefix is a `.bin` of token ids "
            f"({self.dtype.name}, tokenizer `{self.encoding}`, every document ending with the "
            f"end-of-text id {self.store.eot}) and its `.idx`, one document a sequence; a "
            "document the mix repeats appears once per copy. Pass the prefixes to Megatron's "
            "`--data-path` (or to `megatron.core.datasets.indexed_dataset.IndexedDataset`).\n\n"
            f"`<prefix>{MAP_SUFFIX}` maps document `i` of a prefix to its `document_id`, copy "
            "and token range: `lakemix lineage --megatron <prefix>:<i>` traces it.\n"
        )


class MegatronShard:
    """One ``.bin``/``.idx`` pair and its document map, written under temporary names."""

    def __init__(self, store: TokenStore, prefix: Path, dtype: np.dtype[Any]) -> None:
        self.store, self.prefix, self.dtype = store, prefix, dtype
        self.paths = {
            suffix: prefix.with_name(prefix.name + suffix)
            for suffix in (".bin", ".idx", MAP_SUFFIX)
        }
        self.partials = {k: p.with_name(p.name + PARTIAL) for k, p in self.paths.items()}
        self.handle = self.partials[".bin"].open("wb")
        self.lengths: list[NDArray[np.int64]] = []
        self.copies: list[NDArray[np.int64]] = []
        self.ids: list[str] = []
        self.documents = 0
        self.next_row = 0

    def write(self, piece: Piece, start: int, stop: int) -> None:
        rows: NDArray[np.int64] = piece.data[start:stop]
        repeats = self.store.repeats[rows]
        copies_of = np.repeat(rows, repeats)
        firsts = np.cumsum(repeats) - repeats
        copy = np.arange(len(copies_of), dtype=np.int64) - np.repeat(firsts, repeats)
        lengths = self.store.lengths[copies_of]
        ids = np.empty(int(lengths.sum()), dtype=np.int64)
        self.store.gather(copies_of, np.zeros_like(lengths), lengths, ids)
        self.handle.write(ids.astype(self.dtype).tobytes())
        self.lengths.append(lengths)
        self.copies.append(copy)
        self.ids.extend(self.store.document_ids(copies_of.tolist()))
        self.documents += len(rows)
        self.next_row = int(rows[-1]) + 1

    def _write_index(self) -> None:
        lengths = np.concatenate(self.lengths) if self.lengths else np.zeros(0, dtype=np.int64)
        pointers = (np.cumsum(lengths) - lengths) * self.dtype.itemsize
        with self.partials[".idx"].open("wb") as handle:
            handle.write(HEADER)
            handle.write(struct.pack("<Q", 1))
            handle.write(struct.pack("<B", DTYPE_CODES[self.dtype]))
            handle.write(struct.pack("<Q", len(lengths)))
            handle.write(struct.pack("<Q", len(lengths) + 1))
            handle.write(lengths.astype("<i4").tobytes())
            handle.write(pointers.astype("<i8").tobytes())
            handle.write(np.arange(len(lengths) + 1, dtype="<i8").tobytes())
        starts = np.cumsum(lengths) - lengths
        table = pa.Table.from_arrays(
            [
                pa.array(self.ids, pa.string()),
                pa.array(np.concatenate(self.copies).astype(np.int32)),
                pa.array(starts.astype(np.int64)),
                pa.array(lengths.astype(np.int32)),
            ],
            schema=MAP_SCHEMA,
        )
        pq.write_table(table, str(self.partials[MAP_SUFFIX]), compression="zstd")

    def close(self) -> dict[str, Any]:
        self.handle.close()
        self._write_index()
        files = {path.name: publish(self.partials[k], path) for k, path in self.paths.items()}
        lengths = np.concatenate(self.lengths)
        counts = {
            "documents": self.documents,
            "copies": len(lengths),
            "tokens": int(lengths.sum()),
        }
        return {"files": files, "counts": counts, "next": {"row": self.next_row}}


def locate(
    prefix: str | Path, *, document: int | None = None, token: int | None = None
) -> dict[str, Any]:
    """The document at position ``document`` (its index in the shard) or holding token
    position ``token`` of the Megatron shard ``prefix``.

    Returns:
        ``document_id``, ``copy``, ``token_start``, ``token_count`` and ``index``.

    Raises:
        FileNotFoundError: No document map beside ``prefix``.
        IndexError: The position is outside the shard.
    """
    path = Path(f"{prefix}{MAP_SUFFIX}")
    if not path.is_file():
        raise FileNotFoundError(
            f"no document map {path}: give the prefix of a lakemix export shard"
        )
    table = pq.read_table(str(path))
    if (document is None) == (token is None):
        raise ValueError("give a document index or a token position, not both")
    if token is not None:
        starts = table.column("token_start").to_numpy()
        ends = starts + table.column("token_count").to_numpy()
        if not 0 <= token < (int(ends[-1]) if len(ends) else 0):
            raise IndexError(f"token {token} is outside {prefix} ({int(ends[-1])} tokens)")
        document = int(np.searchsorted(starts, token, side="right")) - 1
    assert document is not None
    if not 0 <= document < table.num_rows:
        raise IndexError(f"document {document} is outside {prefix} ({table.num_rows} documents)")
    row = table.slice(document, 1).to_pylist()[0]
    return {"index": document, **row}
