"""Turn BatchPlans into tensors: the map function the loader's workers run."""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.planner import BatchPlan
from lakemix.loader.reader import TokenStore

IGNORE_INDEX = -100  # the label torch.nn.functional.cross_entropy ignores by default
FIELDS = ("input_ids", "labels", "attention_mask", "segment_ids", "position_ids")
# Tokens of the batches built in one call: enough to spread its fixed costs, little enough
# for its arrays to stay in the CPU's cache.
GROUP_TOKENS = 1 << 18
GROUP_BATCHES = 32  # and at most this many: the first batch waits for its whole group
BLOCKS = 4  # blocks of memory a Materializer keeps for reuse


class Blocks:
    """Memory for the tensors of a group of batches, reused once no tensor of it is left.

    Fresh memory of this size costs a page fault per 4 KiB on first write, more than writing
    the batch itself; so a block goes back to work as soon as the training loop has dropped
    every tensor of the group it held. A block is handed out as a numpy view of a bytearray:
    every array and tensor carved from it keeps that view alive, and a weak reference to the
    view says when none is left. Thread-safe (worker threads share one Materializer).
    """

    def __init__(self, keep: int = BLOCKS) -> None:
        self._keep = keep
        self._blocks: list[tuple[bytearray, weakref.ref[NDArray[np.uint8]]]] = []
        self._lock = threading.Lock()

    def take(self, size: int) -> NDArray[np.uint8]:
        """A block of at least ``size`` bytes (its contents are left from its last use)."""
        with self._lock:
            for i, (memory, user) in enumerate(self._blocks):
                if user() is None and len(memory) >= size:
                    view = np.frombuffer(memory, dtype=np.uint8)
                    self._blocks[i] = (memory, weakref.ref(view))
                    return view
            memory = bytearray(size)
            view = np.frombuffer(memory, dtype=np.uint8)
            free = [i for i, (_, user) in enumerate(self._blocks) if user() is None]
            if free:  # a free block too small for this size: replace it
                self._blocks[free[0]] = (memory, weakref.ref(view))
            elif len(self._blocks) < self._keep:  # else the training loop holds on to them all
                self._blocks.append((memory, weakref.ref(view)))
            return view


class Materializer:
    """Reads the planned tokens from the store and packs them into batches.

    A batch is a dict: ``input_ids``, ``labels`` (``-100`` where there is nothing to predict),
    ``attention_mask`` (1 for real tokens, 0 for padding; only the last sequence of a rank's
    epoch is padded), ``segment_ids`` (which document of the sequence each input token belongs
    to, -1 for padding: a document-boundary mask is ``segment_ids[:, :, None] ==
    segment_ids[:, None, :]``), ``position_ids`` (positions restarting at each document), all
    ``[batch, seq_len]`` tensors: ``input_ids`` and ``labels`` int64 (what ``nn.Embedding``
    and ``cross_entropy`` take), ``segment_ids`` and ``position_ids`` int32, ``attention_mask``
    int8, which is 25 bytes a token to write instead of 40; and ``document_ids``: the ids of the
    documents packed in each sequence, in order (the provenance).

    It is called with several consecutive plans at once and builds their batches together,
    with a few whole-array numpy operations: a window starts at the previous window's last
    token, so the inputs of consecutive full windows, row after row, are one run of the
    rank's token stream and the labels the same run one token later. One copy out of the
    mapped file gives both; segments and positions repeat per piece. Padding (a short window,
    the end of a rank's epoch) is laid out window by window. The batches' tensors are views
    of the group's arrays.

    Picklable: each worker process opens the store itself, on first use.
    """

    def __init__(self, store: str | Path, *, seq_len: int, pad_id: int) -> None:
        self.path, self.seq_len, self.pad_id = Path(store), seq_len, pad_id
        self._store: TokenStore | None = None
        self._counting = np.arange(0, dtype=np.int32)
        self._blocks = Blocks()

    def __getstate__(self) -> dict[str, Any]:
        fresh = {"_store": None, "_counting": np.arange(0, dtype=np.int32), "_blocks": None}
        return {**self.__dict__, **fresh}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _blocks=Blocks())

    def _count(self, n: int) -> NDArray[np.int32]:
        if len(self._counting) < n:
            self._counting = np.arange(n, dtype=np.int32)
        return self._counting[:n]

    def __call__(self, plans: Sequence[BatchPlan]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(batch, planner state after it)`` of each plan, in order."""
        if self._store is None:
            self._store = TokenStore(self.path)
        return self._build(list(plans))

    def _build(self, plans: list[BatchPlan]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        import torch

        store, length = self._store, self.seq_len
        assert store is not None
        per_plan = [p.windows for p in plans]
        windows = sum(per_plan)
        n = windows * length
        pieces = np.concatenate([p.pieces for p in plans]) if len(plans) > 1 else plans[0].pieces
        window = pieces[:, 0]
        if len(plans) > 1:  # number the windows of the group
            shift = np.cumsum(per_plan) - per_plan
            window = window + np.repeat(shift, [len(p.pieces) for p in plans])
        rows, starts, stops = pieces[:, 1], pieces[:, 2], pieces[:, 3].copy()
        lasts = np.append(np.flatnonzero(window[1:] != window[:-1]), len(window) - 1)
        firsts = np.append(0, lasts[:-1] + 1)
        taken = np.add.reduceat(stops - starts, firsts)  # tokens of each window
        full = taken == length + 1
        if not full[:-1].all():  # an epoch ends inside the group: build up to each end alone
            ends = np.flatnonzero(~full[np.cumsum(per_plan) - 1]).tolist()
            cuts = [0, *(k + 1 for k in ends if k + 1 < len(plans)), len(plans)]
            return [out for a, b in itertools.pairwise(cuts) for out in self._build(plans[a:b])]
        # A full window's last token is the next window's first: read it once. Only the
        # group's last window may be short (the end of the rank's epoch), and then it is padded.
        stops[lasts[:-1]] -= 1
        sizes = stops - starts
        read = int(sizes.sum())
        real = min(read, n)  # input tokens; the rest is padding
        # One block for the five arrays of the group: tokens (n + 1: the last is only a
        # label) and labels as int64, segments and positions as int32, attention as int8.
        block = self._blocks.take(25 * n + 8)
        tokens = block[: 8 * n + 8].view(np.int64)
        labels = block[8 * n + 8 : 16 * n + 8].view(np.int64)
        segments = block[16 * n + 8 : 20 * n + 8].view(np.int32)
        positions = block[20 * n + 8 : 24 * n + 8].view(np.int32)
        attention = block[24 * n + 8 : 25 * n + 8].view(np.int8)
        store.gather(rows, starts, stops, tokens[:read])
        tokens[read:] = self.pad_id
        np.copyto(labels, tokens[1:])
        labels[read - 1 :] = IGNORE_INDEX
        attention.fill(1)
        attention[real:] = 0
        inputs = sizes
        if read > n:
            inputs = sizes.copy()
            inputs[-1] -= 1  # the group's last token is only a label
        segment = np.arange(len(rows), dtype=np.int32) - np.repeat(firsts, lasts - firsts + 1)
        np.copyto(segments[:real], np.repeat(segment.astype(np.int32), inputs))
        segments[real:] = -1
        starts_at = np.repeat((np.cumsum(inputs) - inputs).astype(np.int32), inputs)
        np.subtract(self._count(real), starts_at, out=positions[:real])
        positions[real:] = 0
        ids = [store.document_id(row) for row in rows.tolist()]
        documents = [ids[a : b + 1] for a, b in zip(firsts.tolist(), lasts.tolist(), strict=True)]
        shape = (windows, length)
        arrays = (tokens[:n], labels, attention, segments, positions)
        fields = [torch.split(torch.from_numpy(a.reshape(shape)), per_plan) for a in arrays]
        out = []
        at = 0
        for k, plan in enumerate(plans):
            batch: dict[str, Any] = {name: f[k] for name, f in zip(FIELDS, fields, strict=True)}
            batch["document_ids"] = documents[at : at + plan.windows]
            at += plan.windows
            out.append((batch, plan.state))
        return out
