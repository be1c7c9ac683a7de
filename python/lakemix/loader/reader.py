"""Random access to a token store (``store.py``), memory-mapped: nothing is read until used.

A loader reads a store's documents in shuffled order: the file is mapped for random reads
(``lakemix.mapped``: a page fault reads its page, not the megabytes around it) and each batch's
pages are asked for together before they are copied. A reader that goes through the rows in
order (an export) opens the store ``sequential`` and keeps the kernel's read-ahead.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from lakemix.mapped import random_access, will_need

ID_CACHE = 1 << 16  # document ids kept for reuse, at most


class TokenStore:
    """The documents of a store, addressed by row (their order in the file).

    Opening maps the file and reads the per-document columns (key, repeats, length: 24 bytes a
    document); token ids stay in the mapped file and are read page by page when used.
    """

    def __init__(self, path: str | Path, *, sequential: bool = False) -> None:
        self.path = Path(path)
        self.sequential = sequential
        source = pa.memory_map(str(self.path)) if sequential else random_access(self.path)
        reader = pa.ipc.open_file(source)
        metadata = reader.schema.metadata or {}
        self.eot = int(metadata.get(b"eot", b"0"))
        self.tokenizer = metadata.get(b"tokenizer", b"").decode()
        self._schema = reader.schema
        self._batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
        sizes = np.array([b.num_rows for b in self._batches], dtype=np.int64)
        self._first_rows = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._chunk_of_row = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
        self._ids: dict[int, str] = {}  # document ids read so far (a batch reuses most of them)
        self._values: list[NDArray[np.int32]] = []
        self._offsets: list[NDArray[np.int64]] = []
        offsets = [batch.column("token_ids").offsets for batch in self._batches]
        self._ask([o.buffers()[1] for o in offsets])  # read below: every row's offset
        for batch, chunk_offsets in zip(self._batches, offsets, strict=True):
            self._values.append(np.asarray(batch.column("token_ids").values, dtype=np.int32))
            self._offsets.append(np.asarray(chunk_offsets, dtype=np.int64))
        # Where each chunk's token ids begin in memory: a batch's pages are asked for by address.
        self._addresses = np.array([v.ctypes.data for v in self._values], dtype=np.int64)
        # Where each row's ids begin in its chunk's values (8 bytes a document).
        bases = [o[:-1] for o in self._offsets] or [np.zeros(0, dtype=np.int64)]
        self._bases = np.concatenate(bases).astype(np.int64)

    def _ask(self, buffers: list[pa.Buffer | None]) -> None:
        """Ask for the pages of whole buffers at once (the file is read at random otherwise)."""
        if not self.sequential:
            held = [b for b in buffers if b is not None]
            starts = np.array([b.address for b in held], dtype=np.int64)
            will_need(starts, starts + np.array([b.size for b in held], dtype=np.int64))

    def _column(self, name: str) -> pa.ChunkedArray:
        chunks = [b.column(name) for b in self._batches]
        self._ask([buffer for chunk in chunks for buffer in chunk.buffers()])
        return pa.chunked_array(chunks, type=self._schema.field(name).type)

    @cached_property
    def keys(self) -> NDArray[np.uint64]:
        """``order.document_key`` of each document."""
        return np.asarray(self._column("document_key").to_numpy(), dtype=np.uint64)

    @cached_property
    def repeats(self) -> NDArray[np.int64]:
        """Whole copies of each document in the mix."""
        return np.asarray(self._column("repeat_count").to_numpy(), dtype=np.int64)

    @cached_property
    def lengths(self) -> NDArray[np.int64]:
        """Tokens of each document, its end-of-text token included."""
        parts = [np.diff(o) for o in self._offsets] or [np.zeros(0, dtype=np.int64)]
        return np.concatenate(parts).astype(np.int64)

    def __len__(self) -> int:
        return int(self._first_rows[-1])

    def _locate(self, row: int) -> tuple[int, int]:
        chunk = int(self._chunk_of_row[row])
        return chunk, row - int(self._first_rows[chunk])

    def tokens(self, row: int, start: int, stop: int) -> NDArray[np.int32]:
        """Token ids ``start:stop`` of the document in ``row`` (a view of the mapped file)."""
        chunk, local = self._locate(row)
        base = int(self._offsets[chunk][local])
        return self._values[chunk][base + start : base + stop]

    def gather(
        self,
        rows: NDArray[np.int64],
        starts: NDArray[np.int64],
        stops: NDArray[np.int64],
        out: NDArray[np.int64],
    ) -> None:
        """Token ids ``starts[i]:stops[i]`` of the document in ``rows[i]``, for every ``i`` one
        after the other, into ``out`` (one copy from the mapped file; ``out`` holds them all)."""
        if not len(rows):
            return
        bases = self._bases[rows]
        low, high = bases + starts, bases + stops
        chunk = self._chunk_of_row[rows]
        if not self.sequential:  # every page of the batch asked for at once
            at = self._addresses[chunk]
            will_need(at + low * 4, at + high * 4)
        # Pieces that follow each other in the file (a document cut at a sequence boundary)
        # are copied as one span: a span costs more to set up than its tokens to copy.
        if len(self._values) == 1:
            cut = np.flatnonzero(low[1:] != high[:-1])
            lows, highs = low[np.append(0, cut + 1)].tolist(), high[np.append(cut, -1)].tolist()
            values = self._values[0]
            spans = [values[a:b] for a, b in zip(lows, highs, strict=True)]
        else:
            cut = np.flatnonzero((low[1:] != high[:-1]) | (chunk[1:] != chunk[:-1]))
            lows, highs = low[np.append(0, cut + 1)].tolist(), high[np.append(cut, -1)].tolist()
            chunks = chunk[np.append(0, cut + 1)].tolist()
            spans = [self._values[c][a:b] for c, a, b in zip(chunks, lows, highs, strict=True)]
        np.concatenate(spans, out=out)

    def document_id(self, row: int) -> str:
        """The document id in ``row``."""
        found = self._ids.get(row)
        if found is None:
            if len(self._ids) >= ID_CACHE:
                self._ids.clear()
            chunk, local = self._locate(row)
            found = self._ids[row] = str(self._batches[chunk].column("document_id")[local].as_py())
        return found

    def document_ids(self, rows: list[int]) -> list[str]:
        """The document ids in ``rows``, in order (one dictionary look-up a row once cached)."""
        found = list(map(self._ids.get, rows))
        if None in found:
            return [self.document_id(row) for row in rows]
        return found  # type: ignore[return-value]  # no None left

    def language(self, row: int) -> str:
        """The language of the document in ``row``."""
        chunk, local = self._locate(row)
        return str(self._batches[chunk].column("language")[local].as_py())

    def vocabulary(self) -> NDArray[np.int32]:
        """The distinct token ids of the store, sorted (reads every token once)."""
        parts = [np.zeros(0, dtype=np.int32)]
        for values in self._values:  # chunk by chunk: the whole store may not fit in memory
            self._ask([pa.py_buffer(values)])  # the mapped ids themselves, not a copy
            parts.append(np.unique(values))
        return np.unique(np.concatenate(parts))
