"""A content-addressed store of texts: the MD5 of a text -> the text, read at random.

The dedup models verify a candidate pair by the Jaccard of its two texts. An incremental run's
new pairs join the new texts to texts anywhere in the lakehouse, about 1% of them at random:
read from the Iceberg tables, that is a scan of every document's text, since a hundredth of the
rows at random touch every Parquet row group whatever the layout. This store keeps each distinct
text once in Arrow IPC files that are memory-mapped and read by row, so the texts a run needs
cost what they weigh.

It is a cache, never the truth: a text's key is its MD5 (the lakehouse's ``content_hash``),
computed in the very SQL expression that hands the text to the store (macro ``store_text``),
so an entry can be missing but never wrong, and a reader falls back to the tables for a hash
the store lacks. Layout, under ``<home>/text_store``:
one segment per write, ``<id>.arrow`` (the texts, in the order written) and ``<id>.keys.npy``
(3 x n uint64: the keys' two 64-bit halves sorted by the first, and each key's row), written
under temporary names and renamed, the index last: a segment without its index is not read.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lakemix.mapped import random_access, will_need
from lakemix.udf.arrow import one_array

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

STORE_DIR = "text_store"
INDEX_SUFFIX = ".keys.npy"
# A temporary file older than this is left by a writer that was killed.
STALE_SECONDS = 3600
# More segments than this (one per incremental run) are merged, all but the largest.
MAX_SEGMENTS = 8


def store_path(home: Path) -> Path:
    """Where the lakehouse at ``home`` keeps its text store."""
    return home / STORE_DIR


def hex_keys(hashes: pa.Array | pa.ChunkedArray) -> tuple[NDArray[np.uint64], NDArray[np.bool_]]:
    """The 16-byte keys of MD5 hex strings as 2 x n uint64 halves, and which were valid.

    A null or malformed hash (not 32 lowercase hex digits) gets key 0 and ``valid`` False.
    Decoded with a lookup table over the Arrow buffers: no Python object per hash.
    """
    import numpy as np
    import pyarrow as pa

    hashes = one_array(hashes)
    if not pa.types.is_large_string(hashes.type):
        hashes = hashes.cast(pa.large_string())
    n = len(hashes)
    offsets = np.frombuffer(hashes.buffers()[1], dtype=np.int64)[hashes.offset :][: n + 1]
    data = np.frombuffer(hashes.buffers()[2] or b"", dtype=np.uint8)
    valid = (np.diff(offsets) == 32) & hashes.is_valid().to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(valid)
    nibbles = _hex_table()[data[offsets[rows, None] + np.arange(32)]]
    good = (nibbles != 255).all(axis=1)
    valid[rows[~good]] = False
    pairs = (nibbles[:, 0::2] << 4) | nibbles[:, 1::2]
    keys = np.zeros((n, 2), dtype=np.uint64)
    keys[rows[good]] = np.ascontiguousarray(pairs[good]).view("<u8")
    return keys.T.copy(), valid


@functools.cache
def _hex_table() -> NDArray[np.uint8]:
    import numpy as np

    table = np.full(256, 255, dtype=np.uint8)
    for value, char in enumerate(b"0123456789abcdef"):
        table[char] = value
    return table


@dataclass(frozen=True)
class _Segment:
    """One written segment: its sorted key index and its memory-mapped texts."""

    index: NDArray[np.uint64]  # 3 x n: first halves (sorted), second halves, rows
    texts: pa.ChunkedArray
    offsets: NDArray[np.int64]  # the first row of each chunk of texts

    def find(self, keys: NDArray[np.uint64]) -> NDArray[np.int64]:
        """The row of each key in this segment, -1 where it is not."""
        import numpy as np

        first = self.index[0]
        start = np.searchsorted(first, keys[0], side="left")
        stop = np.searchsorted(first, keys[0], side="right")
        rows = np.full(keys.shape[1], -1, dtype=np.int64)
        single = np.flatnonzero(stop - start == 1)
        match = self.index[1, start[single]] == keys[1, single]
        rows[single[match]] = self.index[2, start[single[match]]]
        # Distinct texts share a first half about once in 2**64 / n**2: walk such runs.
        for i in np.flatnonzero(stop - start > 1):
            for j in range(start[i], stop[i]):
                if self.index[1, j] == keys[1, i]:
                    rows[i] = int(self.index[2, j])
                    break
        return rows

    def take(self, rows: NDArray[np.int64]) -> pa.Array:
        """The texts at ``rows``, in that order (chunk by chunk: ``ChunkedArray.take`` would
        first concatenate every chunk, a copy of the whole segment)."""
        import numpy as np
        import pyarrow as pa

        if not len(rows):
            return pa.array([], pa.large_string())
        chunk = np.searchsorted(self.offsets, rows, side="right") - 1
        order = np.argsort(chunk, kind="stable")
        ordered = chunk[order]
        cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        chunks = ordered[np.append(0, cuts)].tolist()
        arrays = [self.texts.chunk(c) for c in chunks]
        local = [
            g - self.offsets[c] for g, c in zip(np.split(rows[order], cuts), chunks, strict=True)
        ]
        _prefetch(arrays, local)
        pieces = [texts.take(pa.array(at)) for texts, at in zip(arrays, local, strict=True)]
        return pa.concat_arrays(pieces).take(pa.array(np.argsort(order, kind="stable")))


def _prefetch(arrays: list[pa.Array], rows: list[NDArray[np.int64]]) -> None:
    """Have the kernel read the pages of ``rows[i]`` of each ``arrays[i]`` (``large_string``
    arrays mapped for random reads) together: every offset first, then every character."""
    import numpy as np

    buffers = [texts.buffers() for texts in arrays]
    held = [i for i, (_, offsets, data) in enumerate(buffers) if offsets and data]
    if not held:
        return
    at = np.concatenate([buffers[i][1].address + 8 * (arrays[i].offset + rows[i]) for i in held])
    will_need(at, at + 16)
    starts, stops = [], []
    for i in held:
        _, offsets, data = buffers[i]
        bounds = np.frombuffer(offsets, dtype=np.int64)[arrays[i].offset :]
        starts.append(data.address + bounds[rows[i]])
        stops.append(data.address + bounds[rows[i] + 1])
    will_need(np.concatenate(starts), np.concatenate(stops))


class TextStore:
    """The text store under ``root``: ``lookup`` by content hash, ``writer`` to add texts.

    Safe to share between threads (DuckDB calls a UDF from several). Segments written by
    another store object on the same folder are seen by the next ``lookup``.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _open(self) -> dict[str, _Segment]:
        """The committed segments by name, mapped afresh: nothing is kept open between calls,
        as the pages of the texts read count in the process's resident memory for as long as
        they are mapped (a full build's candidate pairs read most of the store: 4.4 GB peak for
        ``int_content_pairs_verified`` on a 1M lakehouse with the segments kept, 2.6 GB
        without). Opening costs an ``np.load`` and an IPC footer per segment. The texts are
        mapped for reading at random (``lakemix.mapped``): a lookup reads the pages it needs."""
        import numpy as np
        import pyarrow as pa

        segments = {}
        for name in self._names():
            try:
                index = np.load(self.root / f"{name}{INDEX_SUFFIX}", mmap_mode="r")
                source = pa.BufferReader(random_access(self.root / f"{name}.arrow"))
                texts = pa.ipc.open_file(source).read_all().column("text")
            except FileNotFoundError:
                continue  # removed since listed (a full write replacing the store)
            offsets = np.cumsum([0] + [len(c) for c in texts.chunks[:-1]], dtype=np.int64)
            segments[name] = _Segment(index, texts, offsets)
        return segments

    def lookup(self, hashes: pa.Array | pa.ChunkedArray) -> pa.Array:
        """The text of each content hash (``large_string``), null where the store lacks it."""
        import numpy as np
        import pyarrow as pa

        keys, valid = hex_keys(hashes)
        found = np.zeros(len(valid), dtype=bool)
        pieces: list[pa.Array] = []
        positions = np.zeros(len(valid), dtype=np.int64)
        taken = 0
        for segment in self._open().values():
            todo = np.flatnonzero(valid & ~found)
            if not len(todo):
                break
            rows = segment.find(keys[:, todo])
            hit = rows >= 0
            if not hit.any():
                continue
            pieces.append(segment.take(rows[hit]))
            found[todo[hit]] = True
            positions[todo[hit]] = taken + np.arange(int(hit.sum()))
            taken += int(hit.sum())
        if not taken:
            return pa.nulls(len(valid), pa.large_string())
        return pa.concat_arrays(pieces).take(pa.array(positions, mask=~found))

    def writer(self, *, replace: bool) -> Writer:
        """A writer of new texts, committed as one segment (``Writer.commit``).

        With ``replace``, the segment holds every text written to it and becomes the whole
        store once committed (the older segments are removed): a full rebuild drops the texts
        no document has any more. Otherwise texts the store has are not written again.
        """
        now = time.time()
        for stale in self.root.glob("*.tmp") if self.root.is_dir() else []:
            with contextlib.suppress(FileNotFoundError):
                if now - stale.stat().st_mtime > STALE_SECONDS:
                    stale.unlink()
        return Writer(self, [] if replace else list(self._open().values()), replace=replace)

    def compact(self) -> Path | None:
        """With more than ``MAX_SEGMENTS`` segments (one per incremental run), merge all but
        the largest into one; returns the merged segment (None: nothing to do).

        Memory stays bounded: texts are copied chunk by chunk from the memory-mapped segments.
        A crash before the old segments are removed leaves texts stored twice, which lookups
        do not mind and the next compaction merges.
        """
        import numpy as np

        segments = self._open()
        if len(segments) <= MAX_SEGMENTS:
            return None
        largest = max(segments, key=lambda name: segments[name].index.shape[1])
        merged = Writer(self, [segments[largest]], replace=False)
        for name, segment in segments.items():
            if name == largest:
                continue
            keys = np.empty((2, segment.index.shape[1]), dtype=np.uint64)
            keys[:, segment.index[2]] = segment.index[:2]  # back in row order
            valid = np.ones(keys.shape[1], dtype=bool)
            for chunk, start in zip(segment.texts.chunks, segment.offsets.tolist(), strict=True):
                stop = start + len(chunk)
                merged.write_keys(keys[:, start:stop], valid[start:stop], chunk)
        path = merged.commit()
        self._remove([name for name in segments if name != largest])
        return path

    def _names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name[: -len(INDEX_SUFFIX)] for p in self.root.glob(f"*{INDEX_SUFFIX}"))

    def _remove(self, names: list[str]) -> None:
        for name in names:
            (self.root / f"{name}{INDEX_SUFFIX}").unlink(missing_ok=True)  # uncommitted first
            (self.root / f"{name}.arrow").unlink(missing_ok=True)


class Writer:
    """Texts written to one new segment of a ``TextStore``; thread-safe.

    The texts go to disk as they are written (memory stays bounded); only their keys are kept
    until ``commit`` writes the index. Until then, nothing of it is read; ``discard`` (or a
    crash: the next writer removes what is left) drops it.
    """

    def __init__(self, store: TextStore, existing: list[_Segment], *, replace: bool) -> None:
        import pyarrow as pa

        self.store = store
        self.replace = replace
        self._existing = existing
        self._lock = threading.Lock()
        self._name = uuid.uuid4().hex
        self._firsts: list[NDArray[np.uint64]] = []
        self._seconds: list[NDArray[np.uint64]] = []
        self._seen: set[int] = set()
        self.texts = 0
        store.root.mkdir(parents=True, exist_ok=True)
        self._tmp = store.root / f"{self._name}.arrow.tmp"
        self._sink = pa.OSFile(str(self._tmp), "wb")
        self._schema = pa.schema([pa.field("text", pa.large_string())])
        self._out = pa.ipc.new_file(self._sink, self._schema)

    def write(self, hashes: pa.Array | pa.ChunkedArray, texts: pa.Array | pa.ChunkedArray) -> None:
        """Write ``texts`` under their content hashes (the MD5 hex of each text).

        Rows with a null or malformed hash or a null text, and texts already written or
        stored, are skipped.
        """
        keys, valid = hex_keys(hashes)
        self.write_keys(keys, valid, texts)

    def write_keys(
        self,
        keys: NDArray[np.uint64],
        valid: NDArray[np.bool_],
        texts: pa.Array | pa.ChunkedArray,
    ) -> None:
        """``write`` with the hashes already decoded (``hex_keys``); rows not ``valid`` are
        skipped."""
        import numpy as np
        import pyarrow as pa

        keep = valid.copy()
        texts = one_array(texts)
        keep &= texts.is_valid().to_numpy(zero_copy_only=False)
        for segment in self._existing:
            keep &= segment.find(keys) < 0
        with self._lock:
            # One text per key. (Of two texts whose first halves collide, about once in
            # 2**64 / n**2, the second is not stored: a reader falls back for it.)
            for i, first in zip(np.flatnonzero(keep), keys[0, keep].tolist(), strict=True):
                if first in self._seen:
                    keep[i] = False
                self._seen.add(first)
            if not keep.any():
                return
            kept = texts if keep.all() else texts.filter(pa.array(keep))
            kept = kept.cast(pa.large_string())  # the offsets only: the text bytes are shared
            self._out.write_batch(pa.record_batch([kept], schema=self._schema))
            self._firsts.append(keys[0, keep])
            self._seconds.append(keys[1, keep])
            self.texts += len(kept)

    def commit(self) -> Path | None:
        """Make the written texts part of the store; returns the segment (None: no text)."""
        import numpy as np

        root = self.store.root
        with self._lock:
            self._close()
            older = [p.name[: -len(INDEX_SUFFIX)] for p in root.glob(f"*{INDEX_SUFFIX}")]
            if not self.texts:
                self._tmp.unlink(missing_ok=True)
                segment = None
            else:
                first = np.concatenate(self._firsts)
                order = np.argsort(first, kind="stable")
                index = np.stack(
                    [first[order], np.concatenate(self._seconds)[order], order.astype(np.uint64)]
                )
                index_tmp = root / f"{self._name}.keys.tmp"
                with index_tmp.open("wb") as f:
                    np.save(f, index)
                segment = root / f"{self._name}.arrow"
                self._tmp.rename(segment)
                index_tmp.rename(root / f"{self._name}{INDEX_SUFFIX}")  # the commit
            if self.replace:
                self.store._remove(older)
            return segment

    def discard(self) -> None:
        """Drop what was written."""
        with self._lock:
            self._close()
            self._tmp.unlink(missing_ok=True)

    def _close(self) -> None:
        if not self._sink.closed:
            self._out.close()
            self._sink.close()
