"""The numba fastText kernel against fasttext-predict (the C++ original): same label, same
float32 probability, bit for bit, on real documents and sentences and on hostile text."""

from __future__ import annotations

import functools
import struct
from pathlib import Path

import fasttext
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf import fasttext_kernel
from lakemix.udf.langid import PREFIX_CHARS, model_path
from tests.conftest import CORPORA, load_bench


@pytest.fixture(scope="module")
def reference() -> fasttext.FastText._FastText:
    return original()


@functools.cache
def original() -> fasttext.FastText._FastText:
    """lid.176 in the C++ fastText (fasttext-predict), loaded once."""
    return fasttext.load_model(str(model_path()))


def kernel(texts: list[str]) -> list[tuple[str, float]]:
    """Labels and probabilities of one-line texts from the kernel."""
    encoded = [text.encode("utf-8") for text in texts]
    lengths = np.array([len(e) for e in encoded], np.int64)
    ends = np.cumsum(lengths)
    data = np.frombuffer(b"".join(encoded) or b"\0", np.uint8)
    model = fasttext_kernel.load(model_path())
    labels, scores = fasttext_kernel.predict(model, data, ends - lengths, ends)
    return [(model.labels[i], float(s)) for i, s in zip(labels, scores, strict=True)]


def buffers(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 bytes of one-line texts, one after the other, with their start and end bytes."""
    encoded = [text.encode("utf-8") for text in texts]
    lengths = np.array([len(e) for e in encoded], np.int64)
    ends = np.cumsum(lengths)
    return np.frombuffer(b"".join(encoded) or b"\0", np.uint8), ends - lengths, ends


def expected(reference: fasttext.FastText._FastText, texts: list[str]) -> list[tuple[str, float]]:
    out = []
    for text in texts:
        labels, scores = reference.predict(text, k=1)
        out.append((labels[0].removeprefix("__label__"), float(np.float32(scores[0]))))
    return out


def test_web_documents_and_sentences_match_bit_for_bit(
    reference: fasttext.FastText._FastText,
) -> None:
    corpus = load_bench("corpus")
    texts = [text for text, _, _ in corpus.web_documents(CORPORA)]
    for folder in sorted((CORPORA / "langid" / "lingua_leipzig").glob("*/")):
        lines = (folder / "sentences.txt").read_text("utf-8").split("\n")
        texts += [line for line in lines if line.strip()][:40]
    assert len(texts) > 4000
    prefixes = [text[:PREFIX_CHARS].replace("\n", " ") for text in texts]
    got, want = kernel(prefixes), expected(reference, prefixes)
    differ = [(t[:60], g, w) for t, g, w in zip(prefixes, got, want, strict=True) if g != w]
    assert not differ, f"{len(differ)} of {len(texts)} differ, e.g. {differ[:3]}"


HOSTILE = [
    "",
    " ",
    "</s>",
    "hello </s> world of words",
    "__label__en __label__xx Bonjour tout le monde",
    "__label__",
    "a\tb\rc\x0bd\x0ce\x00f",
    "x" * 5000,
    "Übergrößenträger" * 40,
    "🙂" * 30 + " ok",
    "\u0301\u0301 combining marks",
    "日本語のテキストです",
]


SENTENCES = [
    "Die Stadt liegt am Ufer des Flusses.",
    "Maalinta berri waxaan aadi doonaa magaalada.",
    "Dit is 'n baie mooi dag in die stad.",
    "Ово је реченица на српском језику.",  # noqa: RUF001
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_matches(reference: fasttext.FastText._FastText, text: str) -> None:
    assert kernel([text]) == expected(reference, [text])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=200).map(lambda t: t.replace("\n", " ")), min_size=1))
def test_any_text_matches(texts: list[str]) -> None:
    assert kernel(texts) == expected(original(), texts)


def test_probability_of_any_label_matches_bit_for_bit(
    reference: fasttext.FastText._FastText,
) -> None:
    texts = [text.replace("\n", " ") for text in (*HOSTILE, *SENTENCES)]
    data, starts, ends = buffers(texts)
    model = fasttext_kernel.load(model_path())
    labels, scores = fasttext_kernel.predict(model, data, starts, ends)
    top = fasttext_kernel.probabilities(model, data, starts, ends, labels)
    assert top.tobytes() == scores.tobytes()  # the predicted label: predict's score exactly
    compared = 0
    for k in range(len(model.labels)):  # every label, through fastText's k=-1 distribution
        got = fasttext_kernel.probabilities(model, data, starts, ends, np.full(len(texts), k))
        for text, value in zip(texts, got, strict=True):
            found, probs = reference.predict(text, k=-1, threshold=0.0)
            by_label = dict(zip(found, probs, strict=True))
            if (name := f"__label__{model.labels[k]}") in by_label:  # fastText drops < 1e-5
                assert value == np.float32(by_label[name]), (text, name)
                compared += 1
    assert compared > len(texts) * 5
    with pytest.raises(ValueError, match="one label index in"):
        fasttext_kernel.probabilities(model, data, starts, ends, np.full(len(texts), 176))


def test_other_models_are_refused_by_name(tmp_path: Path) -> None:
    data = bytearray(model_path().read_bytes())
    softmax = tmp_path / "softmax.ftz"
    struct.pack_into("<i", data, 8 + 6 * 4, 3)  # args.loss = softmax
    softmax.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="loss is 3; this predictor runs only 1"):
        fasttext_kernel.load(softmax)
    other = tmp_path / "other.bin"
    other.write_bytes(b"not a model at all")
    with pytest.raises(ValueError, match="not a fastText model"):
        fasttext_kernel.load(other)
