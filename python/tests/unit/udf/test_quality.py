# ruff: noqa: RUF001 -- the texts are meant to hold look-alike characters
from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf.quality import SIGNALS, affixes, indic, quality_signals, register, split_words

COUNTS = {name for name, kind in SIGNALS if kind == "int64"}
# Can exceed 1: overlapping occurrences of the top n-gram are all counted (as in datatrove).
UNBOUNDED = {"mean_word_length", "newline_word_ratio"} | {
    f"top_{n}gram_char_fraction" for n in (2, 3, 4)
}


def signals(text: str | None) -> dict[str, float]:
    [row] = quality_signals(pa.array([text], pa.string())).to_pylist()
    return row


# spaCy 3.8's blank English tokenizer (what datatrove uses) on the same texts, words joined by
# spaces; bench/parity_quality.py compares many more.
SPACY = [
    (
        "Hello world. This is a test, isn't it? Mr. Smith went to Washington.",
        "Hello world . This is a test , is n't it ? Mr. Smith went to Washington .",
    ),
    (
        "Visit https://www.example.com/a-b?x=1, or my-site.org. Email me@x.com!",
        "Visit https://www.example.com/a-b?x=1 , or my-site.org . Email me@x.com !",
    ),
    (
        "well-known e.g. 10km $50 U.S.A. (see [1]) ...and so on… :) 3.5%",
        "well - known e.g. 10 km $ 50 U.S.A. ( see [ 1 ] ) ... and so on … :) 3.5 %",
    ),
    (
        "It's John's dog; they're here. Don't!",
        "It 's John 's dog ; they 're here . Do n't !",
    ),
    ("(see below): x", "( see below ): x"),
    ("a ) : b", "a ) : b"),
    ("ok'' yes St.Mary's 50 a.C.", "ok '' yes St. Mary 's 50 a. C."),
    ("i im. M. Nenckeigo", "i i m. M. Nenckeigo"),
    ("' ''abc", "' ' ' abc"),
    (":)))):)))))", ":))) ) :) ) ) ) )"),
    ("10km/h 5$ US$50 C$5 °C. 25°C.", "10 km/h 5 $ US$ 50 C$ 5 ° C . 25 ° C ."),
    (
        "e-mail self-esteem 1-2 a--b a---b x——y 3*4 2^8",
        "e - mail self - esteem 1 - 2 a -- b a --- b x —— y 3 * 4 2 ^ 8",
    ),
    (
        "http://a.b/c. www.x.org/path?q=1#f user:pw@host.com:8080/x",
        "http://a.b / c. www.x.org/path?q=1#f user:pw@host.com:8080/x",
    ),
    (
        "3.5. ABC. Inc., etc.) «Bonjour» don’t CAN'T gonna y'all",
        "3.5 . ABC . Inc. , etc . ) « Bonjour » do n’t CAN'T gon na y' all",
    ),
    ("*xx@yy.zz:)\t)`“[<~α<~😀", "* xx@yy.zz :) ) ` “ [ < ~α<~ 😀"),
    ("a.m.tdh?q=ա»''llg°C.", "a.m.tdh?q=ա»''llg°C ."),
    ("'\t\xa0''i§%0α+>°C'mn't².p", "' '' i§%0α+> ° C'mn't².p"),
]


@pytest.mark.parametrize(("text", "words"), SPACY)
def test_words_are_split_as_spacy_splits_them(text: str, words: str) -> None:
    assert split_words(text) == words.split(" ")


def test_gopher_quality_signals() -> None:
    row = signals("Hello, world!")  # tokens: Hello , world !
    assert row["word_count"] == 2
    assert row["mean_word_length"] == 5.0
    assert row["alpha_word_fraction"] == 0.5
    assert signals("#tag #two words")["hash_word_ratio"] == 2 / 5  # # tag # two words
    assert signals("Wait... what… ok")["ellipsis_word_ratio"] == 2 / 5
    assert signals("- a\n• b\nc\n  - d")["bullet_line_fraction"] == 0.75
    assert signals("a...\nb…  \nc")["ellipsis_line_fraction"] == 2 / 3


def test_repetition_signals_count_repeats_after_the_first_occurrence() -> None:
    row = signals("a\nb\nc\na\nb\nc")
    assert row["duplicate_line_fraction"] == 0.5
    assert row["duplicate_line_char_fraction"] == 3 / 11
    assert signals("same\nsame\nsame\nx1\nx2\nx3")["duplicate_line_fraction"] == 2 / 6
    row = signals("p1\n\np2\n\n\np1")
    assert row["duplicate_paragraph_fraction"] == 1 / 3
    assert row["duplicate_paragraph_char_fraction"] == 2 / 11


def test_top_ngram_is_the_most_frequent_first_seen_one_times_its_count() -> None:
    text = "the cat the cat the dog"
    row = signals(text)
    assert row["top_2gram_char_fraction"] == len("the cat") * 2 / len(text)
    assert row["top_3gram_char_fraction"] == len("the cat the") * 2 / len(text)
    # every 4-gram occurs once: the first one counts
    assert row["top_4gram_char_fraction"] == len("the cat the cat") / len(text)


def test_duplicated_ngrams_are_scanned_greedily() -> None:
    text = "a b c d e a b c d e"
    row = signals(text)
    assert row["duplicated_5gram_char_fraction"] == 5 / len(text)
    assert row["duplicated_6gram_char_fraction"] == 0.0
    # words are joined without spaces: "ab c" and "a bc" are the same 2 characters + 1
    assert signals("ab c d e f g ab c d e f g")["duplicated_6gram_char_fraction"] > 0


def test_c4_signals() -> None:
    text = (
        "One two three. Four five six. Seven eight nine!\n"
        "short line\n"
        "This line mentions javascript { here }. Yes it does.\n"
        "Read our cookie policy now. Please do.\n"
        "This is cited.[1] And more here.[citation needed]\n"
        "Mr. Smith went home. He slept."
    )
    row = signals(text)
    assert (row["c4_has_lorem_ipsum"], row["c4_has_curly_bracket"]) == (0, 0)
    assert row["c4_sentence_count"] == 3 + 2 + 2
    assert signals("Lorem Ipsum dolor sit amet.")["c4_has_lorem_ipsum"] == 1
    assert signals("function f() { return 1; }")["c4_has_curly_bracket"] == 1
    assert signals("a b {")["c4_has_curly_bracket"] == 1
    assert signals("a {")["c4_has_curly_bracket"] == 0  # fewer than 3 words: line dropped
    assert signals("x" * 1001 + " b c {")["c4_has_curly_bracket"] == 0  # word over 1,000


def test_fineweb_signals() -> None:
    text = "Hello world.\nshort\n\nAnother line that is longer than thirty chars!"
    row = signals(text)
    assert row["line_punct_fraction"] == 2 / 3
    assert row["short_line_fraction"] == 2 / 3
    assert row["newline_word_ratio"] == 3 / 13
    assert signals("a line\na line\nb")["fineweb_duplicate_line_char_ratio"] == 6 / 13


def test_null_gives_null_and_empty_gives_zeros() -> None:
    rows = quality_signals(pa.array([None, "", "   \n "])).to_pylist()
    assert rows[0] is None
    for row in rows[1:]:
        assert row.pop("stop_word_count") is None  # no language, no stop words
        assert all(value == 0 for value in row.values())


@pytest.mark.parametrize(
    "text",
    [
        "😀😀😀 🎉",
        "\x00\x01\x02 abc \x7f\x1b[0m \u200b\ufeff",
        "مرحبا بالعالم. שלום עולם! \u202eevil\u202c",
        "Mixed 中文テキスト и кириллица and हिन्दी। ελληνικά.",
        "\r\n\r\n\x0b\x0c\x1c\u2028\u2029\x85",
        "[" * 50 + "]" * 50 + "..." * 100,
    ],
)
def test_odd_text_does_not_crash(text: str) -> None:
    row = signals(text)
    measured = {name: value for name, value in row.items() if value is not None}
    assert measured.keys() >= {"word_count", "mean_word_length", "alpha_word_fraction"}
    assert all(math.isfinite(value) and value >= 0 for value in measured.values()), measured
    words = split_words(text)
    assert row["word_count"] == int(row["word_count"]) <= len(words)  # punctuation is no word
    position = 0
    for word in words:  # non-empty pieces of the text, in order, without whitespace
        assert word and not any(ch.isspace() for ch in word), word
        position = text.index(word, position) + len(word)


def test_a_5_mb_single_line() -> None:
    text = "word " * 1_000_000
    row = signals(text)
    assert row["word_count"] == 1_000_000
    assert row["duplicated_5gram_char_fraction"] == pytest.approx(0.8, abs=1e-5)  # no spaces
    assert signals("x" * 5_000_000)["mean_word_length"] == 5_000_000


def test_invalid_utf8_in_an_unvalidated_array_does_not_crash() -> None:
    data = pa.py_buffer(b"ok \xff\xfe \xe2\x82 end \xf0\x9f")
    offsets = pa.py_buffer(np.array([0, 15], dtype=np.int32).tobytes())
    array = pa.Array.from_buffers(pa.string(), 1, [None, offsets, data])
    [row] = quality_signals(array).to_pylist()
    assert row["word_count"] >= 2


def test_slices_chunks_and_string_types() -> None:
    texts = ["alpha beta", None, "gamma delta epsilon", "", "zeta"]
    expected = quality_signals(pa.array(texts)).to_pylist()
    assert quality_signals(pa.array(texts, pa.large_string())).to_pylist() == expected
    assert quality_signals(pa.array(texts, pa.string_view())).to_pylist() == expected
    assert quality_signals(pa.array(["x", *texts])[1:]).to_pylist() == expected
    chunked = pa.chunked_array([pa.array(texts[:2]), pa.array(texts[2:])])
    assert quality_signals(chunked).to_pylist() == expected
    assert quality_signals(pa.array([None, None], pa.null())).to_pylist() == [None, None]
    assert len(quality_signals(pa.array([], pa.string()))) == 0
    with pytest.raises(TypeError, match="strings"):
        quality_signals(pa.array([1, 2]))


def test_struct_fields_and_types() -> None:
    result = quality_signals(pa.array(["a b c"]))
    assert [f.name for f in result.type] == [name for name, _ in SIGNALS]
    assert {f.name for f in result.type if f.type == pa.int64()} == COUNTS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text()), max_size=5))
def test_bounds_hold_and_rows_do_not_depend_on_the_batch(texts: list[str | None]) -> None:
    rows = quality_signals(pa.array(texts, pa.string())).to_pylist()
    for text, row in zip(texts, rows, strict=True):
        if text is None:
            assert row is None
            continue
        assert row == signals(text)  # alone or in a batch: the same values
        assert row.pop("stop_word_count") is None
        for name, value in row.items():
            assert value >= 0, name
            if name not in UNBOUNDED and name not in COUNTS:
                assert value <= 1, name
        assert row["c4_has_lorem_ipsum"] in (0, 1)
        assert row["c4_has_curly_bracket"] in (0, 1)
        assert row["word_count"] <= len(split_words(text))


def test_stop_word_count() -> None:
    texts = pa.array(["The cat and THE dog", "x", None, "Der Hund und die Katze", "the"])
    languages = pa.array(["en", "en", "en", "de", None])
    words = {"en": ["the", "and"]}
    counts = quality_signals(texts, languages, words).field("stop_word_count").to_pylist()
    assert counts == [3, 0, None, None, None]
    # one list per text, as the model passes the seed
    lists = pa.array([["the", "and"], ["and", "the"], None, None, ["the"]], pa.list_(pa.string()))
    by_text = quality_signals(texts, languages, lists).field("stop_word_count").to_pylist()
    assert by_text == [3, 0, None, None, None]  # no language: no list applies
    with pytest.raises(ValueError, match="differ in length"):
        quality_signals(texts, languages[:2], words)
    with pytest.raises(ValueError, match="different stop-word lists"):
        quality_signals(pa.array(["a", "b"]), pa.array(["en", "en"]), pa.array([["a"], ["b"]]))


# Leipzig-like sentences of the languages written without spaces between words.
SEGMENTED = {
    "zh": ("我们今天去北京。天气很好，我们很高兴。", ["我们", "今天", "去", "北京", "。"]),
    "ja": ("私は東京に住んでいます。毎日電車に乗ります。", ["私", "は", "東京", "に"]),
    "th": ("ภาษาไทยเป็นภาษาที่สวยงาม", ["ภาษาไทย", "เป็น", "ภาษา", "ที่", "สวยงาม"]),
    "ko": ("한국어는 아름다운 언어입니다.", ["한국어", "는", "아름답", "ㄴ"]),
    "bo": ("བཀྲ་ཤིས་བདེ་ལེགས། ང་བོད་པ་ཡིན།", ["བཀྲ་", "ཤིས་", "བདེ་", "ལེགས", "།"]),
    "km": ("ខ្ញុំស្រលាញ់ភាសាខ្មែរ។", ["ខ្ញុំ", "ស្រ", "លាញ់", "ភា", "សា", "ខ្មែរ", "។"]),
    "my": ("ကျွန်တော်မြန်မာစကားပြောတယ်။", ["ကျွန်", "တော်", "မြန်", "မာ", "စ", "ကား"]),
}


@pytest.mark.parametrize("language", sorted(SEGMENTED))
def test_languages_without_spaces_are_segmented(language: str) -> None:
    text, first_words = SEGMENTED[language]
    words = split_words(text, language)
    if language == "ko":  # Kiwi's morphemes: 아름다운 is 아름답 + ㄴ, spanning the same text
        assert words[:2] == first_words[:2]
    else:
        assert words[: len(first_words)] == first_words
    assert "".join(words) == "".join(text.split())  # every character in exactly one word
    alone = quality_signals(pa.array([text]))
    segmented = quality_signals(pa.array([text]), pa.array([language]))
    assert segmented.field("word_count")[0].as_py() > alone.field("word_count")[0].as_py()


def test_korean_words_apart_stay_apart() -> None:
    """Kiwi's multi-word dictionary would make one token of a name written as two words."""
    assert split_words("힐러리 스웽크 주연", "ko")[:2] == ["힐러리", "스웽크"]


def test_release_drops_the_segmenters_and_a_later_call_gives_the_same_signals() -> None:
    """What the post-hook of the cleaning model drops (lakemix.udf.release("quality")) is loaded
    again on the next call, with the same results."""
    from lakemix.udf import release
    from lakemix.udf.quality import segment

    texts = pa.array([text for text, _ in SEGMENTED.values()] + ["Le monde d'aujourd'hui."])
    languages = pa.array([*SEGMENTED, "fr"])
    before = quality_signals(texts, languages)
    assert segment.segmenter.cache_info().currsize > 0
    assert affixes.tokenizer.cache_info().currsize > 0
    release("quality")
    assert segment.segmenter.cache_info().currsize == 0
    assert affixes.tokenizer.cache_info().currsize == 0
    assert quality_signals(texts, languages).equals(before)
    with pytest.raises(ValueError, match="no UDF module 'pii' to release; known: quality"):
        release("pii")


def test_thai_words_are_pythainlps_as_datatrove_takes_them() -> None:
    """newmm-safe with keep_whitespace=False, each word stripped (datatrove's ThaiTokenizer):
    a dictionary word with a space inside stays one word."""
    from pythainlp.tokenize import word_tokenize

    text = "ผู้คนต่าง ๆ มาที่นี่ง่าย ๆ ทุกวัน\nภาษาไทยเป็นภาษาที่สวยงาม 2.5% นะ"
    expected = [w.strip() for w in word_tokenize(text, engine="newmm-safe") if w.strip()]
    assert "ต่าง ๆ" in expected
    assert split_words(text, "th") == expected


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("bo", "ང་བོད་པ་ཡིན། ང་ལྷ་སར་སྡོད་ཀྱི་ཡོད།"),  # the shad
        # the khan (Khmer is not segmented: a C4 line needs three space-separated phrases)
        ("km", "ខ្ញុំ ស្រលាញ់ ភាសាខ្មែរ។ យើង ទៅ សាលារៀន។"),
        ("my", "ကျွန်တော် မြန်မာ စကား ပြောတယ်။ ဒီနေ့ ရာသီဥတု ကောင်းတယ်။"),
    ],
)
def test_sentences_end_at_their_scripts_own_punctuation(language: str, sentence: str) -> None:
    """Five two-sentence lines: ten C4 sentences, every line ends with a sentence end."""
    text = "\n".join([sentence] * 5)
    [row] = quality_signals(pa.array([text]), pa.array([language])).to_pylist()
    assert row["c4_sentence_count"] == 10
    assert row["line_punct_fraction"] == 1.0


def test_a_chinese_document_counts_its_own_stop_words_and_sentences() -> None:
    text = "\n".join(["我们今天去北京。天气很好，我们很高兴。"] * 3)
    [row] = quality_signals(pa.array([text]), pa.array(["zh"]), {"zh": ["我们", "很"]}).to_pylist()
    assert row["stop_word_count"] == 3 * 4
    assert row["c4_sentence_count"] == 3 * 2  # a line's words are jieba's, not whitespace runs
    assert 1 <= row["mean_word_length"] <= 2


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                st.none(),
                st.text(
                    alphabet=st.sampled_from("我们北京ไทยภาษา한국어 ་།。a.\n[1]{ខ្មែរ់។မြန်္်။၁'’-:)")
                ),
                st.text(),
            ),
            st.sampled_from(
                ["zh", "ja", "th", "ko", "bo", "km", "my", "en", "fr", "de", "fa", None]
            ),
        ),
        max_size=4,
    )
)
def test_mixed_scripts_in_segmented_languages_do_not_crash(
    rows: list[tuple[str | None, str | None]],
) -> None:
    texts = pa.array([t for t, _ in rows], pa.string())
    languages = pa.array([lang for _, lang in rows], pa.string())
    result = quality_signals(texts, languages).to_pylist()
    for (text, language), row in zip(rows, result, strict=True):
        if text is None:
            assert row is None
            continue
        [alone] = quality_signals(pa.array([text]), pa.array([language], pa.string())).to_pylist()
        assert row == alone
        assert row["word_count"] <= len(split_words(text, language))


def test_duckdb_functions() -> None:
    conn = duckdb.connect()
    register(conn)
    rows = conn.execute(
        """
        with docs as (
            select
                i,
                case when i % 100 = 0 then null
                else repeat('The cat sat on the mat. ', 1 + i % 7) || i end as text
            from range(3000) t(i)
        )
        select i, text, lakemix_quality_signals(text, 'en', ['the', 'on']) as s
        from docs
        order by i
        """
    ).fetchall()
    assert len(rows) == 3000
    for i, text, s in rows[:200]:
        if text is None:
            assert s is None
        else:
            assert {**s, "stop_word_count": None} == signals(text)
            assert s["stop_word_count"] == 3 * (1 + i % 7)
    [(kind,)] = conn.execute("select typeof(lakemix_quality_signals('x', 'en', null))").fetchall()
    assert kind.startswith("STRUCT(stop_word_count BIGINT, word_count BIGINT")
    [(row,)] = conn.execute("select lakemix_quality_signals('我们去北京', 'zh', null)").fetchall()
    assert row["word_count"] == 3 and row["stop_word_count"] is None


def test_only_english_is_split_with_englishs_exceptions() -> None:
    text = "Im Jahr 2020 don't, sagte Mr. Smith :)"
    base = ["Im", "Jahr", "2020", "don't", ",", "sagte", "Mr", ".", "Smith", ":)"]
    assert split_words(text, "is") == base  # the emoticon is an exception of every language
    german = [*base[:6], "Mr.", *base[8:]]  # spaCy's German has Mr. among its own
    assert split_words(text, "de") == german
    english = ["I", "m", "Jahr", "2020", "do", "n't", ",", "sagte", "Mr.", "Smith", ":)"]
    assert split_words(text, "en") == english
    assert split_words(text) == english  # no language: as English (datatrove's default)


def test_a_hyphen_after_a_digit_splits_only_in_english() -> None:
    """English's infixes split ``30-an`` (spaCy's ``(?<=[{a}0-9])-``); the base rules of every
    other language split a hyphen only between letters (Azerbaijani ``1979-cu``, Esperanto)."""
    azerbaijani = ["En", "1979-cu", "il", "Koca", "-", "Cola"]
    assert split_words("En 1979-cu il Koca-Cola", "az") == azerbaijani
    assert split_words("the 30-an mark", "en") == ["the", "30", "-", "an", "mark"]
    assert split_words("la 30-an de majo", "eo") == ["la", "30-an", "de", "majo"]
    assert split_words("2-3 x", "eo") == ["2", "-", "3", "x"]  # between digits: every language


def test_each_language_is_split_with_its_own_spacy_exceptions() -> None:
    """spaCy's per-language exceptions (word_exceptions.json): Russian abbreviations, Indonesian
    reduplication; a language's exceptions do not leak into another's."""
    assert split_words("В 1999 г. было 5 тыс. человек", "ru") == [
        *("В", "1999", "г.", "было", "5", "тыс.", "человек"),
    ]
    assert split_words("В 1999 г. было", "kk") == ["В", "1999", "г", ".", "было"]
    assert split_words("orang-orang itu", "id") == ["orang-orang", "itu"]
    assert split_words("orang-orang itu", "tr") == ["orang", "-", "orang", "itu"]
    signals = quality_signals(pa.array(["orang-orang itu"] * 2), pa.array(["id", "tr"]))
    assert signals.field("word_count").to_pylist() == [2, 3]  # "-" is no word


# spacy.blank(language)(text) in spaCy 3.8, whitespace tokens dropped
SPACY_AFFIX_SPLITS = [
    (
        "fr",
        "L'emploi d'aujourd'hui, c'est-à-dire 3,5 %.",
        [
            "L'",
            "emploi",
            "d'",
            "aujourd'hui",
            ",",
            "c'",
            "est",
            "-",
            "à",
            "-",
            "dire",
            "3,5",
            "%",
            ".",
        ],
    ),
    (
        "de",
        "Baden-Württemberg am 2. Mai (1999): z.B. 5km.",
        ["Baden-Württemberg", "am", "2.", "Mai", "(", "1999", "):", "z.B.", "5", "km", "."],
    ),
    ("it", "dell'anno 1999 l'altro", ["dell'", "anno", "1999", "l'", "altro"]),
    ("ca", "l'home pel carrer dels nois", ["l'", "home", "p", "el", "carrer", "d", "els", "nois"]),
    ("da", "prøvebukser:) i dag", ["prøvebukser", ":)", "i", "dag"]),
    ("ro", "într-o zi, n-am", ["într-", "o", "zi", ",", "n-", "am"]),
    ("pl", "np. 5 zł.", ["np", ".", "5", "zł", "."]),
    ("sv", "Driveru kl. 5", ["Driver", "u", "kl.", "5"]),
    ("ru", "т.е. 5 км.", ["т.е.", "5", "км", "."]),
    # exceptions holding a space, applied where the run's text is the exception: "и т.д." is
    # no run (the matcher's pattern splits "т.д."), nor is "и  др." (two spaces) or ": )"
    ("ru", "и т.д. и др. и  др.", ["и", "т.д.", "и др.", "и", "др", "."]),
    ("es", "Los EE. UU. son", ["Los", "EE. UU.", "son"]),
    ("mk", "на пр. добро", ["на пр.", "добро"]),  # base affix rules, spaCy's algorithm
    ("da", "dag:) : )", ["dag", ":)", ":", ")"]),
    (  # French's token_match (compiled factored: one alternative per class pair)
        "fr",
        "anti-inflammatoire, porte-monnaie Anti-Âge binge-watchers",
        ["anti-inflammatoire", ",", "porte-monnaie", "Anti-Âge", "binge-watchers"],
    ),
]


@pytest.mark.parametrize(("language", "text", "words"), SPACY_AFFIX_SPLITS)
def test_languages_with_their_own_affix_rules_split_as_spacy_does(
    language: str, text: str, words: list[str]
) -> None:
    """French elisions, German ordinals and hyphenated names, Catalan contractions, Romanian
    clitics, exceptions a language drops (Polish "np." is no exception) and the special-case
    matcher (Danish ":)" after a word)."""
    assert split_words(text, language) == words


@pytest.mark.parametrize("language", ["fr", "de", "da", "ru", "nl"])
def test_the_exceptions_listed_whole_are_those_the_affix_rules_leave_whole(language: str) -> None:
    """``word_exceptions.json`` lists the exceptions spaCy's special-case matcher has no pattern
    for (so they are not run through the rules at start-up): the rules agree."""
    tokenizer = affixes.tokenizer(language)
    computed = affixes.AffixTokenizer(
        affixes.spacy_rules()["rules"][language]["affixes"],
        affixes.spacy_rules()["url_match"],
        affixes.spacy_rules()["classes"],
        tokenizer._specials,
    )
    assert computed._affixed == tokenizer._affixed
    assert len(tokenizer._affixed) > 100


def test_c4_counts_whitespace_words_in_a_language_split_by_its_affix_rules() -> None:
    """French lines keep their C4 words (whitespace runs: "l'emploi" is one), while the signals
    count spaCy's tokens ("l'" and "emploi")."""
    line = "l'emploi l'emploi d'abord."
    [fr] = quality_signals(pa.array([line]), pa.array(["fr"])).to_pylist()
    assert fr["word_count"] == 6  # l' emploi l' emploi d' abord (the period is no word)
    assert fr["c4_sentence_count"] == 1  # the line has 3 whitespace words: C4 keeps it
    [fr2] = quality_signals(pa.array(["l'emploi d'abord."]), pa.array(["fr"])).to_pylist()
    assert fr2["c4_sentence_count"] == 0  # 2 whitespace words: dropped (4 tokens would keep it)


def test_japanese_segments_from_many_threads_at_once() -> None:
    """DuckDB calls the UDF from several threads: SudachiPy's tokenizer refuses to be shared."""
    from concurrent.futures import ThreadPoolExecutor

    text = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。" * 100
    alone = quality_signals(pa.array([text]), pa.array(["ja"])).field("word_count")[0].as_py()
    with ThreadPoolExecutor(8) as pool:
        counts = pool.map(
            lambda _: quality_signals(pa.array([text]), pa.array(["ja"])).field("word_count"),
            range(64),
        )
        assert {c[0].as_py() for c in counts} == {alone}


# datatrove's IndicNLPTokenizer(language).word_tokenize(text) (Indic NLP Library 0.92)
INDIC_SPLITS = [
    (
        "hi",
        "यह 3.5 किलो है। नया\nशहर (दिल्ली), 12 / 5 को",
        ["यह", "3.5", "किलो", "है", "।", "नया\nशहर", "(", "दिल्ली", ")", ",", "12/5", "को"],
    ),
    (
        "ur",
        "یہ 3.5 کلو ہے۔ نیا\nشہر، (لاہور)",
        ["یہ", "3", ".", "5", "کلو", "ہے", "۔", "نیا\nشہر", "،", "(", "لاہور", ")"],
    ),
    ("ta", "அவர் 2010, 22:04 மணிக்கு வந்தார்.", ["அவர்", "2010,22:04", "மணிக்கு", "வந்தார்", "."]),
]


@pytest.mark.parametrize(("language", "text", "words"), INDIC_SPLITS)
def test_indic_languages_split_as_datatrove_splits_them(
    language: str, text: str, words: list[str]
) -> None:
    """Indic NLP's trivial tokenizer: punctuation apart, spaces only (a newline stays inside a
    word), digits joined again across ``,.:/`` (not in Urdu)."""
    assert indic.tokens(text, language) == words
    spans = indic.spans(text, language)
    assert [text[s:e].replace(" ", "") for s, e in spans] == words
    assert split_words(text, language) == [text[s:e] for s, e in spans]  # labels as languages


def test_a_number_indic_nlp_joins_across_spaces_counts_without_them() -> None:
    """``12 / 5`` is Indic NLP's word ``12/5`` (4 characters): the spaces the tokenizer removed
    are not part of the word's length, as in datatrove."""
    [row] = quality_signals(pa.array(["तारीख 12 / 5 को"]), pa.array(["hi"])).to_pylist()
    assert row["word_count"] == 3  # तारीख 12/5 को
    assert row["mean_word_length"] == (5 + 4 + 2) / 3


def test_base_exceptions_take_the_typographic_apostrophe_only_where_spacy_adds_it() -> None:
    """spaCy's update_exc adds U+2019 variants (Macedonian, English); a language that takes
    BASE_EXCEPTIONS as they are (Albanian, Esperanto as ``xx``) splits two of them."""
    quotes = "a \u2019\u2019 b"
    assert split_words(quotes, "sq") == ["a", "\u2019", "\u2019", "b"]
    assert split_words(quotes, "eo") == ["a", "\u2019", "\u2019", "b"]
    assert split_words(quotes, "mk") == ["a", "\u2019\u2019", "b"]
    assert split_words(quotes, "en") == ["a", "\u2019\u2019", "b"]
