"""A quality model as a file: hashed-feature weights and what they were trained on.

The file is ``MAGIC``, a 4-byte little-endian header length, the header (sorted JSON: format,
feature definition, buckets, bias, and whatever the trainer records: labels' digest and counts,
held-out metrics, seed) and the weights as little-endian float16. Same training, same bytes: its
SHA-256 (``digest``) names the model in cache keys, build records and release manifests.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    import pyarrow as pa

MAGIC = b"LAKEMIX-QM1\n"
FEATURES = 1  # the feature definition of kernel.features; bump when it changes


class ModelFileError(LakemixError, ValueError):
    """A quality model file that cannot be read: names the file and what is wrong."""


@dataclass(frozen=True)
class QualityModel:
    """Weights of a quality model and its header (see the module)."""

    weights: np.ndarray  # float32 [buckets]
    bias: float
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def buckets(self) -> int:
        """How many hashed features the model has."""
        return len(self.weights)

    def to_bytes(self) -> bytes:
        """The model as its file's bytes (deterministic)."""
        header = {**self.info, "bias": float(self.bias), "buckets": self.buckets}
        header.update(format=1, features=FEATURES)
        text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        weights = self.weights.astype("<f2").tobytes()
        return MAGIC + struct.pack("<I", len(text)) + text + weights

    @property
    def digest(self) -> str:
        """SHA-256 of the model's bytes."""
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def save(self, path: Path) -> str:
        """Write the model to ``path`` (atomically); return its digest."""
        data = self.to_bytes()
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(data)
        partial.replace(path)
        return hashlib.sha256(data).hexdigest()

    def score(self, texts: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """The model's probability that each text is kept (NaN for a null text)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        from lakemix.udf.arrow import text_chunks
        from lakemix.udf.quality_model import kernel

        out = [np.zeros(0, np.float64)]
        weights = self.weights.astype(np.float64)
        for chunk in text_chunks(texts):
            lowered = pc.utf8_lower(chunk.cast(pa.large_string()))
            offsets, data = _buffers(lowered)
            valid = np.asarray(pc.is_valid(lowered), np.bool_)
            out.append(kernel.score(data, offsets, valid, weights, self.bias))
        return np.concatenate(out)


def _buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64, from the array's offset) and UTF-8 bytes of a ``large_string`` array."""
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, np.int64)[array.offset : array.offset + len(array) + 1]
    if data_buffer is None:
        return offsets, np.zeros(0, np.uint8)
    return offsets, np.frombuffer(data_buffer, np.uint8)


def from_bytes(data: bytes, *, name: str = "<bytes>") -> QualityModel:
    """Read a model from its file's bytes.

    Raises:
        ModelFileError: The bytes are no lakemix quality model, or a truncated or damaged one.
    """
    if not data.startswith(MAGIC):
        raise ModelFileError(f"{name}: not a lakemix quality model (no {MAGIC!r} at its start)")
    at = len(MAGIC)
    try:
        (length,) = struct.unpack_from("<I", data, at)
        header = json.loads(data[at + 4 : at + 4 + length])
        buckets = int(header["buckets"])
        bias = float(header["bias"])
    except (struct.error, ValueError, KeyError, TypeError) as error:
        raise ModelFileError(f"{name}: damaged header ({error})") from None
    if header.get("features") != FEATURES:
        raise ModelFileError(
            f"{name}: features definition {header.get('features')!r}, this lakemix reads "
            f"{FEATURES}; train the model again with `lakemix quality train`"
        )
    body = data[at + 4 + length :]
    if len(body) != 2 * buckets:
        raise ModelFileError(
            f"{name}: {len(body)} bytes of weights for {buckets} buckets (truncated or damaged)"
        )
    weights = np.frombuffer(body, "<f2").astype(np.float32)
    info = {k: v for k, v in header.items() if k not in {"bias", "buckets", "format", "features"}}
    return QualityModel(weights=weights, bias=bias, info=info)


@functools.cache
def _load(path: Path, stamp: tuple[int, int]) -> QualityModel:
    return from_bytes(path.read_bytes(), name=str(path))


def load(path: Path) -> QualityModel:
    """The model in ``path`` (cached while the file is unchanged).

    Raises:
        ModelFileError: ``path`` is missing or is no readable quality model.
    """
    try:
        stat = path.stat()
    except OSError as error:
        raise ModelFileError(f"{path}: cannot read the quality model ({error.strerror})") from None
    return _load(path, (stat.st_mtime_ns, stat.st_size))


def file_digest(path: Path) -> str:
    """SHA-256 of a model file's bytes (what names the model), once the file reads as a model.

    Raises:
        ModelFileError: ``path`` is missing or is no readable quality model.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelFileError(f"{path}: cannot read the quality model ({error.strerror})") from None
    from_bytes(data, name=str(path))
    return hashlib.sha256(data).hexdigest()
