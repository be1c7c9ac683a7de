# ruff: noqa: RUF001 -- Chinese punctuation is the point
from __future__ import annotations

import base64
import functools
import io
import logging
import random
from typing import Any

import numpy as np
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf.quality import chinese, split_words
from lakemix.udf.quality.chinese import word_spans
from tests.conftest import CORPORA, WEB

HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能"
ODD = "{}[]()（）「」abcXYZ 123 12.5% +#&._-%\r\n\t Ａ。，！？·"


def starts(text: str) -> list[int]:
    return [s for s, e in word_spans(text) if not text[s:e].isspace()]


@functools.cache
def _tokenizer() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba.Tokenizer()


def jieba_starts(text: str) -> list[int]:
    """Where jieba's own words (not whitespace) start."""
    out, position = [], 0
    for word in _tokenizer().cut(text, cut_all=False, HMM=True):
        if not word.isspace():
            out.append(position)
        position += len(word)
    return out


def test_words_equal_jiebas_on_leipzig_and_web_pages() -> None:
    sentences = (CORPORA / "langid" / "lingua_leipzig" / "zh" / "sentences.txt").read_text()
    texts = sentences.splitlines()[:400]
    [pages] = sorted((WEB / "hplt_warc2text").glob("*_sample_zh.tsv.zst"))[:1]
    with pages.open("rb") as raw:
        lines = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), "utf-8")
        for _, line in zip(range(60), lines, strict=False):
            texts.append(base64.b64decode(line.split("\t", 1)[1]).decode("utf-8", "replace"))
    for text in texts:
        assert starts(text) == jieba_starts(text), text[:80]


def test_the_signals_words_are_jiebas_words_as_they_are() -> None:
    """As spaCy's Chinese tokenizer (datatrove's for zh) gives them: no affix rules after jieba,
    so jieba's ``3.5%`` and ``iPhone6.`` stay whole, and FineWeb-2's cmn_Hani thresholds apply."""
    sentences = (CORPORA / "langid" / "lingua_leipzig" / "zh" / "sentences.txt").read_text()
    texts = [*sentences.splitlines()[:300], "他说3.5%的人喜欢iPhone6.今天天气很好（真的）！"]
    for text in texts:
        jieba_words = [w for w in _tokenizer().cut(text, cut_all=False, HMM=True) if w.strip()]
        assert split_words(text, "zh") == jieba_words, text[:80]
    assert "3.5%" in split_words(texts[-1], "zh")


def test_rare_characters_go_through_the_hmm() -> None:
    rng = random.Random(7)
    for _ in range(300):
        text = "".join(rng.choice(HAN + ODD) for _ in range(rng.randint(1, 120)))
        assert starts(text) == jieba_starts(text), text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(HAN + ODD + "é😀\u0301"), max_size=60))
def test_any_text(text: str) -> None:
    assert starts(text) == jieba_starts(text)
    spans = word_spans(text)
    assert "".join(text[s:e] for s, e in spans) == text  # every character in one word


def test_the_cached_dictionary_is_the_one_jieba_builds() -> None:
    """The arrays kept beside the kernels' cache load back equal to a fresh build."""
    cached = chinese.model()
    assert chinese._cached_model_path() is not None
    assert chinese._cached_model_path().is_file()  # type: ignore[union-attr]
    built = chinese._build_model()
    assert np.array_equal(cached.stamps, built.stamps)
    used = built.stamps == 1  # a slot without a key holds whatever memory held
    assert np.array_equal(cached.keys[used], built.keys[used])
    for name in chinese.Model._fields[2:]:
        assert np.array_equal(getattr(cached, name), getattr(built, name)), name
