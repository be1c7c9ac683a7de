"""CLD2 (``pycld2``) on the bytes lid.176 reads, its answer given as one of lid.176's labels.

CLD2 is Chromium's compact language detector (Apache-2.0, a C++ extension): 83 languages by
character quadgrams plus about 80 more by script. It reads UTF-8 bytes, so each text's prefix is
handed over as it lies in the Arrow buffer, as plain text (not HTML). It refuses code points
outside RFC 5198's interchange UTF-8 (C0 controls but tab, newline, form feed and carriage
return; DEL and C1 controls; noncharacters) with ``pycld2.error``; a text that holds one is
read again with those code points turned into spaces.

Codes are put in lid.176's label set as ``lakemix.udf.langid`` names it: "iw" is "he", "jw"
"jv", "no" "nb", "zh-Hant" "zh", "bh" "bho"; a language that no label names (Zulu, Xhosa,
Hausa, ...) is ``FOREIGN``, and "un" (or input CLD2 still refuses) is ``UNKNOWN``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

UNKNOWN = -1  # CLD2 found no language ("un")
FOREIGN = -2  # CLD2 named a language that none of the labels names
# CLD2 codes for a language lid.176 (as lakemix.udf.langid renames its labels) calls otherwise.
RENAMED = {"iw": "he", "jw": "jv", "no": "nb", "zh-Hant": "zh", "bh": "bho"}
_NONCHARACTERS = "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17)
)
_REFUSED = re.compile(f"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef{_NONCHARACTERS}]")


@dataclass(frozen=True)
class Detections:
    """CLD2's first language for each text, as arrays of the texts' length."""

    labels: np.ndarray  # int64: index into the labels asked for, UNKNOWN or FOREIGN
    reliable: np.ndarray  # bool: CLD2's own "is reliable"
    percent: np.ndarray  # int64: percent of the text CLD2 gives that language
    score: np.ndarray  # float64: CLD2's normalized score (per 1 KB of text; ~300+ when sure)


@functools.cache
def label_index(labels: tuple[str, ...]) -> dict[str, int]:
    """Index into ``labels`` of every CLD2 code; FOREIGN where no label names the language."""
    import pycld2

    index = {label: k for k, label in enumerate(labels)}
    codes = {code: index.get(RENAMED.get(code, code), FOREIGN) for _, code in pycld2.LANGUAGES}
    return {**codes, "un": UNKNOWN}


@functools.cache
def detectable(labels: tuple[str, ...]) -> np.ndarray:
    """bool per label: CLD2 can answer it (it is one of CLD2's detected languages)."""
    import pycld2

    names = set(pycld2.DETECTED_LANGUAGES)
    index = label_index(labels)
    out = np.zeros(len(labels), bool)
    for name, code in pycld2.LANGUAGES:
        if name in names and index[code] >= 0:
            out[index[code]] = True
    return out


def _detect(text: bytes) -> tuple[bool, str, int, float]:
    """CLD2's (is reliable, code, percent, normalized score) of one UTF-8 text."""
    import pycld2

    try:
        reliable, _, details = pycld2.detect(text, isPlainText=True, bestEffort=True)
    except pycld2.error:
        clean = _REFUSED.sub(" ", text.decode("utf-8", "replace")).encode("utf-8")
        try:
            reliable, _, details = pycld2.detect(clean, isPlainText=True, bestEffort=True)
        except pycld2.error:
            return False, "un", 0, 0.0
    _, code, percent, score = details[0]
    return bool(reliable), str(code), int(percent), float(score)


def detect(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray, labels: tuple[str, ...]
) -> Detections:
    """CLD2's first language of each text ``data[starts[i]:ends[i]]`` (UTF-8 bytes).

    Args:
        data: The UTF-8 bytes of the texts (uint8).
        starts: First byte of each text.
        ends: End byte of each text (a code point boundary).
        labels: The label set answers are given in (lid.176's, as langid names them).
    """
    index = label_index(labels)
    view = np.ascontiguousarray(data, np.uint8).data
    found = [_detect(bytes(view[s:e])) for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    return Detections(
        labels=np.array([index.get(code, FOREIGN) for _, code, _, _ in found], np.int64),
        reliable=np.array([reliable for reliable, _, _, _ in found], bool),
        percent=np.array([percent for _, _, percent, _ in found], np.int64),
        score=np.array([score for _, _, _, score in found], np.float64),
    )
