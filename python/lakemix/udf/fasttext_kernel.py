"""fastText's supervised ``predict(text, k=1)``, re-implemented as a numba kernel over Arrow.

Why: lid.176 through ``fasttext-predict`` spent ~300 us a document, most of it in fastText's
per-word string handling (an ``std::string`` per character n-gram). This kernel reads the
UTF-8 bytes where they lie and gives the same label and the same float32 probability, bit for
bit (``python/tests/unit/udf/test_fasttext.py`` compares it with fasttext-predict on every
document and sentence of the corpora). It implements exactly what lid.176.ftz needs and refuses
other models by name: a ``sup`` model with hierarchical softmax, word unigrams, character
n-grams, a product-quantized (optionally norm-quantized, pruned) input matrix and a dense
output matrix.

fastText's steps, kept in its order because float sums depend on it: the text is split on
``' ' \\n \\r \\t \\v \\f \\0``; a known word adds its row then its n-gram rows, an unknown word
its n-gram rows (n-grams of ``<word>``, ``minn``..``maxn`` code points, FNV-1a over bytes sign-
extended as fastText's ``int8_t`` cast does, modulo ``bucket``, kept only if the pruned model
kept it); a token starting ``__label__`` is skipped; ``</s>`` (the end of line fastText's Python
binding appends) adds its row and ends the text. The hidden vector is the float32 mean of those
rows; the label is the best leaf of a depth-first walk of the Huffman tree over label counts,
left child first, pruned as fastText prunes for k=1.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

_MAGIC, _VERSION = 793712314, 12
_ARGS = (
    *("dim", "ws", "epoch", "min_count", "neg", "word_ngrams", "loss", "model", "bucket"),
    *("minn", "maxn", "lr_update_rate"),
)
_HS, _SUP = 1, 3  # fastText's loss_name::hs and model_name::sup
_EOS = b"</s>"
_LABEL = b"__label__"


@dataclass(frozen=True)
class Model:
    """The arrays of a fastText model that prediction reads (see ``load``)."""

    labels: tuple[str, ...]  # without the __label__ prefix
    minn: int
    maxn: int
    bucket: int
    word_bytes: np.ndarray  # uint8: the words' UTF-8 bytes, one after the other
    word_offsets: np.ndarray  # int64 [nwords + 1]
    word_slots: np.ndarray  # int32 open-addressing table of word ids by FNV-1a hash, -1 empty
    ngram_rows: np.ndarray  # int32 [bucket]: row of an n-gram bucket in the pruned matrix, or -1
    rows: np.ndarray  # float32 [rows, dim]: the input matrix, dequantized as fastText adds rows
    output: np.ndarray  # float32 [labels, dim]
    left: np.ndarray  # int32 [2 * labels - 1]: Huffman tree, -1 at leaves
    right: np.ndarray
    eos: int  # word id of </s>


class _Reader:
    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.pos, self.path = data, 0, path

    def read(self, fmt: str) -> tuple[int | float | bool, ...]:
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype, count, self.pos)
        self.pos += out.nbytes
        return out

    def cstring(self) -> bytes:
        end = self.data.index(b"\0", self.pos)
        word = self.data[self.pos : end]
        self.pos = end + 1
        return word

    def quantizer(self) -> tuple[int, int, int, np.ndarray]:
        dim, nsubq, dsub, lastdsub = (int(v) for v in self.read("<iiii"))
        return nsubq, dsub, lastdsub, self.array("<f4", dim * 256)


def _fnv(word: bytes) -> int:
    h = 2166136261
    for byte in word:
        h = ((h ^ (byte | 0xFFFFFF00 if byte & 0x80 else byte)) * 16777619) & 0xFFFFFFFF
    return h


def _dequantized(reader: _Reader, rows: int, dim: int) -> np.ndarray:
    """A product-quantized matrix as fastText's ``addRowToVector`` adds it: alpha * centroid."""
    qnorm = bool(reader.read("<?")[0])
    m, n = (int(v) for v in reader.read("<qq"))
    codesize = int(reader.read("<i")[0])
    if m != rows or n != dim or codesize % max(m, 1):
        raise ValueError(f"{reader.path}: quantized input of {m} x {n} for {rows} rows x {dim}")
    codes = reader.array("u1", codesize)
    nsubq, dsub, lastdsub, centroids = reader.quantizer()
    norms = np.ones(m, np.float32)
    if qnorm:
        norm_codes = reader.array("u1", m)
        _, _, _, norm_centroids = reader.quantizer()
        norms = norm_centroids[norm_codes]
    codes = codes.reshape(m, nsubq)
    out = np.zeros((m, dim), np.float32)
    for sub in range(nsubq):
        width = lastdsub if sub == nsubq - 1 else dsub
        base = sub * 256 * dsub
        at = base + codes[:, sub].astype(np.int64) * (lastdsub if sub == nsubq - 1 else dsub)
        for k in range(width):
            out[:, sub * dsub + k] = norms * centroids[at + k]  # float32 * float32, as fastText
    return out


def _tree(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fastText's ``HierarchicalSoftmaxLoss::buildTree``: left and right child of each node."""
    osz = len(counts)
    count = np.full(2 * osz - 1, 10**15, np.int64)
    count[:osz] = counts
    left = np.full(2 * osz - 1, -1, np.int32)
    right = np.full(2 * osz - 1, -1, np.int32)
    leaf, node = osz - 1, osz
    for i in range(osz, 2 * osz - 1):
        mini = [0, 0]
        for j in range(2):
            if leaf >= 0 and count[leaf] < count[node]:
                mini[j], leaf = leaf, leaf - 1
            else:
                mini[j], node = node, node + 1
        left[i], right[i] = mini
        count[i] = count[mini[0]] + count[mini[1]]
    return left, right


@functools.cache
def load(path: Path) -> Model:
    """The prediction arrays of the fastText model file at ``path`` (read once per process).

    Raises:
        ValueError: If the file is not a fastText model, or is one this kernel does not run
            (it names what differs: loss, model, word n-grams, output quantization).
    """
    reader = _Reader(Path(path).read_bytes(), Path(path))
    magic, version = reader.read("<ii")
    if (magic, version) != (_MAGIC, _VERSION):
        raise ValueError(f"{path}: not a fastText model (magic {magic}, version {version})")
    args = dict(zip(_ARGS, (int(v) for v in reader.read("<12i")), strict=True))
    reader.read("<d")  # t, the sampling threshold: training only
    unsupported = {
        "loss": (args["loss"], _HS),
        "model": (args["model"], _SUP),
        "word_ngrams": (args["word_ngrams"], 1),
    }
    for name, (value, wanted) in unsupported.items():
        if value != wanted:
            raise ValueError(f"{path}: {name} is {value}; this predictor runs only {wanted}")
    size, nwords, nlabels = (int(v) for v in reader.read("<iii"))
    _, prune_size = (int(v) for v in reader.read("<qq"))
    words, counts = [], []
    for _ in range(size):
        words.append(reader.cstring())
        count, _kind = reader.read("<qb")
        counts.append(int(count))
    pairs = reader.array("<i4", 2 * max(prune_size, 0)).reshape(-1, 2)
    if not reader.read("<?")[0]:
        raise ValueError(f"{path}: the input matrix is not quantized (a .bin model); use the .ftz")
    ngrams = prune_size if prune_size >= 0 else args["bucket"]
    rows = _dequantized(reader, nwords + ngrams, args["dim"])
    if reader.read("<?")[0]:
        raise ValueError(f"{path}: the output matrix is quantized (-qout); not supported")
    m, n = (int(v) for v in reader.read("<qq"))
    output = reader.array("<f4", m * n).reshape(m, n)
    if reader.pos != len(reader.data) or n != args["dim"] or m != nlabels:
        raise ValueError(f"{path}: unexpected layout (output {m} x {n}, {nlabels} labels)")
    ngram_rows = np.full(args["bucket"], -1, np.int32)
    if prune_size >= 0:
        ngram_rows[pairs[:, 0]] = nwords + pairs[:, 1]
    else:
        ngram_rows[:] = nwords + np.arange(args["bucket"], dtype=np.int32)
    slots = np.full(1 << max(4, (2 * nwords).bit_length()), -1, np.int32)
    for wid, word in enumerate(words[:nwords]):
        at = _fnv(word) & (len(slots) - 1)
        while slots[at] != -1:
            at = (at + 1) & (len(slots) - 1)
        slots[at] = wid
    left, right = _tree(np.array(counts[nwords:], np.int64))
    return Model(
        labels=tuple(w.decode("utf-8").removeprefix("__label__") for w in words[nwords:]),
        minn=args["minn"],
        maxn=args["maxn"],
        bucket=args["bucket"],
        word_bytes=np.frombuffer(b"".join(words[:nwords]) or b"\0", np.uint8),
        word_offsets=np.cumsum([0, *(len(w) for w in words[:nwords])], dtype=np.int64),
        word_slots=slots,
        ngram_rows=ngram_rows,
        rows=rows,
        output=np.ascontiguousarray(output),
        left=left,
        right=right,
        eos=words.index(_EOS),
    )


# --- kernel ----------------------------------------------------------------------------------

_F32 = np.float32
_LABEL_BYTES = np.frombuffer(_LABEL, np.uint8).copy()
_LOG_THRESHOLD = np.float32(np.log(1e-5))  # std_log(0.0): the k=1 predict's threshold


@numba.njit(cache=True, nogil=True, inline="always")
def _is_space(b: int) -> bool:
    return b == 32 or b == 10 or b == 13 or b == 9 or b == 11 or b == 12 or b == 0


@numba.njit(cache=True, nogil=True, inline="always")
def _fnv_step(h: Any, b: int) -> Any:
    x = np.uint32(b) | np.uint32(0xFFFFFF00) if b >= 128 else np.uint32(b)
    return np.uint32((h ^ x) * np.uint32(16777619))


@numba.njit(cache=True, nogil=True)
def _add_row(hidden: Any, rows: Any, row: int) -> None:
    for k in range(hidden.shape[0]):
        hidden[k] += rows[row, k]


@numba.njit(cache=True, nogil=True)
def _word_id(data: Any, s: int, e: int, word_bytes: Any, word_offsets: Any, slots: Any) -> int:
    h = np.uint32(2166136261)
    for p in range(s, e):
        h = _fnv_step(h, data[p])
    mask = slots.shape[0] - 1
    at = int(h) & mask
    while slots[at] != -1:
        wid = slots[at]
        a, b = word_offsets[wid], word_offsets[wid + 1]
        if b - a == e - s:
            same = True
            for q in range(e - s):
                if word_bytes[a + q] != data[s + q]:
                    same = False
                    break
            if same:
                return int(wid)
        at = (at + 1) & mask
    return -1


@numba.njit(cache=True, nogil=True)
def _add_ngrams(
    data: Any,
    s: int,
    e: int,
    minn: int,
    maxn: int,
    bucket: int,
    ngram_rows: Any,
    rows: Any,
    hidden: Any,
    word: Any,
) -> int:
    """Add the n-gram rows of ``<data[s:e]>`` (fastText's computeSubwords); return how many."""
    # word = "<" + bytes + ">", addressed through a small scratch buffer
    size = e - s + 2
    word[0] = 60
    for p in range(s, e):
        word[p - s + 1] = data[p]
    word[size - 1] = 62
    added = 0
    for i in range(size):
        if (word[i] & 0xC0) == 0x80:
            continue
        h = np.uint32(2166136261)
        j = i
        n = 1
        while j < size and n <= maxn:
            h = _fnv_step(h, word[j])
            j += 1
            while j < size and (word[j] & 0xC0) == 0x80:
                h = _fnv_step(h, word[j])
                j += 1
            if n >= minn and not (n == 1 and (i == 0 or j == size)):
                row = ngram_rows[int(h % np.uint32(bucket))]
                if row >= 0:
                    _add_row(hidden, rows, row)
                    added += 1
            n += 1
    return added


@numba.njit(cache=True, nogil=True)
def _best_label(
    hidden: Any, output: Any, left: Any, right: Any, stack_nodes: Any, stack_scores: Any
) -> tuple[int, Any]:
    """fastText's hierarchical-softmax dfs for k=1: (leaf, log-probability)."""
    osz = output.shape[0]
    best_node = -1
    best = _F32(0.0)
    stack_nodes[0] = 2 * osz - 2
    stack_scores[0] = _F32(0.0)
    top = 1
    while top > 0:
        top -= 1
        node = stack_nodes[top]
        score = stack_scores[top]
        if score < _LOG_THRESHOLD:
            continue
        if best_node >= 0 and score < best:
            continue
        if left[node] == -1 and right[node] == -1:
            best_node, best = node, score  # a tie keeps the later leaf, as fastText's heap does
            continue
        d = _F32(0.0)
        for k in range(hidden.shape[0]):
            d += output[node - osz, k] * hidden[k]
        f = _F32(1.0 / np.float64(_F32(1.0) + np.exp(-d)))
        log_left = _F32(np.log(np.float64(_F32(1.0 - np.float64(f))) + 1e-5))
        log_right = _F32(np.log(np.float64(f) + 1e-5))
        stack_nodes[top] = right[node]  # popped after the whole left subtree
        stack_scores[top] = score + log_right
        stack_nodes[top + 1] = left[node]
        stack_scores[top + 1] = score + log_left
        top += 2
    return best_node, best


@numba.njit(cache=True, nogil=True)
def _hidden(
    data: Any,
    start: int,
    end: int,
    word_bytes: Any,
    word_offsets: Any,
    slots: Any,
    ngram_rows: Any,
    rows: Any,
    eos: int,
    minn: int,
    maxn: int,
    bucket: int,
    hidden: Any,
    word: Any,
) -> None:
    """fastText's hidden vector of ``data[start:end]``: the float32 mean of its rows."""
    hidden[:] = 0
    count = 0
    p = start
    ended = False
    while p < end and not ended:
        while p < end and _is_space(data[p]):
            p += 1
        s = p
        while p < end and not _is_space(data[p]):
            p += 1
        if s == p:
            break
        is_label = p - s >= 9
        for q in range(9 if is_label else 0):
            if data[s + q] != _LABEL_BYTES[q]:
                is_label = False
                break
        if is_label:
            continue
        wid = _word_id(data, s, p, word_bytes, word_offsets, slots)
        if wid == eos:
            _add_row(hidden, rows, eos)
            count += 1
            ended = True
            break
        if wid >= 0:
            _add_row(hidden, rows, wid)
            count += 1
        count += _add_ngrams(data, s, p, minn, maxn, bucket, ngram_rows, rows, hidden, word)
    if not ended:
        _add_row(hidden, rows, eos)
        count += 1
    scale = _F32(1.0 / count)
    for k in range(hidden.shape[0]):
        hidden[k] *= scale


@numba.njit(cache=True, nogil=True)
def _longest(starts: Any, ends: Any) -> int:
    longest = 0
    for i in range(starts.shape[0]):
        longest = max(longest, ends[i] - starts[i])
    return longest


@numba.njit(cache=True, nogil=True)
def predict_kernel(
    data: Any,
    starts: Any,
    ends: Any,
    word_bytes: Any,
    word_offsets: Any,
    slots: Any,
    ngram_rows: Any,
    rows: Any,
    output: Any,
    left: Any,
    right: Any,
    eos: Any,
    minn: Any,
    maxn: Any,
    bucket: Any,
    labels: Any,
    scores: Any,
) -> None:
    """Label index and float32 probability of each text ``data[starts[i]:ends[i]]``.

    Newlines count as spaces (the caller's text is one line); ``</s>`` ends every text.
    """
    hidden = np.zeros(rows.shape[1], np.float32)
    depth = 2 * output.shape[0] + 2
    stack_nodes = np.zeros(depth, np.int64)
    stack_scores = np.zeros(depth, np.float32)
    word = np.zeros(_longest(starts, ends) + 2, np.uint8)
    for i in range(starts.shape[0]):
        _hidden(
            data,
            starts[i],
            ends[i],
            word_bytes,
            word_offsets,
            slots,
            ngram_rows,
            rows,
            eos,
            minn,
            maxn,
            bucket,
            hidden,
            word,
        )
        node, score = _best_label(hidden, output, left, right, stack_nodes, stack_scores)
        labels[i] = node
        scores[i] = _F32(np.exp(_F32(score)))


@numba.njit(cache=True, nogil=True)
def probability_kernel(
    data: Any,
    starts: Any,
    ends: Any,
    word_bytes: Any,
    word_offsets: Any,
    slots: Any,
    ngram_rows: Any,
    rows: Any,
    output: Any,
    left: Any,
    parent: Any,
    eos: Any,
    minn: Any,
    maxn: Any,
    bucket: Any,
    wanted: Any,
    scores: Any,
) -> None:
    """Float32 probability of label ``wanted[i]`` for each text ``data[starts[i]:ends[i]]``.

    The product of the branch probabilities on the path from the root to the label's leaf,
    summed in logs from the root down as ``_best_label`` sums them, so the predicted label
    gets the score ``predict_kernel`` gives it, bit for bit.
    """
    osz = output.shape[0]
    hidden = np.zeros(rows.shape[1], np.float32)
    path = np.zeros(2 * osz, np.int64)
    word = np.zeros(_longest(starts, ends) + 2, np.uint8)
    for i in range(starts.shape[0]):
        _hidden(
            data,
            starts[i],
            ends[i],
            word_bytes,
            word_offsets,
            slots,
            ngram_rows,
            rows,
            eos,
            minn,
            maxn,
            bucket,
            hidden,
            word,
        )
        size = 0
        node = wanted[i]
        while node >= 0:
            path[size] = node
            size += 1
            node = parent[node]
        score = _F32(0.0)
        for j in range(size - 1, 0, -1):
            node = path[j]
            d = _F32(0.0)
            for k in range(hidden.shape[0]):
                d += output[node - osz, k] * hidden[k]
            f = _F32(1.0 / np.float64(_F32(1.0) + np.exp(-d)))
            if path[j - 1] == left[node]:
                score += _F32(np.log(np.float64(_F32(1.0 - np.float64(f))) + 1e-5))
            else:
                score += _F32(np.log(np.float64(f) + 1e-5))
        scores[i] = _F32(np.exp(_F32(score)))


def predict(
    model: Model, data: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Label index (into ``model.labels``) and probability of each byte range of ``data``."""
    labels = np.zeros(len(starts), np.int32)
    scores = np.zeros(len(starts), np.float32)
    predict_kernel(
        data,
        starts.astype(np.int64, copy=False),
        ends.astype(np.int64, copy=False),
        model.word_bytes,
        model.word_offsets,
        model.word_slots,
        model.ngram_rows,
        model.rows,
        model.output,
        model.left,
        model.right,
        model.eos,
        model.minn,
        model.maxn,
        model.bucket,
        labels,
        scores,
    )
    return labels, scores


def probabilities(
    model: Model, data: np.ndarray, starts: np.ndarray, ends: np.ndarray, wanted: np.ndarray
) -> np.ndarray:
    """Probability of label ``wanted[i]`` (an index into ``model.labels``) for each byte range.

    Raises:
        ValueError: If a wanted index is not a label of the model.
    """
    osz = len(model.labels)
    wanted = np.asarray(wanted, np.int64)
    if len(wanted) != len(starts) or ((wanted < 0) | (wanted >= osz)).any():
        raise ValueError(f"wanted must hold one label index in [0, {osz}) per text, got {wanted}")
    parent = np.full(2 * osz - 1, -1, np.int64)
    inner = np.arange(osz, 2 * osz - 1)
    parent[model.left[inner]] = inner
    parent[model.right[inner]] = inner
    scores = np.zeros(len(starts), np.float32)
    probability_kernel(
        data,
        starts.astype(np.int64, copy=False),
        ends.astype(np.int64, copy=False),
        model.word_bytes,
        model.word_offsets,
        model.word_slots,
        model.ngram_rows,
        model.rows,
        model.output,
        model.left,
        parent,
        model.eos,
        model.minn,
        model.maxn,
        model.bucket,
        wanted,
        scores,
    )
    return scores
