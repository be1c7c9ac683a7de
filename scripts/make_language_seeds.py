"""Write the per-language seeds from FineWeb-2's per-language filter configurations.

Usage: .venv/bin/python scripts/make_language_seeds.py [--out DIR]

Reads ``../shared/reference/fineweb2/`` (``LAKEMIX_REFERENCE`` overrides ``../shared/reference``):
``language_configs.jsonl`` (FineWeb-2's 1,929 ``configs/<iso639-3>_<Script>.yml``, Apache-2.0)
and ``language_distribution.csv`` (the size of each subset), and lid.176's labels as lakemix
emits them (``lakemix.udf.langid``: nb, hbs, gsw, bho rather than no, sh, als, bh). Writes, sorted
and byte for byte the same on every run, into ``seeds/`` (or ``--out``):

``language_configs.csv``
    One row per lid.176 label: its FineWeb-2 config (``LANGUAGES`` below, an explicit table
    checked against the reference) and where its thresholds come from (``threshold_source``):
    ``fineweb2`` (its own config), ``macrolanguage`` (the configs of its member languages,
    ``fineweb2_members``: see below), ``script`` (no config: the medians of the FineWeb-2
    configs written in its script, ``script_values``), ``global`` (no config and no script with
    configs: the '*' rows) or ``fineweb`` (English: the '*' rows are FineWeb English's own).
``quality_thresholds.csv``
    The '*' rows (``DEFAULT_RULES``: FineWeb English as datatrove implements it, unchanged), then,
    per ``fineweb2`` or ``script`` language, one row for each rule FineWeb-2 tunes per language
    (``TUNED_RULES``), then ``OVERRIDES``.
``stop_words.csv``
    FineWeb-2's stop words of each config, lower-cased one code point at a time as the stop-word
    UDF does (the first code point of ``str.lower`` of each), deduplicated; English keeps
    Gopher's eight. Languages without a config get none: their stop-word count is NULL, which
    passes the rule (macros/threshold_passed.sql).

Mapping lid.176 to FineWeb-2 (GlotLID labels, ISO 639-3 + ISO 15924): the ISO 639-3 code of the
language, and for a macrolanguage the individual language FineWeb-2 has (zh -> cmn_Hani,
ar -> arb_Arab, ms -> zsm_Latn, ...). Where several configs could apply, the largest subset
(words in language_distribution.csv) is chosen; exceptions and judgment calls are commented
in ``LANGUAGES``.

Macrolanguages: lid.176 has one label for a macrolanguage whose members FineWeb-2 configures one
by one (``qu`` is Quechua, some forty languages of which FineWeb-2 has twenty-seven configs;
``ar``, ``ms``, ``mg``, ``gn``, ``et``, ``lv``, ``sq``, ``sw``, ``kv``, ``zh``). Text of every
member gets that label, so its stop words must be every member's: a stop-word list is the most
frequent words of one variety, and another variety's prose has few of them (Ayacucho Quechua's
ten FineWeb-2 stop words, the label's list before, share none with those of Chimborazo Kichwa,
Huallaga or Huaylas Quechua: *alli, mana, chay, tukuy* are not in it). The members are the
individual languages ISO 639-3 lists under the macrolanguage (``iso639-lang``'s tables), in the
label's script, that lid.176 does not label apart (``arz``, ``id``, ``min``, ``yue`` have labels
of their own) and whose FineWeb-2 subset has at least ``MIN_MEMBER_WORDS`` words. Such a label
(``threshold_source`` ``macrolanguage``, ``fineweb2_members``) takes the union of its members'
stop words and its own config's numeric thresholds. Not the loosest member's: the small members'
configs are fit on a few hundred thousand words, most of them Bible text, and their repetition
limits would switch the rules off (Quechua's duplicate-line limit would be 1.0, Chinese's
top-2-gram limit 1.588, Arabic's maximum mean word length 55).

Language score: FineWeb-2's ``language_score`` is a GlotLID confidence; lakemix scores with
fastText lid.176, whose probabilities are not on the same scale and are lower on smaller
languages even when the label is right (it splits probability among close neighbours). A
GlotLID threshold above the '*' one (0.65, FineWeb English's) would reject clean text, so each
language gets min(FineWeb-2's value, 0.65): ``language_score_threshold`` is the one place to
change that.

Differences from FineWeb-2 left for the team to decide after measuring (these rules keep their
'*' rows, i.e. FineWeb English's values, where FineWeb-2 switches them off):

- gopher_max_duplicate_paragraph_fraction, gopher_max_duplicate_line_char_fraction and
  gopher_max_duplicate_paragraph_char_fraction: FineWeb-2 sets them to 0 (off).
- fineweb_max_short_line_fraction: FineWeb-2 sets short_line_thr=999 (off).
- c4_*: FineWeb-2 does not run the C4 filters (var lakemix_filter_families switches families).
- gopher_min_stop_words (2), gopher_min/max_words, the hash, ellipsis and bullet rules: FineWeb-2
  uses datatrove's defaults, which are the '*' values; no difference.
- Words: FineWeb-2 splits with datatrove's per-language word tokenizer; lakemix's signals split
  as ``lakemix.udf.quality`` does, so word-based thresholds measure slightly different words.

Script fallback: a label without a config whose script (``LANGUAGES``) has FineWeb-2 configs
gets, per tuned rule, the median over all FineWeb-2 configs in that script (rounded to 3
decimals, FineWeb-2's precision), and no stop words.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from iso639 import Lang
from iso639.exceptions import DeprecatedLanguageValue, InvalidLanguageValue

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(os.environ.get("LAKEMIX_REFERENCE", ROOT.parent / "shared" / "reference"))
FINEWEB2 = REFERENCE / "fineweb2"
ENGLISH = "en"  # the '*' rows are FineWeb English's: English has no rows of its own
GOPHER_STOP_WORDS = ("the", "be", "to", "of", "and", "that", "have", "with")
SOURCES = ("fineweb", "fineweb2", "macrolanguage", "script", "global")
MIN_MEMBER_WORDS = 100_000  # a member's config counts when FineWeb-2 fit it on this many words
CSV_NULLS = ("", "null")  # what dbt's seed loader reads as NULL in a text column


class Target(NamedTuple):
    """What a lid.176 label maps to: its name, FineWeb-2 config, and script without a config."""

    name: str
    config: str | None = None
    script: str | None = None


# Every lid.176 label as lakemix emits it. Judgment calls (largest subset unless said otherwise):
LANGUAGES: dict[str, Target] = {
    "af": Target("Afrikaans", "afr_Latn"),
    "am": Target("Amharic", "amh_Ethi"),
    "an": Target("Aragonese", "arg_Latn"),
    "ar": Target("Arabic", "arb_Arab"),  # macrolanguage: Standard Arabic (arz is its own label)
    "arz": Target("Egyptian Arabic", "arz_Arab"),
    "as": Target("Assamese", "asm_Beng"),
    "ast": Target("Asturian", "ast_Latn"),
    "av": Target("Avaric", "ava_Cyrl"),
    "az": Target("Azerbaijani", "azj_Latn"),  # macrolanguage: North (azb is its own label)
    "azb": Target("South Azerbaijani", "azb_Arab"),
    "ba": Target("Bashkir", "bak_Cyrl"),
    "bar": Target("Bavarian", "bar_Latn"),
    "bcl": Target("Central Bikol", "bcl_Latn"),
    "be": Target("Belarusian", "bel_Cyrl"),
    "bg": Target("Bulgarian", "bul_Cyrl"),
    "bho": Target("Bhojpuri", "bho_Deva"),  # lid.176 "bh": bh.wikipedia is Bhojpuri
    "bn": Target("Bengali", "ben_Beng"),
    "bo": Target("Tibetan", "bod_Tibt"),
    "bpy": Target("Bishnupriya", "bpy_Beng"),
    "br": Target("Breton", "bre_Latn"),
    "bs": Target("Bosnian", "bos_Latn"),
    "bxr": Target("Russia Buriat", "bxr_Cyrl"),
    "ca": Target("Catalan", "cat_Latn"),
    "cbk": Target("Chavacano", "cbk_Latn"),
    "ce": Target("Chechen", "che_Cyrl"),
    "ceb": Target("Cebuano", "ceb_Latn"),
    "ckb": Target("Central Kurdish", "ckb_Arab"),
    "co": Target("Corsican", "cos_Latn"),
    "cs": Target("Czech", "ces_Latn"),
    "cv": Target("Chuvash", "chv_Cyrl"),
    "cy": Target("Welsh", "cym_Latn"),
    "da": Target("Danish", "dan_Latn"),
    "de": Target("German", "deu_Latn"),
    "diq": Target("Dimli", "diq_Latn"),
    "dsb": Target("Lower Sorbian", "dsb_Latn"),
    "dty": Target("Dotyali", "dty_Deva"),
    "dv": Target("Dhivehi", "div_Thaa"),
    "el": Target("Greek", "ell_Grek"),
    "eml": Target("Emilian-Romagnol", "eml_Latn"),
    "en": Target("English", script="Latn"),  # FineWeb English: the '*' rows
    "eo": Target("Esperanto", "epo_Latn"),
    "es": Target("Spanish", "spa_Latn"),
    "et": Target("Estonian", "ekk_Latn"),  # macrolanguage: Standard Estonian (not Voro)
    "eu": Target("Basque", "eus_Latn"),
    # FineWeb-2 has no pes_Arab (Iranian Persian): its Persian is the macrolanguage fas_Arab.
    "fa": Target("Persian", "fas_Arab"),
    "fi": Target("Finnish", "fin_Latn"),
    "fr": Target("French", "fra_Latn"),
    "frr": Target("Northern Frisian", "frr_Latn"),
    "fy": Target("Western Frisian", "fry_Latn"),
    "ga": Target("Irish", "gle_Latn"),
    "gd": Target("Scottish Gaelic", "gla_Latn"),
    "gl": Target("Galician", "glg_Latn"),
    "gn": Target("Guarani", "gug_Latn"),  # macrolanguage: Paraguayan Guarani, the largest
    "gom": Target("Goan Konkani", "gom_Deva"),  # gom_Latn (Romi) is smaller
    "gsw": Target("Swiss German", "gsw_Latn"),  # lid.176 "als": Alemannic Wikipedia
    "gu": Target("Gujarati", "guj_Gujr"),
    "gv": Target("Manx", "glv_Latn"),
    # Serbo-Croatian (lid.176 "sh", trained on sh.wikipedia, written in Latin script): of the
    # Latin configs of its standards, bos_Latn is the largest (9.1B words; hrv_Latn 6.6B,
    # srp_Latn 0.4B); their stop-word lists share their first words (je, i, u, se, na, su).
    "hbs": Target("Serbo-Croatian", "bos_Latn"),
    "he": Target("Hebrew", "heb_Hebr"),
    "hi": Target("Hindi", "hin_Deva"),
    "hif": Target("Fiji Hindi", "hif_Latn"),
    "hr": Target("Croatian", "hrv_Latn"),
    "hsb": Target("Upper Sorbian", "hsb_Latn"),
    "ht": Target("Haitian", "hat_Latn"),
    "hu": Target("Hungarian", "hun_Latn"),
    "hy": Target("Armenian", "hye_Armn"),
    "ia": Target("Interlingua", "ina_Latn"),
    "id": Target("Indonesian", "ind_Latn"),
    "ie": Target("Interlingue", "ile_Latn"),
    "ilo": Target("Iloko", "ilo_Latn"),
    "io": Target("Ido", "ido_Latn"),
    "is": Target("Icelandic", "isl_Latn"),
    "it": Target("Italian", "ita_Latn"),
    "ja": Target("Japanese", "jpn_Jpan"),
    "jbo": Target("Lojban", "jbo_Latn"),
    "jv": Target("Javanese", "jav_Latn"),
    "ka": Target("Georgian", "kat_Geor"),
    "kk": Target("Kazakh", "kaz_Cyrl"),
    "km": Target("Khmer", "khm_Khmr"),
    "kn": Target("Kannada", "kan_Knda"),
    "ko": Target("Korean", "kor_Hang"),
    "krc": Target("Karachay-Balkar", "krc_Cyrl"),
    "ku": Target("Kurdish", "kmr_Latn"),  # macrolanguage: Northern (ckb is its own label)
    "kv": Target("Komi", "kpv_Cyrl"),  # macrolanguage: Komi-Zyrian, kv.wikipedia's
    "kw": Target("Cornish", "cor_Latn"),
    "ky": Target("Kirghiz", "kir_Cyrl"),
    "la": Target("Latin", "lat_Latn"),
    "lb": Target("Luxembourgish", "ltz_Latn"),
    "lez": Target("Lezghian", "lez_Cyrl"),
    "li": Target("Limburgan", "lim_Latn"),
    "lmo": Target("Lombard", "lmo_Latn"),
    "lo": Target("Lao", "lao_Laoo"),
    "lrc": Target("Northern Luri", "lrc_Arab"),
    "lt": Target("Lithuanian", "lit_Latn"),
    "lv": Target("Latvian", "lvs_Latn"),  # macrolanguage: Standard Latvian (not Latgalian)
    "mai": Target("Maithili", "mai_Deva"),
    "mg": Target("Malagasy", "plt_Latn"),  # macrolanguage: Plateau Malagasy
    "mhr": Target("Eastern Mari", "mhr_Cyrl"),
    "min": Target("Minangkabau", "min_Latn"),  # min_Arab has no data in the distribution
    "mk": Target("Macedonian", "mkd_Cyrl"),
    "ml": Target("Malayalam", "mal_Mlym"),
    "mn": Target("Mongolian", "khk_Cyrl"),  # macrolanguage: Halh Mongolian
    "mr": Target("Marathi", "mar_Deva"),
    "mrj": Target("Western Mari", "mrj_Cyrl"),
    "ms": Target("Malay", "zsm_Latn"),  # macrolanguage: Standard Malay
    "mt": Target("Maltese", "mlt_Latn"),
    "mwl": Target("Mirandese", "mwl_Latn"),
    "my": Target("Burmese", "mya_Mymr"),
    "myv": Target("Erzya", "myv_Cyrl"),
    "mzn": Target("Mazanderani", "mzn_Arab"),
    # Nahuatl languages: GlotLID has the collective code itself; it is kept over the larger
    # nhe_Latn (Eastern Huasteca), since nah.wikipedia is not written in one variety.
    "nah": Target("Nahuatl", "nah_Latn"),
    "nap": Target("Neapolitan", "nap_Latn"),
    "nb": Target("Norwegian Bokmal", "nob_Latn"),  # lid.176 "no"
    "nds": Target("Low German", "nds_Latn"),
    "ne": Target("Nepali", "npi_Deva"),  # macrolanguage: Nepali (individual language)
    "new": Target("Newari", "new_Deva"),
    "nl": Target("Dutch", "nld_Latn"),
    "nn": Target("Norwegian Nynorsk", "nno_Latn"),
    "oc": Target("Occitan", "oci_Latn"),
    "or": Target("Oriya", "ory_Orya"),  # macrolanguage: Odia
    "os": Target("Ossetian", "oss_Cyrl"),
    "pa": Target("Panjabi", "pan_Guru"),
    "pam": Target("Pampanga", "pam_Latn"),
    "pfl": Target("Pfaelzisch", "pfl_Latn"),
    "pl": Target("Polish", "pol_Latn"),
    "pms": Target("Piemontese", "pms_Latn"),
    "pnb": Target("Western Panjabi", "pnb_Arab"),
    "ps": Target("Pushto", "pbt_Arab"),  # macrolanguage: Southern Pashto, the only one
    "pt": Target("Portuguese", "por_Latn"),
    # Quechua (macrolanguage): qu.wikipedia is Southern Quechua, whose largest subset is
    # quy_Latn (Ayacucho, 1.3M words). The larger qug_Latn (Chimborazo Kichwa, 2.6M words) is
    # another branch and spelling, and its stop words come from Bible text ("jehova").
    "qu": Target("Quechua", "quy_Latn"),
    "rm": Target("Romansh", "roh_Latn"),
    "ro": Target("Romanian", "ron_Latn"),
    "ru": Target("Russian", "rus_Cyrl"),
    "rue": Target("Rusyn", "rue_Cyrl"),
    "sa": Target("Sanskrit", "san_Deva"),
    "sah": Target("Yakut", "sah_Cyrl"),
    "sc": Target("Sardinian", "srd_Latn"),  # macrolanguage: GlotLID has the collective code
    "scn": Target("Sicilian", "scn_Latn"),
    "sco": Target("Scots", "sco_Latn"),
    "sd": Target("Sindhi", "snd_Arab"),
    "si": Target("Sinhala", "sin_Sinh"),
    "sk": Target("Slovak", "slk_Latn"),
    "sl": Target("Slovenian", "slv_Latn"),
    "so": Target("Somali", "som_Latn"),
    "sq": Target("Albanian", "als_Latn"),  # macrolanguage: Tosk, standard Albanian
    "sr": Target("Serbian", "srp_Cyrl"),  # srp_Latn is smaller; thresholds are per language
    "su": Target("Sundanese", "sun_Latn"),
    "sv": Target("Swedish", "swe_Latn"),
    "sw": Target("Swahili", "swh_Latn"),  # macrolanguage: Swahili (individual language)
    "ta": Target("Tamil", "tam_Taml"),
    "te": Target("Telugu", "tel_Telu"),
    "tg": Target("Tajik", "tgk_Cyrl"),
    "th": Target("Thai", "tha_Thai"),
    "tk": Target("Turkmen", "tuk_Latn"),
    "tl": Target("Tagalog", "fil_Latn"),  # GlotLID labels Tagalog as Filipino; no tgl config
    "tr": Target("Turkish", "tur_Latn"),
    "tt": Target("Tatar", "tat_Cyrl"),
    "tyv": Target("Tuvinian", "tyv_Cyrl"),
    "ug": Target("Uighur", "uig_Arab"),
    "uk": Target("Ukrainian", "ukr_Cyrl"),
    "ur": Target("Urdu", "urd_Arab"),
    "uz": Target("Uzbek", "uzn_Latn"),  # macrolanguage: Northern Uzbek, Latin (uz.wikipedia's)
    "vec": Target("Venetian", "vec_Latn"),
    "vep": Target("Veps", "vep_Latn"),
    "vi": Target("Vietnamese", "vie_Latn"),
    "vls": Target("Vlaams", "vls_Latn"),
    "vo": Target("Volapuk", "vol_Latn"),
    "wa": Target("Walloon", "wln_Latn"),
    "war": Target("Waray", "war_Latn"),
    "wuu": Target("Wu Chinese", "wuu_Hani"),
    "xal": Target("Kalmyk", "xal_Cyrl"),
    "xmf": Target("Mingrelian", "xmf_Geor"),
    "yi": Target("Yiddish", "ydd_Hebr"),  # macrolanguage: Eastern Yiddish, the only one
    "yo": Target("Yoruba", "yor_Latn"),
    "yue": Target("Yue Chinese", "yue_Hani"),
    "zh": Target("Chinese", "cmn_Hani"),  # macrolanguage: Mandarin (yue, wuu are own labels)
}


class Rule(NamedTuple):
    """A row of seeds/quality_thresholds.csv."""

    language: str
    rule: str
    signal: str
    operator: str
    threshold: float
    family: str


class Override(NamedTuple):
    """A documented change of one generated threshold, applied after everything else."""

    language: str
    rule: str
    threshold: float
    reason: str


def _default(rule: str, signal: str, operator: str, threshold: float, family: str) -> Rule:
    return Rule("*", rule, signal, operator, threshold, family)


# The '*' rows: Gopher, C4 and FineWeb as datatrove implements them for FineWeb English.
DEFAULT_RULES: tuple[Rule, ...] = (
    _default("min_language_score", "language_score", ">=", 0.65, "language"),
    _default("gopher_min_words", "word_count", ">=", 50, "gopher_quality"),
    _default("gopher_max_words", "word_count", "<=", 100000, "gopher_quality"),
    _default("gopher_min_mean_word_length", "mean_word_length", ">=", 3, "gopher_quality"),
    _default("gopher_max_mean_word_length", "mean_word_length", "<=", 10, "gopher_quality"),
    _default("gopher_max_hash_word_ratio", "hash_word_ratio", "<=", 0.1, "gopher_quality"),
    _default("gopher_max_ellipsis_word_ratio", "ellipsis_word_ratio", "<=", 0.1, "gopher_quality"),
    _default(
        "gopher_max_bullet_line_fraction", "bullet_line_fraction", "<=", 0.9, "gopher_quality"
    ),
    _default(
        "gopher_max_ellipsis_line_fraction", "ellipsis_line_fraction", "<=", 0.3, "gopher_quality"
    ),
    _default("gopher_min_alpha_word_fraction", "alpha_word_fraction", ">=", 0.8, "gopher_quality"),
    _default("gopher_min_stop_words", "stop_word_count", ">=", 2, "gopher_quality"),
    *(
        _default(f"gopher_max_{what}", what, "<=", limit, "gopher_repetition")
        for what, limit in (
            ("duplicate_line_fraction", 0.3),
            ("duplicate_paragraph_fraction", 0.3),
            ("duplicate_line_char_fraction", 0.2),
            ("duplicate_paragraph_char_fraction", 0.2),
            ("top_2gram_char_fraction", 0.2),
            ("top_3gram_char_fraction", 0.18),
            ("top_4gram_char_fraction", 0.16),
            ("duplicated_5gram_char_fraction", 0.15),
            ("duplicated_6gram_char_fraction", 0.14),
            ("duplicated_7gram_char_fraction", 0.13),
            ("duplicated_8gram_char_fraction", 0.12),
            ("duplicated_9gram_char_fraction", 0.11),
            ("duplicated_10gram_char_fraction", 0.1),
        )
    ),
    _default("c4_no_lorem_ipsum", "c4_has_lorem_ipsum", "<=", 0, "c4"),
    _default("c4_no_curly_bracket", "c4_has_curly_bracket", "<=", 0, "c4"),
    _default("c4_min_sentences", "c4_sentence_count", ">=", 5, "c4"),
    _default("fineweb_min_line_punct_fraction", "line_punct_fraction", ">=", 0.12, "fineweb"),
    _default("fineweb_max_short_line_fraction", "short_line_fraction", "<=", 0.67, "fineweb"),
    _default(
        "fineweb_max_duplicate_line_char_ratio",
        "fineweb_duplicate_line_char_ratio",
        "<=",
        0.01,
        "fineweb",
    ),
    _default("fineweb_max_newline_word_ratio", "newline_word_ratio", "<=", 0.3, "fineweb"),
    # The trained quality model (var lakemix_quality_model) decides between the floors.
    _default("model_min_quality_score", "quality_score", ">=", 0.5, "model"),
)

# Floors: what nobody keeps, whatever the model says (empty or near-empty text, lorem ipsum,
# hashtag and ellipsis lists, bullet-only pages); with the family gopher_repetition (repeated-
# line and n-gram spam) they bound the model, which decides between them. Each is its Gopher or
# C4 twin's '*' row under its own name (floor_<twin without its family prefix>), so the family
# stands alone and a twin's value changes its floor too.
FLOOR_TWINS = (
    "gopher_min_words",
    "gopher_max_words",
    "gopher_max_hash_word_ratio",
    "gopher_max_ellipsis_word_ratio",
    "gopher_max_bullet_line_fraction",
    "c4_no_lorem_ipsum",
)
_TWINS = {rule.rule: rule for rule in DEFAULT_RULES}
DEFAULT_RULES += tuple(
    _default(
        "floor_" + twin.split("_", 1)[1],
        _TWINS[twin].signal,
        _TWINS[twin].operator,
        _TWINS[twin].threshold,
        "floor",
    )
    for twin in FLOOR_TWINS
)

# The rules FineWeb-2 sets per language (fineweb-2-pipeline.py, steps 3 and 5), in seed order.
TUNED_RULES: tuple[str, ...] = (
    "min_language_score",
    "gopher_min_mean_word_length",
    "gopher_max_mean_word_length",
    "gopher_min_alpha_word_fraction",
    "gopher_max_duplicate_line_fraction",
    "gopher_max_top_2gram_char_fraction",
    "gopher_max_top_3gram_char_fraction",
    "gopher_max_top_4gram_char_fraction",
    *(f"gopher_max_duplicated_{n}gram_char_fraction" for n in range(5, 11)),
    "fineweb_min_line_punct_fraction",
    "fineweb_max_duplicate_line_char_ratio",
    "fineweb_max_newline_word_ratio",
)
# FineWeb-2 raised FineWebQualityFilter's char_duplicates_ratio from 0.01 for every language.
FINEWEB2_DUPLICATE_LINE_CHAR_RATIO = 0.1

# Applied last: (language, rule, threshold, why). Empty until a config is found to reject clean
# text; each entry says what was measured.
OVERRIDES: tuple[Override, ...] = ()


def language_score_threshold(fineweb2_score: float) -> float:
    """The minimum lid.176 score for a language whose GlotLID threshold is ``fineweb2_score``.

    GlotLID and lid.176 probabilities are not comparable, and lid.176's are lower on smaller
    languages: never stricter than the '*' threshold (FineWeb English's 0.65).
    """
    default = next(r.threshold for r in DEFAULT_RULES if r.rule == "min_language_score")
    return min(fineweb2_score, default)


def fineweb2_values(config: Mapping[str, Any]) -> dict[str, float]:
    """The tuned rules' thresholds as FineWeb-2 applies them for one config (score uncapped).

    ``line_punct_thr`` -1 (off in FineWeb-2) becomes 0, which every document passes.
    """
    top = dict(config["top_n_grams"])
    duplicated = dict(config["dup_n_grams"])
    if sorted(top) != [2, 3, 4] or sorted(duplicated) != list(range(5, 11)):
        raise ValueError(f"{config['config']}: unexpected n-gram sizes {sorted(top)}, {duplicated}")
    values = {
        "min_language_score": config["language_score"],
        "gopher_min_mean_word_length": config["min_avg_word_length"],
        "gopher_max_mean_word_length": config["max_avg_word_length"],
        "gopher_min_alpha_word_fraction": config["max_non_alpha_words_ratio"],
        "gopher_max_duplicate_line_fraction": config["dup_line_frac"],
        **{f"gopher_max_top_{n}gram_char_fraction": top[n] for n in (2, 3, 4)},
        **{f"gopher_max_duplicated_{n}gram_char_fraction": duplicated[n] for n in range(5, 11)},
        "fineweb_min_line_punct_fraction": max(config["line_punct_thr"], 0),
        "fineweb_max_duplicate_line_char_ratio": FINEWEB2_DUPLICATE_LINE_CHAR_RATIO,
        "fineweb_max_newline_word_ratio": config["new_line_ratio"],
    }
    return {rule: float(values[rule]) for rule in TUNED_RULES}


def script_values(configs: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Per tuned rule, the median over ``configs`` (rounded to 3 decimals), score uncapped."""
    per_config = [fineweb2_values(config) for config in configs]
    return {
        rule: round(statistics.median(values[rule] for values in per_config), 3)
        for rule in TUNED_RULES
    }


def covered_codes(label: str, target: Target) -> set[str]:
    """The ISO 639-3 codes lid.176's ``label`` stands for: its config's language, and the
    label's own code where ISO 639 knows it."""
    codes = {target.config.split("_")[0]} if target.config else set()
    with contextlib.suppress(InvalidLanguageValue, DeprecatedLanguageValue):
        codes.add(Lang(label).pt3)
    return codes


def macro_members(
    label: str,
    target: Target,
    apart: set[str],
    configs: Mapping[str, Any],
    words: Mapping[str, int],
) -> list[str]:
    """The FineWeb-2 configs whose stop words ``label`` takes: its own, then those of the
    other members of its macrolanguage that no other label covers (``apart``, ISO 639-3 codes;
    see the module docstring), largest first; [] when ``label`` is no macrolanguage or no
    other member qualifies."""
    try:
        members = {lang.pt3 for lang in Lang(label).individuals()} - apart
    except (InvalidLanguageValue, DeprecatedLanguageValue):
        return []
    if not members or target.config is None:
        return []
    script = script_of(target)
    found = [
        name
        for name in configs
        if name != target.config
        and name.endswith(f"_{script}")
        and name.split("_")[0] in members
        and words.get(name, 0) >= MIN_MEMBER_WORDS
    ]
    if not found:
        return []
    return [target.config, *sorted(found, key=lambda name: (-words.get(name, 0), name))]


def threshold_source(
    label: str, target: Target, configs: Mapping[str, Any], members: Sequence[str] = ()
) -> str:
    """``fineweb``, ``fineweb2``, ``macrolanguage``, ``script`` or ``global`` (module docstring)."""
    if label == ENGLISH:
        return "fineweb"
    if members:
        return "macrolanguage"
    if target.config is not None and target.config in configs:
        return "fineweb2"
    if any(name.endswith(f"_{script_of(target)}") for name in configs):
        return "script"
    return "global"


def script_of(target: Target) -> str:
    """ISO 15924 code of the text ``target``'s thresholds apply to."""
    if target.config is not None:
        return target.config.split("_")[1]
    if target.script is None:
        raise ValueError(f"{target.name}: give a config or a script in LANGUAGES")
    return target.script


def language_rows(
    labels: Sequence[str],
    configs: Mapping[str, Any],
    targets: Mapping[str, Target] = LANGUAGES,
    words: Mapping[str, int] | None = None,
) -> list[dict[str, str]]:
    """Rows of language_configs.csv, one per label, sorted by label. ``words`` (words per
    FineWeb-2 subset) finds macrolanguages' members; None: no label is one."""
    rows = []
    covered = {label: covered_codes(label, target) for label, target in targets.items()}
    for label in sorted(labels):
        target = targets[label]
        members = []
        if words is not None:
            apart = set().union(*(codes for other, codes in covered.items() if other != label))
            members = macro_members(label, target, apart, configs, words)
        source = threshold_source(label, target, configs, members)
        own = source in ("fineweb2", "macrolanguage")
        rows.append(
            {
                "language": label,
                "language_name": target.name,
                "script": script_of(target),
                "fineweb2_config": target.config if own and target.config else "",
                "threshold_source": source,
                "fineweb2_members": " ".join(members),
            }
        )
    return rows


def member_configs(language: Mapping[str, str], configs: Mapping[str, Any]) -> list[Any]:
    """The FineWeb-2 configs a language_configs row takes its thresholds and stop words from."""
    if language["threshold_source"] == "macrolanguage":
        return [configs[name] for name in language["fineweb2_members"].split()]
    if language["threshold_source"] == "fineweb2":
        return [configs[language["fineweb2_config"]]]
    return []


def tuned_values(language: Mapping[str, str], configs: Mapping[str, Any]) -> dict[str, float]:
    """Uncapped thresholds of the tuned rules for one language_configs row ({} for none)."""
    if language["threshold_source"] in ("fineweb2", "macrolanguage"):  # its own config's
        return fineweb2_values(configs[language["fineweb2_config"]])
    if language["threshold_source"] == "script":
        suffix = f"_{language['script']}"
        return script_values(c for name, c in sorted(configs.items()) if name.endswith(suffix))
    return {}


def threshold_rows(
    languages: Sequence[Mapping[str, str]],
    configs: Mapping[str, Any],
    overrides: Sequence[Override] = OVERRIDES,
) -> list[Rule]:
    """Rows of quality_thresholds.csv: '*' rows, then each language's tuned rules, overridden."""
    defaults = {rule.rule: rule for rule in DEFAULT_RULES}
    rows = {(r.language, r.rule): r for r in DEFAULT_RULES}
    for language in languages:
        for rule, value in tuned_values(language, configs).items():
            if rule == "min_language_score":
                value = language_score_threshold(value)
            rows[(language["language"], rule)] = defaults[rule]._replace(
                language=language["language"], threshold=value
            )
    known = {language["language"] for language in languages} | {"*"}
    for override in overrides:
        if override.rule not in defaults or override.language not in known:
            raise ValueError(f"override of an unknown language or rule: {override!r}")
        base = rows.get((override.language, override.rule), defaults[override.rule])
        rows[(override.language, override.rule)] = base._replace(
            language=override.language, threshold=override.threshold
        )
    order = {rule.rule: k for k, rule in enumerate(DEFAULT_RULES)}
    return sorted(rows.values(), key=lambda r: (r.language != "*", r.language, order[r.rule]))


def lower(word: str) -> str:
    """``word`` lower-cased one code point at a time, as lakemix's stop-word UDF does."""
    return "".join(char.lower()[0] for char in word)


def stop_word_rows(
    languages: Sequence[Mapping[str, str]], configs: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Rows (language, word) of stop_words.csv, sorted; a word dbt would read as NULL fails."""
    rows: set[tuple[str, str]] = {(ENGLISH, word) for word in GOPHER_STOP_WORDS}
    for language in languages:
        for config in member_configs(language, configs):
            rows.update((language["language"], lower(word)) for word in config["stopwords"])
    bad = sorted(row for row in rows if row[1].strip().lower() in CSV_NULLS)
    if bad:
        raise ValueError(f"stop words that a dbt seed would read as NULL: {bad}")
    return sorted(rows)


def read_configs(folder: Path = FINEWEB2) -> dict[str, dict[str, Any]]:
    """FineWeb-2's configs by name (e.g. cmn_Hani), from ``language_configs.jsonl``.

    Raises:
        FileNotFoundError: If the reference folder is missing, with the way to point at it.
    """
    path = folder / "language_configs.jsonl"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: FineWeb-2's configs live in ../shared/reference/fineweb2 "
            "(set LAKEMIX_REFERENCE to the folder holding fineweb2/)"
        )
    with path.open(encoding="utf-8") as f:
        configs = [json.loads(line) for line in f if line.strip()]
    return {config["config"]: config for config in configs}


def read_subset_words(folder: Path = FINEWEB2) -> dict[str, int]:
    """Words in each FineWeb-2 train subset (language_distribution.csv); 0 where unknown."""
    words = {}
    with (folder / "language_distribution.csv").open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["split"] == "train" and not row["subset"].endswith("_removed"):
                words[row["subset"]] = int(row["words"]) if row["words"].isdigit() else 0
    return words


def lid_labels() -> list[str]:
    """lid.176's labels as lakemix emits them (lakemix.udf.langid), sorted."""
    if str(ROOT / "python") not in sys.path:
        sys.path.insert(0, str(ROOT / "python"))  # this checkout's lakemix, not the venv's
    from lakemix.udf import fasttext_kernel, langid

    model = fasttext_kernel.load(langid.model_path())
    return sorted(langid._LABELS.get(label, label) for label in model.labels)


def check_mapping(
    labels: Sequence[str], configs: Mapping[str, Any], targets: Mapping[str, Target] = LANGUAGES
) -> None:
    """Fail unless ``targets`` covers exactly ``labels`` and names only existing configs.

    Raises:
        ValueError: Naming the labels or configs at fault.
    """
    missing, extra = sorted(set(labels) - set(targets)), sorted(set(targets) - set(labels))
    if missing or extra:
        raise ValueError(
            f"LANGUAGES must list every lid.176 label: missing {missing}, extra {extra}"
        )
    unknown = sorted(t.config for t in targets.values() if t.config and t.config not in configs)
    if unknown:
        raise ValueError(f"LANGUAGES names configs FineWeb-2 does not have: {unknown}")
    both = sorted(label for label, t in targets.items() if t.config and t.script)
    if both:
        raise ValueError(f"give a config or a script, not both: {both}")


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write ``rows`` under ``header`` with "\\n" line ends (byte-stable across platforms)."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def format_threshold(value: float) -> str:
    """``3`` for 3.0, else the shortest repr (``0.263``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_seeds(
    out: Path, labels: Sequence[str], reference: Path = FINEWEB2
) -> list[dict[str, str]]:
    """Write the three seeds into ``out``; return the language_configs rows."""
    configs = read_configs(reference)
    out.mkdir(parents=True, exist_ok=True)
    check_mapping(labels, configs)
    languages = language_rows(labels, configs, words=read_subset_words(reference))
    write_csv(out / "language_configs.csv", list(languages[0]), (r.values() for r in languages))
    thresholds = threshold_rows(languages, configs)
    write_csv(
        out / "quality_thresholds.csv",
        Rule._fields,
        ((*r[:4], format_threshold(r.threshold), r.family) for r in thresholds),
    )
    write_csv(out / "stop_words.csv", ("language", "word"), stop_word_rows(languages, configs))
    return languages


def summary(languages: Sequence[Mapping[str, str]], words: Mapping[str, int]) -> str:
    """How many labels run on each threshold source, which do not run on their own config and
    on what instead, and which configs FineWeb-2 made from under a million words."""
    lines = []
    for source in SOURCES:
        chosen = [r for r in languages if r["threshold_source"] == source]
        lines.append(f"{source:>13}: {len(chosen):3d} labels")
        if source == "macrolanguage":
            lines += [f"    {r['language']}: {r['fineweb2_members']}" for r in chosen]
        elif source != "fineweb2":
            lines += [f"    {r['language']} ({r['language_name']}, {r['script']})" for r in chosen]
    small = [r for r in languages if r["fineweb2_config"]]
    small = [r for r in small if words.get(r["fineweb2_config"], 0) < 1_000_000]
    names = ", ".join(f"{r['language']}={r['fineweb2_config']}" for r in small)
    lines.append(f"configs from under 1M words of FineWeb-2 data: {names or 'none'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Write the seeds (``--out``, default seeds/) and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "seeds", help="folder to write into")
    args = parser.parse_args(argv)
    languages = write_seeds(args.out, lid_labels())
    print(f"wrote language_configs.csv, quality_thresholds.csv, stop_words.csv to {args.out}")
    print(summary(languages, read_subset_words()))


if __name__ == "__main__":
    main()
