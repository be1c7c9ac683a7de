"""Turn BatchPlans into tensors: the map function the loader's workers run."""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lakemix.loader.boundaries import check_extra_fields
from lakemix.loader.planner import BatchPlan
from lakemix.loader.reader import TokenStore

if TYPE_CHECKING:
    import torch

IGNORE_INDEX = -100  # the label torch.nn.functional.cross_entropy ignores by default
# The type of each extra per-token field (boundaries.py derives the same from cu_seqlens).
EXTRA_TYPES = {
    "attention_mask": "int8",
    "segment_ids": "int32",
    "position_ids": "int32",
    "group_ids": "int32",  # a dynamic mix's plans carry each piece's group (column 4)
}
SIZES = {"int64": 8, "int32": 4, "int8": 1}  # bytes of each type
# Tokens of the batches built in one call: enough to spread its fixed costs (some 40 numpy
# calls), little enough for its block (8 bytes a token: 4 MiB) to stay in the CPU's cache.
GROUP_TOKENS = 1 << 19
GROUP_BATCHES = 32  # and at most this many: the first batch waits for its whole group
# Blocks of memory a Materializer keeps for reuse: the group the training loop reads, the one
# before (its last batch may still be held) and the next; add the groups in flight in workers.
BLOCKS = 4


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


@dataclass(frozen=True)
class Group:
    """Consecutive batches built together, as one block of memory: what a worker hands over
    (a worker process sends one tensor through shared memory, not five for every batch);
    ``unpack`` cuts it into the batches' tensors, as views, in the training process.

    ``memory`` (uint8) holds, one after the other (``layout``): the group's ``n + 1`` tokens
    (int64; ``n`` = its sequences x ``seq_len``; the inputs are the first ``n``, the labels the
    last ``n``), the last batch's own labels when it ends a rank's epoch (int64, ``own``
    tokens), every batch's ``cu_seqlens`` (int32, ``cu_sizes`` each), each extra field
    (``[n]``, widest type first).

    Attributes:
        seq_len: Input tokens per sequence.
        windows: Sequences of each batch.
        memory: The block.
        own: Tokens of the last batch's own labels (0: it has none).
        cu_sizes: How long each batch's ``cu_seqlens`` is.
        extra: The extra fields, in the order asked.
        documents: The document ids of each sequence of the group.
        states: The planner's state after each batch.
    """

    seq_len: int
    windows: list[int]
    memory: torch.Tensor
    own: int
    cu_sizes: list[int]
    extra: tuple[str, ...]
    documents: list[list[str]]
    states: list[dict[str, Any]]


def layout(n: int, own: int, cu: int, extra: Sequence[str]) -> dict[str, tuple[int, int, str]]:
    """``name: (first byte, end byte, type)`` of each array of a group's block: ``tokens``,
    ``own``, ``cu_seqlens`` and the extra fields (each type's offset a multiple of its size)."""
    arrays = [("tokens", n + 1, "int64"), ("own", own, "int64"), ("cu_seqlens", cu, "int32")]
    wide = sorted(extra, key=lambda name: -SIZES[EXTRA_TYPES[name]])
    arrays += [(name, n, EXTRA_TYPES[name]) for name in wide]
    found, at = {}, 0
    for name, items, kind in arrays:
        found[name] = (at, at + items * SIZES[kind], kind)
        at = found[name][1]
    return found


def unpack(groups: Sequence[Group]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(batch, planner state after it)`` of every batch of the groups, in order: its tensors
    are views of the group's (``input_ids`` and ``labels`` of the same memory, one token on)."""
    import torch

    out = []
    for group in groups:
        shape = (sum(group.windows), group.seq_len)
        n = shape[0] * shape[1]
        places = layout(n, group.own, sum(group.cu_sizes), group.extra)
        memory = group.memory
        arrays = {k: memory[a:b].view(getattr(torch, t)) for k, (a, b, t) in places.items()}
        tokens = arrays["tokens"]
        # split_with_sizes: torch.split without its Python wrapper (a few microseconds a call)
        input_ids = tokens[:n].view(shape).split_with_sizes(group.windows)
        labels = tokens[1:].view(shape).split_with_sizes(group.windows)
        if group.own:
            labels = (*labels[:-1], arrays["own"].view(-1, group.seq_len))
        cu_seqlens = arrays["cu_seqlens"].split_with_sizes(group.cu_sizes)
        fields = [(k, arrays[k].view(shape).split_with_sizes(group.windows)) for k in group.extra]
        at = 0
        for k, (windows, state) in enumerate(zip(group.windows, group.states, strict=True)):
            batch: dict[str, Any] = {
                "input_ids": input_ids[k],
                "labels": labels[k],
                "cu_seqlens": cu_seqlens[k],
            }
            for name, parts in fields:
                batch[name] = parts[k]
            batch["document_ids"] = group.documents[at : at + windows]
            at += windows
            out.append((batch, state))
    return out


class Materializer:
    """Reads the planned tokens from the store and packs them into batches.

    A batch is a dict: ``input_ids`` and ``labels``, ``[batch, seq_len]`` int64 (what
    ``nn.Embedding`` and ``cross_entropy`` take; labels ``-100`` where there is nothing to
    predict); ``cu_seqlens``, the document boundaries in O(documents) (``boundaries.py``: int32
    cumulative lengths of the sequences' document segments over the flattened inputs, as
    ``flash_attn_varlen_func`` takes them; its last value is the number of real tokens, padding
    follows them); ``document_ids``: the ids of the documents packed in each sequence, in order
    (the provenance); and each of ``extra_fields`` asked for, ``[batch, seq_len]``:
    ``attention_mask`` (int8, 1 for real tokens, 0 for padding), ``segment_ids`` (int32, which
    document of the sequence each input token belongs to, -1 for padding), ``position_ids``
    (int32, positions restarting at each document).

    A window starts at the previous window's last token, so the inputs of consecutive full
    windows, row after row, are one run of the rank's token stream and the labels the same run
    one token later: ``labels`` is a view of the same memory as ``input_ids``, one token on
    (as nanoGPT and Megatron slice one buffer), and both are contiguous. 8 bytes a token to
    write instead of 16; an in-place edit of one shows in the other (and in the next batch's
    first input): ``.clone()`` before editing. Only the batch that ends a rank's epoch has
    labels of its own, since its padding has ``-100`` labels but pad inputs.

    It is called with several consecutive plans at once and builds their batches together,
    with a few whole-array numpy operations: one copy out of the mapped file gives every input
    and label of the group. The batches' tensors are views of the group's arrays.

    Picklable: each worker process opens the store itself, on first use (``opened``: the
    store open already, used in this process). It keeps up to
    ``blocks`` blocks of memory for reuse (``Blocks``; ``pool``: blocks shared with the
    Materializers a loader had before, in this process).

    Raises:
        ValueError: An unknown name in ``extra_fields``.
    """

    def __init__(
        self,
        store: str | Path,
        *,
        seq_len: int,
        pad_id: int,
        extra_fields: Sequence[str] = (),
        blocks: int = BLOCKS,
        opened: TokenStore | None = None,
        pool: Blocks | None = None,
    ) -> None:
        self.path, self.seq_len, self.pad_id = Path(store), seq_len, pad_id
        self.extra_fields = check_extra_fields(extra_fields)
        self.blocks = blocks
        self._store: TokenStore | None = opened  # read only: threads may share it
        self._counting = np.arange(0, dtype=np.int32)
        self._blocks = pool if pool is not None else Blocks(blocks)

    def __getstate__(self) -> dict[str, Any]:
        fresh = {"_store": None, "_counting": np.arange(0, dtype=np.int32), "_blocks": None}
        return {**self.__dict__, **fresh}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _blocks=Blocks(state["blocks"]))

    def _count(self, n: int) -> NDArray[np.int32]:
        if len(self._counting) < n:
            self._counting = np.arange(n, dtype=np.int32)
        return self._counting[:n]

    def __call__(self, plans: Sequence[BatchPlan]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(batch, planner state after it)`` of each plan, in order."""
        return unpack(self.build(plans))

    def build(self, plans: Sequence[BatchPlan]) -> list[Group]:
        """The batches of consecutive plans, as whole-group tensors (``unpack`` cuts them)."""
        if self._store is None:
            self._store = TokenStore(self.path)
        return self._build(list(plans))

    def _build(self, plans: list[BatchPlan]) -> list[Group]:
        import torch

        store, length = self._store, self.seq_len
        assert store is not None
        # A plan is its epoch's last exactly when its last window is short (the only short
        # window of a rank's epoch is its last one).
        if any(p.last for p in plans[:-1]):  # an epoch ends inside the group: each end alone
            cuts = [0, *(k + 1 for k, p in enumerate(plans[:-1]) if p.last), len(plans)]
            return [group for a, b in itertools.pairwise(cuts) for group in self._build(plans[a:b])]
        per_plan = [p.windows for p in plans]
        counts = [len(p.pieces) for p in plans]
        windows = sum(per_plan)
        n = windows * length
        pieces = np.concatenate([p.pieces for p in plans]) if len(plans) > 1 else plans[0].pieces
        window = pieces[:, 0]
        if len(plans) > 1:  # number the windows of the group
            window = window + np.repeat(np.cumsum(per_plan) - per_plan, counts)
        rows, starts, stops = pieces[:, 1], pieces[:, 2], pieces[:, 3].copy()
        # Every window has a piece, and a window's pieces follow each other.
        lasts = np.cumsum(np.bincount(window, minlength=windows)) - 1
        firsts = np.append(0, lasts[:-1] + 1)
        # A full window's last token is the next window's first: read it once. Only the
        # group's last window may be short (the end of the rank's epoch), and then it is padded.
        stops[lasts[:-1]] -= 1
        sizes = stops - starts
        read = int(sizes.sum())
        real = min(read, n)  # input tokens; the rest is padding
        inputs = sizes  # input tokens of each piece
        if read > n:
            inputs = sizes.copy()
            inputs[-1] -= 1  # the group's last token is only a label
        padded = read <= n
        own = per_plan[-1] * length if padded else 0  # the last batch's own labels
        # Document segments of each batch: cumulative input tokens of its non-empty pieces
        # (a window's last piece is empty when its only token there is a label).
        plan_of = np.repeat(np.arange(len(plans)), counts)
        keep = np.flatnonzero(inputs)
        offsets = (np.cumsum(per_plan) - per_plan) * length  # each batch's first token
        kept_of = plan_of[keep]
        kept = np.bincount(kept_of, minlength=len(plans))
        places = layout(n, own, len(keep) + len(plans), self.extra_fields)
        size = max(end for _, end, _ in places.values())
        block = self._blocks.take(size)[:size]
        arrays = {name: block[a:b].view(kind) for name, (a, b, kind) in places.items()}
        tokens = arrays["tokens"]
        store.gather(rows, starts, stops, tokens[:read])
        tokens[read:] = self.pad_id
        if padded:
            mine = arrays["own"]
            np.copyto(mine, tokens[n - own + 1 :])
            mine[read - 1 - (n - own) :] = IGNORE_INDEX
        cu = arrays["cu_seqlens"]  # batch after batch: 0, then where each of its pieces ends
        cu.fill(0)
        cu[np.arange(len(keep)) + kept_of + 1] = (np.cumsum(inputs) - offsets[plan_of])[keep]
        for name in self.extra_fields:
            if name == "group_ids":
                np.copyto(arrays[name][:real], np.repeat(pieces[:, 4].astype(np.int32), inputs))
                arrays[name][real:] = -1
                continue
            self._fill(name, arrays[name], inputs, firsts, lasts, real)
        ids = store.document_ids(rows.tolist())
        documents = [ids[a : b + 1] for a, b in zip(firsts.tolist(), lasts.tolist(), strict=True)]
        group = Group(
            seq_len=length,
            windows=per_plan,
            memory=torch.from_numpy(block),
            own=own,
            cu_sizes=(kept + 1).tolist(),
            extra=self.extra_fields,
            documents=documents,
            states=[p.state for p in plans],
        )
        return [group]

    def _fill(
        self,
        name: str,
        out: NDArray[Any],
        inputs: NDArray[np.int64],
        firsts: NDArray[np.int64],
        lasts: NDArray[np.int64],
        real: int,
    ) -> None:
        """Extra field ``name`` of a group into ``out``: its pieces have ``inputs`` input tokens
        each, window ``w``'s are pieces ``firsts[w] .. lasts[w]``; padding after ``real``."""
        if name == "attention_mask":
            out[:real], out[real:] = 1, 0
        elif name == "segment_ids":
            segment = np.arange(len(inputs), dtype=np.int32) - np.repeat(firsts, lasts - firsts + 1)
            np.copyto(out[:real], np.repeat(segment.astype(np.int32), inputs))
            out[real:] = -1
        else:  # position_ids: restart at each piece (a window starts a piece)
            starts_at = np.repeat((np.cumsum(inputs) - inputs).astype(np.int32), inputs)
            np.subtract(self._count(real), starts_at, out=out[:real])
            out[real:] = 0
