"""Turn a BatchPlan into tensors: the map function the loader's workers run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lakemix.loader.planner import BatchPlan
from lakemix.loader.reader import TokenStore

IGNORE_INDEX = -100  # the label torch.nn.functional.cross_entropy ignores by default
FIELDS = ("input_ids", "labels", "attention_mask", "segment_ids", "position_ids")


class Materializer:
    """Reads the planned tokens from the store and packs them into a batch.

    A batch is a dict: ``input_ids``, ``labels`` (``-100`` where there is nothing to predict),
    ``attention_mask`` (1 for real tokens, 0 for padding; only the last sequence of a rank's
    epoch is padded), ``segment_ids`` (which document of the sequence each input token belongs
    to, -1 for padding: a document-boundary mask is ``segment_ids[:, :, None] ==
    segment_ids[:, None, :]``), ``position_ids`` (positions restarting at each document), all
    ``[batch, seq_len]`` int64 tensors, and ``document_ids``: the ids of the documents packed in
    each sequence, in order (the provenance).

    Picklable: each worker process opens the store itself, on first use.
    """

    def __init__(self, store: str | Path, *, seq_len: int, pad_id: int) -> None:
        self.path, self.seq_len, self.pad_id = Path(store), seq_len, pad_id
        self._store: TokenStore | None = None
        self._counting = np.arange(seq_len, dtype=np.int64)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_store": None}

    def __call__(self, plan: BatchPlan) -> tuple[dict[str, Any], dict[str, Any]]:
        import torch

        if self._store is None:
            self._store = TokenStore(self.path)
        store, length, windows = self._store, self.seq_len, plan.windows
        # One block for the five tensors, written in place: a worker process hands it over as
        # one shared buffer. A sequence's token k is input k and label k - 1.
        block = np.empty((5, windows, length), dtype=np.int64)
        inputs, labels, attention, segments, positions = block
        attention.fill(1)
        filled = [0] * windows
        documents: list[list[str]] = [[] for _ in range(windows)]
        for window, row, start, stop, _position in plan.pieces.tolist():
            at, size = filled[window], stop - start
            ids = store.tokens(row, start, stop)
            end = min(at + size, length)
            if end > at:
                inputs[window, at:end] = ids[: end - at]
                segments[window, at:end] = len(documents[window])
                positions[window, at:end] = self._counting[: end - at]
            first = max(at, 1)
            labels[window, first - 1 : at + size - 1] = ids[first - at :]
            documents[window].append(store.document_id(row))
            filled[window] = at + size
        for window, n in enumerate(filled):
            if n <= length:  # a short sequence: the end of the rank's epoch
                inputs[window, n:] = self.pad_id
                segments[window, n:], positions[window, n:], attention[window, n:] = -1, 0, 0
                labels[window, max(n - 1, 0) :] = IGNORE_INDEX
        tensors = torch.from_numpy(block)
        batch: dict[str, Any] = dict(zip(FIELDS, tensors, strict=True))
        batch["document_ids"] = documents
        return batch, plan.state
