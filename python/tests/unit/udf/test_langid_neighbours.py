from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.quality.reference import pack_sentences
from lakemix.udf import fasttext_kernel, identify_language, langid_neighbours
from lakemix.udf.langid import _LABELS, model_path
from lakemix.udf.utf8 import text_buffers

CORPORA = Path(
    os.environ.get("LAKEMIX_CORPORA", Path(__file__).resolve().parents[4].parent / "shared/corpora")
)
LEIPZIG = CORPORA / "langid" / "lingua_leipzig"

CROATIAN = "Tijekom prošlog tjedna tisuću ljudi posjetilo je sveučilište, a djeca su uvijek tu."
BOSNIAN = "Tokom prošle sedmice hiljadu ljudi posjetilo je univerzitet, a djeca su uvijek tu."
SERBIAN = "Tokom prošle nedelje hiljadu ljudi posetilo je univerzitet, a deca su uvek tu."
MALAY = "Kerajaan berkata bahawa wang itu akan dibayar kerana syarikat tersebut gagal."
INDONESIAN = "Pemerintah mengatakan bahwa uang itu akan dibayar karena perusahaan tersebut gagal."


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        (CROATIAN, "bs", "hr"),
        (BOSNIAN, "hr", "bs"),
        (BOSNIAN, "hbs", "bs"),
        (SERBIAN, "hr", "sr"),
        (SERBIAN, "bs", "sr"),
        ("Ovo je kratka rečenica bez ijedne takve riječi.", "hr", "hr"),  # silent: label stays
        ("Ovo je kratka rečenica.", "hbs", "hbs"),
        # Eastern words without an ijekavian form do not move Serbian to Bosnian ...
        ("Tokom godine hiljadu ljudi je došlo.", "sr", "sr"),
        # ... but do move Croatian, whose speakers write neither.
        ("Tokom godine hiljadu ljudi je došlo.", "hr", "bs"),
        ("TISUĆU ljudi, Tijekom", "bs", "hr"),  # any case
        ("tisućama godina", "bs", "hr"),  # stems take endings
        ("Kotorska tokomotiva", "hr", "hr"),  # whole words only: "tokom" inside a word is not one
    ],
)
def test_serbo_croatian_by_words(text: str, label: str, expected: str) -> None:
    assert langid_neighbours.serbo_croatian(text, label) == expected


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        (MALAY, "id", "ms"),
        (INDONESIAN, "ms", "id"),
        ("Saya suka makan nasi goreng setiap pagi.", "id", "id"),  # silent
        ("Saya suka makan nasi goreng setiap pagi.", "ms", "ms"),
        ("kerana karena", "ms", "ms"),  # tied
    ],
)
def test_malay_indonesian_by_words(text: str, label: str, expected: str) -> None:
    assert langid_neighbours.malay_indonesian(text, label) == expected


@functools.cache
def model() -> fasttext_kernel.Model:
    return fasttext_kernel.load(model_path())


@functools.cache
def lid176_names() -> tuple[str, ...]:
    return tuple(_LABELS.get(label, label) for label in model().labels)


def refined(
    texts: list[str], labels: list[str], names: tuple[str, ...] | None = None
) -> tuple[list[str], list[float]]:
    names = names or lid176_names()
    data, offsets, _ = text_buffers(pa.array(texts, pa.large_string()))
    index = np.array([names.index(label) for label in labels])
    out, scores = langid_neighbours.refine(
        model(), names, data, offsets[:-1], offsets[1:], index, np.full(len(texts), 0.25)
    )
    return [names[k] for k in out], list(scores)


def test_refine_moves_only_labels_of_a_group() -> None:
    texts = [BOSNIAN, BOSNIAN, MALAY, MALAY, SERBIAN]
    got, _ = refined(texts, ["hr", "en", "id", "de", "hbs"])
    assert got == ["bs", "en", "ms", "de", "sr"]


def test_a_moved_label_is_scored_with_the_groups_probability() -> None:
    texts = [BOSNIAN, MALAY, CROATIAN]
    labels, scores = refined(texts, ["hr", "id", "hr"])
    assert labels == ["bs", "ms", "hr"]
    data, offsets, _ = text_buffers(pa.array(texts, pa.large_string()))
    names = lid176_names()

    def group_p(row: int, group: tuple[str, ...]) -> float:
        return sum(
            float(
                fasttext_kernel.probabilities(
                    model(),
                    data,
                    offsets[row : row + 1],
                    offsets[row + 1 : row + 2],
                    np.array([names.index(language)]),
                )[0]
            )
            for language in group
        )

    assert scores[0] == pytest.approx(max(0.25, group_p(0, langid_neighbours.SERBO_CROATIAN)))
    assert scores[1] == pytest.approx(max(0.25, group_p(1, langid_neighbours.MALAY_INDONESIAN)))
    assert scores[0] > 0.25 and scores[1] > 0.25
    assert scores[2] == 0.25  # not moved: its score stays


def test_refine_leaves_a_group_whose_language_the_labels_lack() -> None:
    names = ("hr", "sr", "ms", "id")  # no "bs" (nor "hbs"): the Serbo-Croatian group is off
    assert refined([BOSNIAN, MALAY], ["hr", "id"], names)[0] == ["hr", "ms"]


def test_refine_reads_only_the_prefix_it_is_given() -> None:
    names = lid176_names()
    text = "Ovo je rečenica. " + BOSNIAN
    data, offsets, _ = text_buffers(pa.array([text], pa.large_string()))
    labels, _ = langid_neighbours.refine(
        model(), names, data, offsets[:1], offsets[:1] + 17, np.array([names.index("hr")]),
        np.zeros(1),
    )  # fmt: skip
    assert names[labels[0]] == "hr"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([CROATIAN, BOSNIAN, SERBIAN, MALAY, "ž", "\x00", "😀", " "])))
def test_refine_never_fails_on_mixed_text(parts: list[str]) -> None:
    text = "".join(parts)
    for label in ("hr", "bs", "sr", "hbs", "ms", "id"):
        labels, scores = refined([text], [label])
        assert labels[0] in ("hr", "bs", "sr", "hbs", "ms", "id")
        assert 0.25 <= scores[0] <= 1.0


def documents(lang: str) -> list[str]:
    """Leipzig's odd-numbered sentences packed as bench/multilingual packs them."""
    lines = (LEIPZIG / lang / "sentences.txt").read_text("utf-8").split("\n")[1::2]
    return pack_sentences(lines, key=f"0:{lang}")


@pytest.mark.parametrize(("lang", "at_least"), [("bs", 0.7), ("hr", 0.95), ("id", 1.0)])
def test_leipzig_documents_keep_or_gain_their_language(lang: str, at_least: float) -> None:
    """lid.176 and CLD2 alone call 14 of these 38 Bosnian documents Bosnian (the rest Croatian,
    Serbo-Croatian or Serbian); with the words, 29. Croatian and Indonesian lose none."""
    docs = documents(lang)
    got = [row["language"] for row in identify_language(pa.array(docs)).to_pylist()]
    assert sum(label == lang for label in got) >= at_least * len(docs)
