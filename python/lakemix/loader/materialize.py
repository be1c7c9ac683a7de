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

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_store": None}

    def __call__(self, plan: BatchPlan) -> tuple[dict[str, Any], dict[str, Any]]:
        import torch

        if self._store is None:
            self._store = TokenStore(self.path)
        store, width = self._store, self.seq_len + 1
        tokens = np.full((plan.windows, width), self.pad_id, dtype=np.int64)
        segments = np.full((plan.windows, width), -1, dtype=np.int64)
        positions = np.zeros((plan.windows, width), dtype=np.int64)
        filled = np.zeros(plan.windows, dtype=np.int64)
        documents: list[list[str]] = [[] for _ in range(plan.windows)]
        for window, row, start, stop, _position in plan.pieces.tolist():
            at, size = filled[window], stop - start
            tokens[window, at : at + size] = store.tokens(row, start, stop)
            segments[window, at : at + size] = len(documents[window])
            positions[window, at : at + size] = np.arange(size)
            documents[window].append(store.document_id(row))
            filled[window] = at + size
        real = np.arange(width)[None, :] < filled[:, None]
        # One block for the five tensors: a worker process hands it over as one shared buffer.
        block = np.empty((5, plan.windows, self.seq_len), dtype=np.int64)
        block[0] = tokens[:, :-1]
        np.copyto(block[1], np.where(real[:, 1:], tokens[:, 1:], IGNORE_INDEX))
        block[2] = real[:, :-1]
        block[3] = segments[:, :-1]
        block[4] = positions[:, :-1]
        tensors = torch.from_numpy(block)
        batch: dict[str, Any] = dict(zip(FIELDS, tensors, strict=True))
        batch["document_ids"] = documents
        return batch, plan.state
