"""Training a quality model: deterministic logistic regression over hashed features.

Labels are 1 (keep) and 0 (drop). Each class weighs as much as the other in the loss (and,
inside a class, each ``group`` (a language, a source) as much as the other groups when groups
are given), so a label set with 20 times more English than Amharic does not teach the model
that Amharic is junk. The row order of every epoch is drawn from ``seed``; the kernel is
sequential, so the same texts, labels, groups and seed give the same model, byte for byte.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from lakemix.udf.quality_model.model import QualityModel

DEFAULT_BUCKETS = 1 << 19
DEFAULT_EPOCHS = 4
DEFAULT_LEARNING_RATE = 0.2
DEFAULT_L2 = 1e-6


def balanced_weights(labels: Sequence[int], groups: Sequence[str] | None) -> np.ndarray:
    """Per-row loss weights: classes equal, and groups equal inside a class; mean 1."""
    keys = [(label, groups[k] if groups else "") for k, label in enumerate(labels)]
    per_key = Counter(keys)
    per_class: dict[int, set[str]] = {}
    for label, group in per_key:
        per_class.setdefault(label, set()).add(group)
    weights = np.array([1.0 / (len(per_class[key[0]]) * per_key[key]) for key in keys], np.float64)
    scaled: np.ndarray = weights * (len(weights) / weights.sum())
    return scaled


def train(
    texts: Sequence[str],
    labels: Sequence[int],
    *,
    groups: Sequence[str] | None = None,
    seed: int = 0,
    buckets: int = DEFAULT_BUCKETS,
    epochs: int = DEFAULT_EPOCHS,
    learning_rate: float = DEFAULT_LEARNING_RATE,
    l2: float = DEFAULT_L2,
    info: dict[str, Any] | None = None,
) -> QualityModel:
    """A model trained on ``texts`` labelled 1 (keep) or 0 (drop).

    Raises:
        ValueError: Lengths differ, a label is not 0 or 1, one class is missing, or an option is
            out of range (each message names the value).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from lakemix.udf.quality_model import kernel
    from lakemix.udf.quality_model.model import _buffers

    if len(texts) != len(labels) or (groups is not None and len(groups) != len(labels)):
        raise ValueError(
            f"texts, labels and groups must be as long: {len(texts)}, {len(labels)}, "
            f"{None if groups is None else len(groups)}"
        )
    bad = sorted({label for label in labels if label not in (0, 1)})
    if bad:
        raise ValueError(f"labels must be 0 (drop) or 1 (keep), got {bad[:5]!r}")
    if len(set(labels)) < 2:
        raise ValueError(
            f"training needs documents of both labels, got only {sorted(set(labels))!r}: "
            "declare a junk source or give drop verdicts too"
        )
    if buckets < 1024 or buckets & (buckets - 1):
        raise ValueError(f"buckets must be a power of two >= 1024, got {buckets}")
    if epochs < 1 or learning_rate <= 0 or l2 < 0:
        raise ValueError(
            f"need epochs >= 1, learning_rate > 0 and l2 >= 0, got {epochs}, {learning_rate}, {l2}"
        )
    array = pc.utf8_lower(pa.array(list(texts), pa.large_string()).fill_null(""))
    offsets, data = _buffers(array)
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(len(texts)) for _ in range(epochs)]).astype(np.int64)
    weights, bias = kernel.train(
        data,
        offsets,
        np.asarray(labels, np.float64),
        balanced_weights(labels, groups),
        order,
        buckets,
        epochs,
        learning_rate,
        l2,
    )
    header = {
        **(info or {}),
        "documents": len(labels),
        "kept_labels": int(sum(labels)),
        "seed": seed,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "l2": l2,
    }
    # the file keeps float16 weights: the model in memory scores as the file will
    stored = weights.astype(np.float16).astype(np.float32)
    return QualityModel(weights=stored, bias=float(bias), info=header)
