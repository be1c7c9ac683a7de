"""Khmer and Burmese syllables: the words of those languages' quality signals."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from lakemix.udf.quality.syllables import burmese_syllables, khmer_syllables


def words(text: str, khmer: bool) -> list[str]:
    spans = khmer_syllables(text) if khmer else burmese_syllables(text)
    return [text[s:e] for s, e in spans]


def test_khmer_final_consonants_stay_in_their_syllable() -> None:
    # ដាក់ (bantoc), ខ្មែរ and ណាស់ (a final after a vowel), ស្រ (a subscript under a consonant)
    assert words("ដាក់ខ្មែរណាស់ស្រុក", khmer=True) == ["ដាក់", "ខ្មែរ", "ណាស់", "ស្រុក"]
    # a consonant with its own vowel or nikahit starts a syllable: អា|កាស|ធា|តុ, អំ|ពី
    assert words("អាកាសធាតុ អំពី", khmer=True) == ["អា", "កាស", "ធា", "តុ", "អំ", "ពី"]


def test_digits_punctuation_and_other_scripts() -> None:
    assert words("ឆ្នាំ២០២៤។Phnom Penh", khmer=True) == ["ឆ្នាំ", "២០២៤", "។", "Phnom", "Penh"]
    assert words("၂၀၂၄ခုနှစ်။Yangon", khmer=False) == ["၂၀၂၄", "ခု", "နှစ်", "။", "Yangon"]


def test_burmese_stacked_and_killed_consonants_do_not_start_a_syllable() -> None:
    # မ္ဘာ: ဘ stacked under မ (virama); န် in ကျွန်: killed by the asat; ဥ an independent vowel
    assert words("ကမ္ဘာကျွန်တော်ဥတု", khmer=False) == ["ကမ္ဘာ", "ကျွန်", "တော်", "ဥ", "တု"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ខ្មែរ់ាំ។២ ကမြန်္်။၂ ab\n")), st.booleans())
def test_every_character_but_whitespace_is_in_exactly_one_word(text: str, khmer: bool) -> None:
    spans = list(khmer_syllables(text) if khmer else burmese_syllables(text))
    assert "".join(text[s:e] for s, e in spans) == "".join(text.split())
    assert all(s < e and not text[s:e].isspace() for s, e in spans)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
