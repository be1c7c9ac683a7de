from __future__ import annotations

import functools
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf import cld2, fasttext_kernel, identify_language, langid_combined, text_script
from lakemix.udf.langid import _LABELS, PREFIX_CHARS, model_path, register

CORPORA = Path(
    os.environ.get("LAKEMIX_CORPORA", Path(__file__).resolve().parents[4].parent / "shared/corpora")
)
LEIPZIG = CORPORA / "langid" / "lingua_leipzig"
# Language -> script of its Leipzig sentences.
SCRIPTS = {
    "en": "Latn",
    "de": "Latn",
    "fr": "Latn",
    "pl": "Latn",
    "vi": "Latn",
    "ru": "Cyrl",
    "uk": "Cyrl",
    "el": "Grek",
    "ar": "Arab",
    "fa": "Arab",
    "he": "Hebr",
    "hi": "Deva",
    "bn": "Beng",
    "ta": "Taml",
    "th": "Thai",
    "ka": "Geor",
    "hy": "Armn",
    "zh": "Hani",
    "ja": "Jpan",
    "ko": "Hang",
}
GERMAN = "Die Stadt liegt am Ufer des Flusses und hat eine schöne Altstadt mit vielen Kirchen."


def sentences(lang: str, n: int = 20) -> list[str]:
    lines = (LEIPZIG / lang / "sentences.txt").read_text("utf-8").split("\n")
    return [line for line in lines if line.strip()][:n]


def rows(texts: list[str | None]) -> list[dict[str, object]]:
    return identify_language(pa.array(texts, pa.string())).to_pylist()


@pytest.mark.parametrize("lang", sorted(SCRIPTS))
def test_leipzig_sentences_get_their_language_and_script(lang: str) -> None:
    got = rows(list(sentences(lang)))
    assert sum(r["language"] == lang for r in got) >= 18, got
    # A few web sentences have more Latin letters ("Share to Twitter ...") than native ones.
    assert sum(r["script"] == SCRIPTS[lang] for r in got) >= 15
    assert all(0.0 < r["language_score"] <= 1.0 for r in got)  # type: ignore[operator]


def test_result_is_a_struct_of_the_input_length() -> None:
    out = identify_language(pa.array(["Hello there, how are you?", None]))
    assert out.type == pa.struct(
        [("language", pa.string()), ("script", pa.string()), ("language_score", pa.float64())]
    )
    assert len(out) == 2 and out.null_count == 0


@pytest.mark.parametrize(
    "text",
    [None, "", " ", "\n\n\t", "12345 !?", "😀🎉👍", "\x00\x01\x07\x1b\x7f\x85", "\u200b\u2028"],
    ids=["null", "empty", "space", "blank", "digits", "emoji", "control", "invisible"],
)
def test_text_without_letters_is_undetermined(text: str | None) -> None:
    assert rows([text]) == [{"language": "und", "script": "Zyyy", "language_score": 0.0}]


@pytest.mark.parametrize(
    ("text", "language", "script"),
    [
        ("שלום לכולם, היום אנחנו הולכים לים עם כל המשפחה.", "he", "Hebr"),
        ("مرحبا بكم في موقعنا، نتمنى لكم وقتا ممتعا مع عائلتكم.", "ar", "Arab"),
        ("Startseite\nKontakt\n" + GERMAN + "\n" + GERMAN, "de", "Latn"),
        ("\x00" + GERMAN + "\x1b\x7f", "de", "Latn"),
        ("😀 " + GERMAN + " 🎉🎉🎉", "de", "Latn"),
        ("Привет " + GERMAN, "de", "Latn"),
        ("这是一个中文句子，我们今天去公园散步。", "zh", "Hani"),  # noqa: RUF001
        ("今日は天気がいいので、公園に散歩に行きました。", "ja", "Jpan"),
        ("यह एक हिंदी वाक्य है जो परीक्षण के लिए लिखा गया है।", "hi", "Deva"),
    ],
    ids=["rtl-hebrew", "rtl-arabic", "newlines", "control", "emoji", "mixed", "zh", "ja", "hi"],
)
def test_hard_inputs(text: str, language: str, script: str) -> None:
    (row,) = rows([text])
    assert (row["language"], row["script"]) == (language, script)


def test_long_single_line_is_classified_by_its_prefix() -> None:
    text = (GERMAN + " ") * (5_000_000 // len(GERMAN))
    assert len(text) > 4_900_000 and "\n" not in text
    (row,) = rows([text])
    assert row == rows([text[:PREFIX_CHARS]])[0]
    assert row["language"] == "de"


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Hello world", "Latn"),
        ("Ｆｕｌｌｗｉｄｔｈ", "Latn"),  # noqa: RUF001
        ("Привет, мир", "Cyrl"),
        ("مرحبا بالعالم", "Arab"),
        ("中文简体字", "Hani"),
        ("ひらがなとカタカナと漢字", "Jpan"),
        ("नमस्ते दुनिया", "Deva"),
        ("한국어", "Hang"),
        ("Καλημέρα", "Grek"),
        ("Hello Привет мир друзья", "Cyrl"),
        ("42 + 7 = 49 ✓", "Zyyy"),
    ],
)
def test_script_is_the_script_of_most_letters(text: str, script: str) -> None:
    assert text_script(text) == script


def test_inputs_of_every_text_type() -> None:
    texts = [GERMAN, None]
    expected = rows(texts)
    for kind in (pa.large_string(), pa.string_view()):
        assert identify_language(pa.array(texts, kind)).to_pylist() == expected
    chunked = pa.chunked_array([pa.array([GERMAN]), pa.array([None], pa.string())])
    assert identify_language(chunked).to_pylist() == expected
    binary = pa.array([GERMAN.encode() + b"\xff\xfe", None], pa.binary())
    assert identify_language(binary).to_pylist()[0]["language"] == "de"
    assert identify_language(pa.array([None, None])).to_pylist() == [expected[1]] * 2
    assert len(identify_language(pa.array([], pa.string()))) == 0
    with pytest.raises(TypeError, match="strings or bytes, got int64"):
        identify_language(pa.array([1, 2]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=300)), max_size=20))
def test_any_text_gives_a_well_formed_row(texts: list[str | None]) -> None:
    for text, row in zip(texts, rows(texts), strict=True):
        has_letter = any(unicodedata.category(c)[0] == "L" for c in (text or "")[:PREFIX_CHARS])
        assert (row["language"] != "und") == has_letter
        assert (row["script"] != "Zyyy") == has_letter
        assert str(row["language"]).islower() and 2 <= len(str(row["language"])) <= 3
        assert len(str(row["script"])) == 4 and str(row["script"]).istitle()
        assert 0.0 <= row["language_score"] <= 1.0  # type: ignore[operator]


def test_import_loads_no_model() -> None:
    modules = ("lakemix.udf.fasttext_kernel", "lakemix.udf.cld2", "pycld2")
    code = f"import sys, lakemix.udf; print([m for m in {modules!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert done.stdout.strip() == "[]"


def test_duckdb_udf_over_thousands_of_rows() -> None:
    texts = [*sentences("en", 1000), *sentences("ru", 1000), *sentences("de", 1000)]
    conn = duckdb.connect()
    register(conn)
    conn.execute("create table docs as select unnest($1) as text", [[*texts, None]])
    counts = dict(
        conn.sql(
            "select lakemix_language(text).language as language, count(*) from docs group by 1"
        ).fetchall()
    )
    assert counts["und"] == 1
    assert min(counts["en"], counts["ru"], counts["de"]) >= 980
    assert sum(counts.values()) == 3001
    row = conn.sql("select lakemix_language(null), lakemix_language('Привет, мир')").fetchone()
    assert row is not None
    assert row[0] == {"language": "und", "script": "Zyyy", "language_score": 0.0}
    assert row[1]["language"] == "ru" and row[1]["script"] == "Cyrl"
    kind = conn.sql("select lakemix_language(text) from docs limit 1").types[0]
    assert str(kind) == 'STRUCT("language" VARCHAR, script VARCHAR, language_score DOUBLE)'


def test_no_letter_lies_beyond_the_script_table() -> None:
    from lakemix.udf.scripts import LAST_LETTER as _LAST_LETTER

    beyond = (chr(cp) for cp in range(_LAST_LETTER + 1, 0x110000))
    assert not any(unicodedata.category(c)[0] == "L" for c in beyond)


# --- lid.176 with CLD2 (langid_combined) ------------------------------------------------------


@functools.cache
def names() -> tuple[str, ...]:
    """lid.176's labels as identify_language gives them."""
    return tuple(_LABELS.get(label, label) for label in fasttext_kernel.load(model_path()).labels)


def combined(
    monkeypatch: pytest.MonkeyPatch,
    lid: str,
    p: float,
    code: str,
    *,
    reliable: bool = True,
    percent: int = 99,
    score: float = 900.0,
    runner_up: float = 0.0,
) -> tuple[str, float]:
    """langid_combined's answer when lid.176 says ``lid`` with ``p`` and CLD2 says ``code``;
    ``runner_up`` is lid.176's probability of CLD2's label."""
    asked: list[int] = []

    def detect(data: object, starts: np.ndarray, ends: object, labels: object) -> cld2.Detections:
        n = len(starts)
        asked.append(n)
        return cld2.Detections(
            labels=np.full(n, cld2.label_index(names())[code], np.int64),
            reliable=np.full(n, reliable),
            percent=np.full(n, percent, np.int64),
            score=np.full(n, score, np.float64),
        )

    monkeypatch.setattr(cld2, "detect", detect)
    monkeypatch.setattr(
        fasttext_kernel, "probabilities", lambda *args: np.array([runner_up], np.float32)
    )
    data, one = np.frombuffer(b"text", np.uint8), np.array([0])
    labels, scores = langid_combined.combine(
        fasttext_kernel.load(model_path()),
        names(),
        data,
        one,
        one + 4,
        np.array([names().index(lid)]),
        np.array([p]),
    )
    assert asked == [int(p < langid_combined.CONSULT_BELOW)]
    return names()[labels[0]], float(scores[0])


@pytest.mark.parametrize(
    ("lid", "p", "code", "options", "expected"),
    [
        ("de", 0.95, "en", {}, ("de", 0.95)),  # lid.176 sure: CLD2 not asked
        ("de", 0.4, "de", {}, ("de", 0.9)),  # agreement
        ("he", 0.4, "iw", {}, ("he", 0.9)),  # agreement through CLD2's older code
        ("de", 0.4, "de", {"reliable": False}, ("de", 0.4)),
        ("nl", 0.4, "af", {}, ("af", 0.75)),  # lid.176 unsure, CLD2 sure
        ("nl", 0.7, "af", {"runner_up": 0.2}, ("af", 0.75)),  # a neighbour lid.176 weighs
        ("nl", 0.7, "af", {"runner_up": 0.01}, ("nl", 0.7)),  # one it does not
        ("nl", 0.4, "af", {"reliable": False}, ("nl", 0.4)),
        ("nl", 0.4, "af", {"percent": 60}, ("nl", 0.4)),  # CLD2 sees mixed text
        ("nl", 0.4, "en", {"score": 40.0}, ("nl", 0.4)),  # CLD2's fallback on what it cannot place
        ("arz", 0.4, "ar", {}, ("arz", 0.4)),  # a label CLD2 could never give
        ("hbs", 0.4, "hr", {}, ("hr", 0.75)),  # Serbo-Croatian, made precise
        ("en", 0.4, "zu", {}, ("en", 0.0)),  # a language lid.176 has no label for
        ("en", 0.4, "zu", {"reliable": False}, ("en", 0.4)),
        ("en", 0.4, "un", {}, ("en", 0.4)),
    ],
    ids=[
        "sure",
        "agree",
        "agree-renamed",
        "agree-unreliable",
        "cld2-wins",
        "neighbour",
        "not-a-neighbour",
        "unreliable",
        "mixed",
        "fallback",
        "cld2-cannot",
        "hbs-refined",
        "foreign",
        "foreign-unreliable",
        "unknown",
    ],
)
def test_combination_rule(
    monkeypatch: pytest.MonkeyPatch,
    lid: str,
    p: float,
    code: str,
    options: dict[str, object],
    expected: tuple[str, float],
) -> None:
    assert combined(monkeypatch, lid, p, code, **options) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("lang", "alone"), [("so", 1), ("yo", 0), ("af", 15), ("nn", 11)])
def test_cld2_gives_languages_lid176_confuses(lang: str, alone: int) -> None:
    texts = sentences(lang)
    lid176 = identify_language(pa.array(texts), consult_cld2=False).to_pylist()
    assert sum(r["language"] == lang for r in lid176) == alone
    got = rows(list(texts))
    assert sum(r["language"] == lang and r["language_score"] >= 0.65 for r in got) >= 16  # type: ignore[operator]


@pytest.mark.parametrize("lang", ["zu", "xh"])
def test_languages_lid176_lacks_keep_its_labels_at_score_zero(lang: str) -> None:
    got = rows(list(sentences(lang)))
    assert {str(r["language"]) for r in got} <= set(names())  # never a CLD2-only code
    assert sum(r["language_score"] == 0.0 for r in got) >= 17


def test_text_lid176_is_sure_of_keeps_its_score() -> None:
    texts = [GERMAN, "Привет, как дела? Сегодня хорошая погода, пойдём гулять в парк."]
    assert rows(list(texts)) == identify_language(pa.array(texts), consult_cld2=False).to_pylist()


PIECES = [
    GERMAN,
    "Привет, мир",
    "مرحبا بالعالم",
    "中文简体字",
    "नमस्ते दुनिया",
    "Maalinta berri waxaan aadi doonaa",
    "\x00\x07\x85\ufdd0\ufffe",
    "😀🎉",
    "<b>&amp;</b>",
    "12345",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join),
            st.text(max_size=300),
            st.none(),
        ),
        max_size=20,
    )
)
def test_mixed_scripts_and_random_text_give_lid176_labels(texts: list[str | None]) -> None:
    got = rows(texts)
    for text, row in zip(texts, got, strict=True):
        has_letter = any(unicodedata.category(c)[0] == "L" for c in (text or "")[:PREFIX_CHARS])
        assert row["language"] in names() if has_letter else row["language"] == "und"
        assert 0.0 <= row["language_score"] <= 1.0  # type: ignore[operator]
    assert got == [rows([text])[0] for text in texts]  # a text's row does not depend on its batch
