"""Per-token document boundaries derived from a batch's ``cu_seqlens``.

A batch says where its documents start and end in O(documents): ``cu_seqlens`` (int32) holds
the cumulative lengths of its segments over the flattened ``[batch * seq_len]`` inputs, row
after row, as ``flash_attn_varlen_func`` takes them: ``0, end of segment 0, ..., real``. A
segment is the part of one document inside one sequence (a sequence boundary is always a
segment boundary); no segment is empty. ``cu_seqlens[-1]`` is the number of real input tokens:
the tokens after it are padding (only at the end of the last sequence of a rank's epoch).
Segment ``i`` of row ``r`` is the document ``document_ids[r][i]``; a row may list one more
document than it has segments: the one whose first token is only the row's last label.

These functions build the per-token forms that some models take instead, on any device.
``MixLoader(..., extra_fields=...)`` builds the same tensors with the batch, if asked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

FIELDS = ("input_ids", "labels", "cu_seqlens")  # a batch's tensors (and its document_ids)
# The per-token tensors a batch can carry besides those, if asked.
EXTRA_FIELDS = ("attention_mask", "segment_ids", "position_ids")
# Of a dynamic mix's batches only: the group of each input token's document (int32, -1 for
# padding), to split the loss by group in the same pass.
GROUP_FIELD = "group_ids"


def check_extra_fields(extra_fields: Sequence[str]) -> tuple[str, ...]:
    """The extra fields as a tuple, in the order asked, each once.

    Raises:
        ValueError: A name that is not one of ``EXTRA_FIELDS`` (or a lone string).
    """
    if isinstance(extra_fields, str):
        raise ValueError(
            f"extra_fields must be a list of names, got the string {extra_fields!r}; "
            f"choose among {', '.join(EXTRA_FIELDS)}"
        )
    unknown = [f for f in extra_fields if f not in (*EXTRA_FIELDS, GROUP_FIELD)]
    if unknown:
        raise ValueError(
            f"unknown extra field {unknown[0]!r}; choose among {', '.join(EXTRA_FIELDS)} "
            f"(and {GROUP_FIELD} of a dynamic mix) "
            f"(every batch has {', '.join(FIELDS)} and document_ids)"
        )
    return tuple(dict.fromkeys(extra_fields))


def _flat(batch: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(token index, segment of each token, cu_seqlens)`` over the flattened batch."""
    import torch

    cu = batch["cu_seqlens"].long()
    index = torch.arange(batch["input_ids"].numel(), device=cu.device)
    return index, torch.searchsorted(cu[1:], index, right=True), cu


def attention_mask(batch: Mapping[str, Any]) -> torch.Tensor:
    """``[batch, seq_len]`` int8: 1 for real input tokens, 0 for padding."""
    import torch

    ids: torch.Tensor = batch["input_ids"]
    index = torch.arange(ids.numel(), device=ids.device)
    real: torch.Tensor = index < batch["cu_seqlens"][-1]
    return real.to(torch.int8).view(ids.shape)


def segment_ids(batch: Mapping[str, Any]) -> torch.Tensor:
    """``[batch, seq_len]`` int32: the segment of each token in its row (its index into the
    row's ``document_ids``), -1 for padding. A document-boundary mask is
    ``segment_ids[:, :, None] == segment_ids[:, None, :]``."""
    import torch

    shape = batch["input_ids"].shape
    index, segment, cu = _flat(batch)
    rows = segment.view(shape)
    local = rows - rows[:, :1]  # a row starts a segment: its first token's is the row's first
    return torch.where(index.view(shape) < cu[-1], local, -1).to(torch.int32)


def position_ids(batch: Mapping[str, Any]) -> torch.Tensor:
    """``[batch, seq_len]`` int32: each token's position in its document's segment (0 at the
    start of a segment, and for padding)."""
    import torch

    shape = batch["input_ids"].shape
    index, segment, cu = _flat(batch)
    real = index < cu[-1]  # a padding token's segment is one past the last: cu[-1]
    positions: torch.Tensor = torch.where(real, index - cu[segment], 0)
    return positions.to(torch.int32).view(shape)
