"""bench/multilingual: clean-text retention per language and junk rejection, beside datatrove
with FineWeb-2's per-language configurations.

Usage: .venv/bin/python bench/multilingual.py [--label before]
       [--languages de zh ...] [--docs-per-language N] [--skip-datatrove] [--seed 0] [--cpu N]
       [--lines odd|even|all] [--clean leipzig|oscar] [--model default|leipzig|PATH]
       [--compare OLD.json [NEW.json]]

What runs, one core (``--cpu``, default the lowest this process may use), in one invocation:

* Clean prose. Each ``../shared/corpora/langid/lingua_leipzig/<lang>/sentences.txt`` (75
  languages; the folder's ISO 639-1 code is the expected language) is packed into documents of
  500-2,000 characters by ``lakemix.quality.reference.pack_sentences``, the packing ``lakemix
  calibrate --sentences`` uses. Only its odd-numbered lines (1, 3, 5, ... counted from 0) by
  default: ``scripts/calibrate_leipzig.sh`` calibrates ``seeds/calibrated_thresholds.csv`` on
  the even-numbered ones, so retention is measured on sentences the calibration never saw
  (``--lines all`` packs every line, as before the split; ``--lines even`` measures on the
  calibration's own half). The sentences of a language (blank lines and repeats dropped) are
  shuffled with ``random.Random(f"{seed}:{lang}")`` (the file is sorted alphabetically; in file
  order, neighbours share their first words and repetition signals would fire on the sorting,
  not the text). Each document draws a target length in [500, 2000] and takes sentences until
  it reaches it, never going past 2,000; a remainder under 500 characters is dropped. Sentences
  form paragraphs of 1-4 sentences (drawn per paragraph), one paragraph a line: prose as
  trafilatura extracts it, paragraphs separated by a newline (also bench/corpus.py's layout).
  Inside a paragraph, sentences are joined with a space, except in Chinese and Japanese, which
  are written without spaces between sentences: joining them with spaces would hand a
  whitespace tokenizer word boundaries that real Chinese and Japanese text does not have. Same
  seed, same lines, same corpora: the same documents, byte for byte. Document ids name the
  half (``leipzig/<lang>/odd/<n>``) unless every line is used (``leipzig/<lang>/<n>``), so
  ``--compare`` never matches documents of different halves.
* ``--clean oscar``: fit on one source, report on another. The clean side is then prose built
  from OSCAR 2019 instead of Leipzig: its paragraphs that read as sentences, laid out as
  ``scripts/train_quality_model.py`` builds its ``oscar`` source (``lakemix.quality.synthetic``,
  at most 120 documents a language), and junk made of the same words, one junk document per
  prose document, the junk kinds in turn (set ``oscar_junk``, reported per kind and script;
  held out in its words only: the model's training junk comes from the same generator).
  Neither the calibration (``seeds/calibrated_thresholds.csv``, Leipzig's even lines) nor the
  quality model read OSCAR: ``--model`` defaults to ``leipzig`` here, a model fit in this run on
  the script's Leipzig labels alone (the shipped default model is fit on both sources, so it
  has read OSCAR). ``--model default`` scores with the shipped one, ``--model PATH`` with a
  model file; the model goes to dbt as the var ``lakemix_quality_model``. OSCAR 2019's labels
  are lid.176's own (renamed as lakemix emits them: no -> nb, sh -> hbs, als -> gsw, bh -> bho),
  so "identified as its language" compares the same labels.
* Web documents, the junk side: the HPLT warc2text ``sample100_*.jsonl.zst`` pages (text ``t``,
  language ``lang``), the 1,000 HPLT Chinese pages (``*_sample_zh.tsv.zst``: url TAB
  base64(text)) and the OSCAR 2019 documents (one paragraph a line, a blank line between
  documents, language from the file name; texts already seen in another OSCAR file skipped, so
  the two variants of a language do not count twice). Each keeps its corpus's language label.
* lakemix, through dbt as bench/clean.py runs it: in a temporary LAKEMIX_HOME, ``lakemix
  ingest`` of all documents (one JSONL shard, the bench id also as a metadata field), ``dbt
  seed``, ``dbt run --select +int_documents_quality_filtered``; then, per document, from the
  Iceberg tables: the language, script and score of int_documents_language_scored, is_kept and
  failed_rules of int_documents_quality_filtered, the signals of int_documents_quality_scored.
  Whatever the checkout's cleaning layer is, this measures it. Retention of a Leipzig language
  is kept / documents, where a document identified as another language counts as not kept (it
  would land in the wrong language of a mix), shown apart as "other lang". The filters' own
  retention (the issue's measure: "each one identified correctly by lakemix's language ID") is
  kept / documents identified as their language, shown as "filters".
* datatrove 0.10.1 in bench/out/venv-datatrove (bench/_datatrove.py, with the word segmenters
  datatrove assigns), on the text lakemix measured (the normalized text of
  int_documents_language_scored): FineWeb-2's step 5 as fineweb-2-pipeline.py runs it, with the
  configuration of the language (../shared/reference/fineweb2/language_configs.jsonl):
  GopherRepetitionFilter(language=config, dup_para_frac=0, dup_line_char_frac=0,
  dup_para_char_frac=0, dup_line_frac, top_n_grams, dup_n_grams), FineWebQualityFilter(
  short_line_thr=999, char_duplicates_ratio=0.1, line_punct_thr, new_line_ratio),
  GopherQualityFilter(max/min_avg_word_length, stop_words, max_non_alpha_words_ratio,
  min_stop_words=2), in that order, no C4. FineWeb-2 also keeps only documents whose GlotLID
  language score reaches the config's ``language_score``; there is no GlotLID here, so datatrove
  gets no language filter at all (its retention is of the three filters only). Leipzig documents
  get the config of their expected language (FW2_CONFIG below, each name checked against
  language_configs.jsonl and language_distribution.csv); web documents the config of the
  language lakemix identified (with lakemix's script when that config exists, e.g. srp_Latn),
  none when that language has none (English: FineWeb-2 is the non-English part of FineWeb).
  The word tokenizer is datatrove's ``load_word_tokenizer(config)``; one that cannot run here
  (stanza downloads its models at run time) is reported as "no offline tokenizer" and its
  documents skipped.
* Signal parity, on the Leipzig documents: lakemix's signals (the columns of
  int_documents_quality_scored, see :func:`lakemix_signals`) against the same signals computed
  with datatrove's functions and datatrove's word tokenizer of the language (English: spaCy's
  blank English one, though FineWeb-2 has no English config): share of documents with the same
  word count, and with every compared signal equal (within 1e-9). Parity is expected where both
  split words alike (lakemix re-implements spaCy's blank English tokenizer).

Printed: per Leipzig language, documents, share identified as the language, other language,
lakemix retention, the rules that reject most, datatrove's retention and its first reason;
retention summaries (overall, languages under 95% and 90%, at 0%, by script, top rules); signal
parity per language; junk rejection per corpus language (lakemix, and datatrove where a config
maps) and the HPLT Chinese pages; run times. Written: bench/out/multilingual-<label>.json, every
document's outcome on both sides, for ``--compare OLD.json``: retention per language before and
after, and the share of the documents rejected before (HPLT Chinese pages, then each web
corpus) still rejected now. ``--compare OLD.json NEW.json`` compares two files without running.
"""

from __future__ import annotations

import argparse
import base64
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_quality_model as builder

from _datatrove import ensure_venv
from clean import Lakehouse, run
from corpus import ISO639_3_TO_1, _jsonl_records, _oscar2019_documents, default_corpora
from lakemix.quality.reference import (
    DOCUMENT_CHARS,
    LINE_SELECTIONS,
    LineSelection,
    pack_sentences,
    select_lines,
    sentence_joiner,
)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
CORPORA = default_corpora()
FINEWEB2 = CORPORA.parent / "reference" / "fineweb2"
RETENTION_GOAL, RETENTION_FLOOR = 0.95, 0.90
PARITY_GOAL = 0.98
STILL_REJECTED_GOAL = 0.95
EPSILON = 1e-9
CLEAN_SETS = ("leipzig", "oscar_prose")  # the clean side: retention per language
JUNK_SET = "oscar_junk"  # junk made of the held-out prose's words
JUNK_GOAL = 0.99

# lid.176 label (as lakemix reports it) or Leipzig folder -> FineWeb-2 config (GlotLID's ISO 639-3
# + script). Where GlotLID splits a lid.176 label, the FineWeb-2 subset with the most documents
# (language_distribution.csv): ar -> arb (Standard Arabic), et -> ekk, lv -> lvs, ms -> zsm,
# sq -> als, sw -> swh, zh -> cmn, ne -> npi, mg -> plt, gn -> gug, qu -> quy, kv -> kpv; fa ->
# fas_Arab (FineWeb-2 has no pes_Arab), tl -> fil_Latn (no tgl_Latn), ku -> kmr_Latn (lid.176's
# Kurdish is Kurmanji; Sorani is its own label, ckb), uz -> uzn_Latn. No config: en (FineWeb-2
# is non-English) and hbs (lid.176's Serbo-Croatian; FineWeb-2 has bos, hrv, srp).
FW2_CONFIG = {
    "af": "afr_Latn", "am": "amh_Ethi", "an": "arg_Latn", "ar": "arb_Arab", "arz": "arz_Arab",
    "as": "asm_Beng", "ast": "ast_Latn", "av": "ava_Cyrl", "az": "azj_Latn", "azb": "azb_Arab",
    "ba": "bak_Cyrl", "bar": "bar_Latn", "bcl": "bcl_Latn", "be": "bel_Cyrl", "bg": "bul_Cyrl",
    "bho": "bho_Deva", "bn": "ben_Beng", "bo": "bod_Tibt", "bpy": "bpy_Beng", "br": "bre_Latn",
    "bs": "bos_Latn", "bxr": "bxr_Cyrl", "ca": "cat_Latn", "cbk": "cbk_Latn", "ce": "che_Cyrl",
    "ceb": "ceb_Latn", "ckb": "ckb_Arab", "co": "cos_Latn", "cs": "ces_Latn", "cv": "chv_Cyrl",
    "cy": "cym_Latn", "da": "dan_Latn", "de": "deu_Latn", "diq": "diq_Latn", "dsb": "dsb_Latn",
    "dty": "dty_Deva", "dv": "div_Thaa", "el": "ell_Grek", "eml": "eml_Latn", "eo": "epo_Latn",
    "es": "spa_Latn", "et": "ekk_Latn", "eu": "eus_Latn", "fa": "fas_Arab", "fi": "fin_Latn",
    "fr": "fra_Latn", "frr": "frr_Latn", "fy": "fry_Latn", "ga": "gle_Latn", "gd": "gla_Latn",
    "gl": "glg_Latn", "gn": "gug_Latn", "gom": "gom_Deva", "gsw": "gsw_Latn", "gu": "guj_Gujr",
    "gv": "glv_Latn", "he": "heb_Hebr", "hi": "hin_Deva", "hif": "hif_Latn", "hr": "hrv_Latn",
    "hsb": "hsb_Latn", "ht": "hat_Latn", "hu": "hun_Latn", "hy": "hye_Armn", "ia": "ina_Latn",
    "id": "ind_Latn", "ie": "ile_Latn", "ilo": "ilo_Latn", "io": "ido_Latn", "is": "isl_Latn",
    "it": "ita_Latn", "ja": "jpn_Jpan", "jbo": "jbo_Latn", "jv": "jav_Latn", "ka": "kat_Geor",
    "kk": "kaz_Cyrl", "km": "khm_Khmr", "kn": "kan_Knda", "ko": "kor_Hang", "krc": "krc_Cyrl",
    "ku": "kmr_Latn", "kv": "kpv_Cyrl", "kw": "cor_Latn", "ky": "kir_Cyrl", "la": "lat_Latn",
    "lb": "ltz_Latn", "lez": "lez_Cyrl", "lg": "lug_Latn", "li": "lim_Latn", "lmo": "lmo_Latn",
    "lo": "lao_Laoo", "lrc": "lrc_Arab", "lt": "lit_Latn", "lv": "lvs_Latn", "mai": "mai_Deva",
    "mg": "plt_Latn", "mhr": "mhr_Cyrl", "mi": "mri_Latn", "min": "min_Latn", "mk": "mkd_Cyrl",
    "ml": "mal_Mlym", "mn": "khk_Cyrl", "mr": "mar_Deva", "mrj": "mrj_Cyrl", "ms": "zsm_Latn",
    "mt": "mlt_Latn", "mwl": "mwl_Latn", "my": "mya_Mymr", "myv": "myv_Cyrl", "mzn": "mzn_Arab",
    "nah": "nah_Latn", "nap": "nap_Latn", "nb": "nob_Latn", "nds": "nds_Latn", "ne": "npi_Deva",
    "new": "new_Deva", "nl": "nld_Latn", "nn": "nno_Latn", "oc": "oci_Latn", "or": "ory_Orya",
    "os": "oss_Cyrl", "pa": "pan_Guru", "pam": "pam_Latn", "pfl": "pfl_Latn", "pl": "pol_Latn",
    "pms": "pms_Latn", "pnb": "pnb_Arab", "ps": "pbt_Arab", "pt": "por_Latn", "qu": "quy_Latn",
    "rm": "roh_Latn", "ro": "ron_Latn", "ru": "rus_Cyrl", "rue": "rue_Cyrl", "sa": "san_Deva",
    "sah": "sah_Cyrl", "sc": "srd_Latn", "scn": "scn_Latn", "sco": "sco_Latn", "sd": "snd_Arab",
    "si": "sin_Sinh", "sk": "slk_Latn", "sl": "slv_Latn", "sn": "sna_Latn", "so": "som_Latn",
    "sq": "als_Latn", "sr": "srp_Cyrl", "st": "sot_Latn", "su": "sun_Latn", "sv": "swe_Latn",
    "sw": "swh_Latn", "ta": "tam_Taml", "te": "tel_Telu", "tg": "tgk_Cyrl", "th": "tha_Thai",
    "tk": "tuk_Latn", "tl": "fil_Latn", "tn": "tsn_Latn", "tr": "tur_Latn", "ts": "tso_Latn",
    "tt": "tat_Cyrl", "tyv": "tyv_Cyrl", "ug": "uig_Arab", "uk": "ukr_Cyrl", "ur": "urd_Arab",
    "uz": "uzn_Latn", "vec": "vec_Latn", "vep": "vep_Latn", "vi": "vie_Latn", "vls": "vls_Latn",
    "vo": "vol_Latn", "wa": "wln_Latn", "war": "war_Latn", "wuu": "wuu_Hani", "xal": "xal_Cyrl",
    "xh": "xho_Latn", "xmf": "xmf_Geor", "yi": "ydd_Hebr", "yo": "yor_Latn", "yue": "yue_Hani",
    "zh": "cmn_Hani", "zu": "zul_Latn",
}  # fmt: skip
# Word tokenizer for the parity of a Leipzig language without a FineWeb-2 config.
TOKENIZER_ONLY = {"en": "eng_Latn"}
# The Leipzig languages lid.176 has no label for: the goals are stated for the others.
NOT_IN_LID176 = frozenset({"lg", "mi", "sn", "st", "tn", "ts", "xh", "zu"})
# Signals both sides compute that FineWeb-2's three filters use (C4 and paragraph ones are off).
COMPARED = (
    "word_count",
    "mean_word_length",
    "hash_word_ratio",
    "ellipsis_word_ratio",
    "bullet_line_fraction",
    "ellipsis_line_fraction",
    "alpha_word_fraction",
    "duplicate_line_fraction",
    *(f"top_{n}gram_char_fraction" for n in (2, 3, 4)),
    *(f"duplicated_{n}gram_char_fraction" for n in range(5, 11)),
    "line_punct_fraction",
    "fineweb_duplicate_line_char_ratio",
    "newline_word_ratio",
)

# Runs in bench/out/venv-datatrove: argv = docs.jsonl configs.json out.jsonl tokenizers.json
WORKER = r"""
import json, re, sys, time
from datatrove.data import Document
from datatrove.pipeline.filters import (
    FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter)
from datatrove.pipeline.filters.gopher_repetition_filter import (
    find_all_duplicate, find_duplicates, find_top_duplicate, get_n_grams)
from datatrove.utils.text import PUNCTUATION_SET, TERMINAL_PUNCTUATION, split_into_words
from datatrove.utils.word_tokenizers import load_word_tokenizer

docs_path, configs_path, out_path, tokenizers_path = sys.argv[1:5]
configs = json.load(open(configs_path))
tokenizers, pipelines = {}, {}
STOPS = tuple(TERMINAL_PUNCTUATION)

def tokenizer(key):
    # (description, usable): a tokenizer that cannot load or split here is skipped, not fatal
    if key not in tokenizers:
        try:
            tok = load_word_tokenizer(key)
            tok.word_tokenize("Warm up, once.")
            lang = getattr(tok, "language", None)
            tokenizers[key] = (type(tok).__name__ + (f"({lang})" if lang else ""), True)
        except Exception as e:
            first = (str(e).splitlines() or [""])[0][:90]
            tokenizers[key] = (f"no offline tokenizer ({type(e).__name__}: {first})", False)
    return tokenizers[key]

def pipeline(name):
    # fineweb-2-pipeline.py, step 5, with the language's config
    if name not in pipelines:
        c = configs[name]
        pipelines[name] = [
            GopherRepetitionFilter(
                language=name, dup_para_frac=0, dup_line_char_frac=0, dup_para_char_frac=0,
                dup_line_frac=c["dup_line_frac"], top_n_grams=c["top_n_grams"],
                dup_n_grams=c["dup_n_grams"]),
            FineWebQualityFilter(
                language=name, short_line_thr=999, char_duplicates_ratio=0.1,
                line_punct_thr=c["line_punct_thr"], new_line_ratio=c["new_line_ratio"]),
            GopherQualityFilter(
                language=name, max_avg_word_length=c["max_avg_word_length"],
                min_avg_word_length=c["min_avg_word_length"], stop_words=c["stopwords"],
                max_non_alpha_words_ratio=c["max_non_alpha_words_ratio"], min_stop_words=2),
        ]
    return pipelines[name]

def ratio(a, b):
    return a / b if b else 0.0

def signals(text, key):
    words = split_into_words(text, key)
    n = len(words)
    content = [w for w in words if any(ch not in PUNCTUATION_SET for ch in w)]
    lines = text.splitlines()
    v = {
        "word_count": len(content),
        "mean_word_length": ratio(sum(len(w) for w in content), len(content)),
        "hash_word_ratio": ratio(text.count("#"), n),
        "ellipsis_word_ratio": ratio(text.count("...") + text.count("\u2026"), n),
        "bullet_line_fraction": ratio(
            sum(s.lstrip().startswith(("\u2022", "-")) for s in lines), len(lines)),
        "ellipsis_line_fraction": ratio(
            sum(s.rstrip().endswith(("...", "\u2026")) for s in lines), len(lines)),
        "alpha_word_fraction": ratio(sum(any(c.isalpha() for c in w) for w in words), n),
        "newline_word_ratio": ratio(text.count("\n"), n),
    }
    gopher_lines = re.split("\n+", text)
    v["duplicate_line_fraction"] = ratio(find_duplicates(gopher_lines)[0], len(gopher_lines))
    for g in (2, 3, 4):
        grams = get_n_grams(words, g)
        top = find_top_duplicate(grams) if grams else 0
        v[f"top_{g}gram_char_fraction"] = ratio(top, len(text))
    for g in range(5, 11):
        v[f"duplicated_{g}gram_char_fraction"] = ratio(find_all_duplicate(words, g), len(text))
    fw_lines = [line for line in text.split("\n") if line.strip() != ""]
    v["line_punct_fraction"] = ratio(sum(line.endswith(STOPS) for line in fw_lines), len(fw_lines))
    v["fineweb_duplicate_line_char_ratio"] = ratio(
        find_duplicates(fw_lines)[1], len(text.replace("\n", "")))
    return v

start = time.perf_counter()
with open(docs_path) as docs, open(out_path, "w") as out:
    for line in docs:
        doc = json.loads(line)
        row = {"id": doc["id"]}
        key = doc["config"] or doc["tokenizer"]
        if key:
            row["tokenizer"], usable = tokenizer(key)
            if usable:
                try:
                    if doc["tokenizer"]:
                        row["signals"] = signals(doc["text"], key)
                    if doc["config"]:
                        row["kept"], row["reason"] = True, ""
                        for f in pipeline(doc["config"]):
                            result = f.filter(Document(text=doc["text"], id=doc["id"]))
                            if result is not True:
                                row["kept"] = False
                                row["reason"] = result[1] if isinstance(result, tuple) else ""
                                break
                except Exception as e:  # a tokenizer or filter failing on one text
                    row.pop("kept", None)
                    row["error"] = f"{type(e).__name__}: {str(e)[:90]}"
        out.write(json.dumps(row) + "\n")
json.dump({"tokenizers": {k: v[0] for k, v in tokenizers.items()},
           "seconds": time.perf_counter() - start}, open(tokenizers_path, "w"))
"""


@dataclass(frozen=True)
class Doc:
    """One bench document: id, set (leipzig, hplt, hplt_zh, oscar2019), corpus label, text."""

    id: str
    set: str
    label: str
    text: str


# Documents ---------------------------------------------------------------------------------------


def leipzig_documents(
    languages: list[str], seed: int, limit: int | None, lines: LineSelection = "odd"
) -> list[Doc]:
    """The packed Leipzig documents of ``languages`` (``lines`` of each file), at most ``limit``
    per language."""
    root = CORPORA / "langid" / "lingua_leipzig"
    half = "" if lines == "all" else f"{lines}/"
    out = []
    for lang in languages:
        text = (root / lang / "sentences.txt").read_text(encoding="utf-8")
        sentences = select_lines(text.split("\n"), lines)
        docs = pack_sentences(sentences, key=f"{seed}:{lang}", joiner=sentence_joiner(lang))
        out += [
            Doc(f"leipzig/{lang}/{half}{i}", "leipzig", lang, t) for i, t in enumerate(docs[:limit])
        ]
    return out


def oscar_documents() -> list[Doc]:
    """Prose and junk built from OSCAR 2019's sentence-like paragraphs, as
    scripts/train_quality_model.py builds its ``oscar`` source (the module docstring)."""
    from lakemix.udf.langid import _LABELS  # OSCAR 2019 labels as lid.176; lakemix renames four

    data = builder._build(builder.oscar(CORPORA), "oscar")
    out, seen = [], Counter[tuple[str, str]]()
    for text, label, oscar_lang, kind in zip(
        data.texts, data.labels, data.languages, data.kinds, strict=True
    ):
        lang = _LABELS.get(oscar_lang, oscar_lang)
        n = seen[(lang, kind)]
        seen[(lang, kind)] += 1
        if label == 1:
            out.append(Doc(f"oscar_prose/{lang}/{n}", "oscar_prose", lang, text))
        else:
            out.append(Doc(f"{JUNK_SET}/{kind}/{lang}/{n}", JUNK_SET, lang, text))
    return out


def leipzig_model(path: Path, seed: int = 0) -> str:
    """Fit a quality model on scripts/train_quality_model.py's Leipzig labels alone (even
    lines: prose and junk of the same words) into ``path``; its SHA-256."""
    from lakemix.udf.quality_model.train import train

    data = builder._build(builder.leipzig(CORPORA), "leipzig")
    info = {"trained_by": "bench/multilingual.py", "sources": ["leipzig"]}
    model = train(data.texts, data.labels, groups=data.languages, seed=seed, info=info)
    return str(model.save(path))


def web_documents() -> Iterator[Doc]:
    """HPLT sample100 pages, the HPLT Chinese pages and distinct OSCAR 2019 documents."""
    hplt = CORPORA / "web" / "hplt_warc2text"
    for path in sorted(hplt.glob("sample100_*.jsonl.zst")):
        for i, record in enumerate(_jsonl_records(path)):
            text = record.get("t")
            if isinstance(text, str) and text.strip():
                name = path.name.removesuffix(".jsonl.zst")
                yield Doc(f"hplt/{name}/{i}", "hplt", str(record.get("lang") or "und"), text)
    for path in sorted(hplt.glob("*_sample_zh.tsv.zst")):
        with path.open("rb") as raw:
            data = zstandard.ZstdDecompressor().stream_reader(raw).read()
        for i, line in enumerate(data.decode("utf-8", "replace").split("\n")):
            if "\t" in line:
                text = base64.b64decode(line.split("\t", 1)[1]).decode("utf-8", "replace")
                if text.strip():
                    yield Doc(f"hplt_zh/{i}", "hplt_zh", "zh", text)
    seen: set[str] = set()
    for path in sorted((CORPORA / "web" / "oscar2019").glob("*.txt.gz")):
        name = path.name.removesuffix(".txt.gz")
        for i, text in enumerate(_oscar2019_documents(path)):
            if text.strip() and text not in seen:
                seen.add(text)
                yield Doc(f"oscar2019/{name}/{i}", "oscar2019", name.split("_", 2)[2], text)


def iso639_1(doc: Doc) -> str:
    """The ISO 639-1 code of a document's corpus label where known (HPLT's are 639-3 + script)."""
    if doc.set == "hplt":
        code = doc.label.split("_")[0]
        return ISO639_3_TO_1.get(code, code)
    return doc.label


def leipzig_languages() -> list[str]:
    """Every Leipzig folder with sentences, sorted."""
    root = CORPORA / "langid" / "lingua_leipzig"
    return sorted(p.parent.name for p in root.glob("*/sentences.txt"))


def fineweb2_configs() -> dict[str, dict[str, Any]]:
    """FineWeb-2's configs by name; fails if a name of FW2_CONFIG is not a FineWeb-2 subset."""
    with (FINEWEB2 / "language_configs.jsonl").open(encoding="utf-8") as f:
        configs = {c["config"]: c for c in map(json.loads, f)}
    with (FINEWEB2 / "language_distribution.csv").open(encoding="utf-8") as f:
        subsets = {row["subset"] for row in csv.DictReader(f)}
    wrong = sorted(v for v in FW2_CONFIG.values() if v not in configs or v not in subsets)
    if wrong:
        raise SystemExit(f"FW2_CONFIG names that are not FineWeb-2 subsets: {wrong}")
    return configs


# lakemix -----------------------------------------------------------------------------------------


def lakemix_signals(tables: Any, ids: list[str]) -> list[dict[str, float]]:
    """lakemix's signals of documents ``ids``: the columns of int_documents_quality_scored.

    The layer's own values, as dbt computed them (``lakemix.udf.quality.quality_signals`` and
    whatever arguments the model gives it), so this follows the model if the UDF's API changes.
    """
    table = tables.load_table("intermediate.int_documents_quality_scored")
    present = [c for c in COMPARED if c in table.schema().column_names]
    rows = table.scan(selected_fields=("document_id", *present)).to_arrow().to_pylist()
    by_id = {r.pop("document_id"): r for r in rows}
    return [by_id.get(i, {}) for i in ids]


def lakemix_side(
    docs: list[Doc], home: Path, model: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Ingest ``docs``, run the cleaning layer with dbt (scoring with the quality model file
    ``model``, the project's var when None); each document's outcome by bench id."""
    from lakemix.catalog import catalog
    from lakemix.settings import Settings

    shard = home / "docs" / "part-00000.jsonl.zst"
    shard.parent.mkdir(parents=True)
    with shard.open("wb") as f, zstandard.ZstdCompressor().stream_writer(f) as z:
        for d in docs:
            z.write(orjson.dumps({"id": d.id, "text": d.text, "bench_id": d.id}) + b"\n")
    house = Lakehouse(home / "house")
    house.home.mkdir()
    house.ingest(shard.parent)
    house.dbt("seed")
    chosen = [] if model is None else ["--vars", json.dumps({"lakemix_quality_model": str(model)})]
    house.dbt("run", "--select", "+int_documents_quality_filtered", *chosen)

    tables = catalog(Settings.from_env(house.env))
    raw = tables.load_table("raw.documents").scan(selected_fields=("document_id", "metadata"))
    bench_id = {
        r["document_id"]: json.loads(r["metadata"])["bench_id"] for r in raw.to_arrow().to_pylist()
    }
    fields = ("document_id", "language", "script", "language_score", "text")
    scored = tables.load_table("intermediate.int_documents_language_scored")
    out: dict[str, dict[str, Any]] = {}
    for r in scored.scan(selected_fields=fields).to_arrow().to_pylist():
        out[bench_id[r.pop("document_id")]] = r
    filtered = tables.load_table("intermediate.int_documents_quality_filtered")
    for r in (
        filtered.scan(selected_fields=("document_id", "is_kept", "failed_rules"))
        .to_arrow()
        .to_pylist()
    ):
        row = out[bench_id[r["document_id"]]]
        row["kept"] = bool(r["is_kept"])
        row["rules"] = sorted(rule["rule"] for rule in r["failed_rules"] or ())
    ids = [d.id for d in docs if d.set in CLEAN_SETS]
    by_document = {v: k for k, v in bench_id.items()}
    for i, values in zip(ids, lakemix_signals(tables, [by_document[i] for i in ids]), strict=True):
        out[i]["signals"] = values
    missing = [d.id for d in docs if "kept" not in out.get(d.id, {})]
    if missing:
        raise SystemExit(f"{len(missing)} documents have no outcome, e.g. {missing[:3]}")
    return out


# datatrove ---------------------------------------------------------------------------------------


def fw2_config(language: str, script: str, configs: dict[str, Any]) -> str | None:
    """The FineWeb-2 config of a lid.176 language, in ``script`` when FineWeb-2 has that one."""
    config = FW2_CONFIG.get(language)
    if config is None:
        return None
    own = f"{config.split('_')[0]}_{script}"
    return own if own in configs else config


def datatrove_side(
    docs: list[Doc], lakemix: dict[str, dict[str, Any]], configs: dict[str, Any], folder: Path
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """datatrove's FineWeb-2 filters and signals on the text lakemix measured (module docstring)."""
    python = ensure_venv()
    chosen: dict[str, str | None] = {}
    with (folder / "docs.jsonl").open("wb") as f:
        for d in docs:
            lm = lakemix[d.id]
            if d.set in CLEAN_SETS or d.set == JUNK_SET:  # the config of the expected language
                config = FW2_CONFIG.get(d.label)
                tokenizer = config or TOKENIZER_ONLY.get(d.label)
            else:
                config, tokenizer = fw2_config(lm["language"], lm["script"], configs), None
            chosen[d.id] = config
            row = {"id": d.id, "text": lm["text"], "config": config, "tokenizer": tokenizer}
            f.write(orjson.dumps(row) + b"\n")
    used = {k: configs[k] for k in set(chosen.values()) if k}
    (folder / "configs.json").write_text(json.dumps(used))
    paths = [str(folder / name) for name in ("docs.jsonl", "configs.json", "out.jsonl", "t.json")]
    run([str(python), "-c", WORKER, *paths], dict(os.environ), folder / "worker.log")
    with (folder / "out.jsonl").open() as f:
        rows = {row.pop("id"): row for row in map(json.loads, f)}
    for i, config in chosen.items():
        rows[i]["config"] = config
    return rows, json.loads((folder / "t.json").read_text())


# Figures -----------------------------------------------------------------------------------------


def share(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def top(counter: Counter[str], whole: int, k: int = 2) -> str:
    """The ``k`` most common entries of ``counter`` with their share of ``whole``."""
    return ", ".join(f"{name} {share(n, whole)}" for name, n in counter.most_common(k))


def equal(a: Any, b: Any) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) < EPSILON


def outcomes(docs: list[Doc], lm: dict[str, Any], dt: dict[str, Any] | None) -> list[dict]:
    """One JSON-ready record per document: both sides' decisions, parity flags."""
    records = []
    for d in docs:
        m = lm[d.id]
        rec: dict[str, Any] = {
            "id": d.id,
            "set": d.set,
            "label": d.label,
            "chars": len(d.text),
            "lakemix": {
                "language": m["language"],
                "script": m["script"],
                "language_score": round(m["language_score"], 4),
                "kept": m["kept"],
                "rules": m["rules"],
            },
        }
        if dt is not None:
            t = dt[d.id]
            rec["datatrove"] = {k: t.get(k) for k in ("config", "tokenizer", "kept", "reason")}
            if "error" in t:
                rec["datatrove"]["error"] = t["error"]
            if "signals" in t and m.get("signals"):
                ours, theirs = m["signals"], t["signals"]
                differ = [s for s in COMPARED if not equal(ours.get(s), theirs.get(s))]
                rec["parity"] = {
                    "word_count": (ours.get("word_count"), theirs["word_count"]),
                    "differing": differ,
                }
        records.append(rec)
    return records


def retained(rec: dict[str, Any]) -> bool:
    """Kept by lakemix and identified as its expected language."""
    return bool(rec["lakemix"]["kept"]) and rec["lakemix"]["language"] == rec["label"]


def script_of(lang: str) -> str:
    return (FW2_CONFIG.get(lang) or TOKENIZER_ONLY.get(lang, "und_Zyyy")).split("_")[1]


def report_leipzig(
    records: list[dict[str, Any]], with_datatrove: bool, title: str
) -> dict[str, Any]:
    """Per-language retention table of the clean side and its summaries; returns the figures."""
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_lang[r["label"]].append(r)
    print(f"\n== clean prose: {title}, {len(by_lang)} languages, {len(records):,} documents")
    print(
        f"{'lang':<5}{'script':<7}{'FW2 config':<11}{'docs':>5} {'ident.':>7} {'other (top)':>13}"
        f" {'lakemix':>8} {'filters':>8} {'datatrove':>10}  lakemix: rules rejecting most"
        " (share of docs); datatrove: first reason"
    )
    summary: dict[str, Any] = {"languages": {}}
    for lang, recs in sorted(by_lang.items()):
        n = len(recs)
        ident = sum(r["lakemix"]["language"] == lang for r in recs)
        kept = sum(retained(r) for r in recs)
        filtered = kept / ident if ident else None
        rules = Counter(rule for r in recs for rule in r["lakemix"]["rules"])
        others = Counter(r["lakemix"]["language"] for r in recs if r["lakemix"]["language"] != lang)
        dt_cell, dt_reason, dt_kept = "-", "", None
        if with_datatrove:
            decided = [r["datatrove"] for r in recs if r["datatrove"].get("kept") is not None]
            tok = recs[0]["datatrove"].get("tokenizer") or ""
            if decided:
                dt_kept = sum(x["kept"] for x in decided) / len(decided)
                dt_cell = f"{dt_kept:.1%}"
                reasons = Counter(x["reason"] for x in decided if not x["kept"])
                dt_reason = top(reasons, len(decided), 1)
            elif not recs[0]["datatrove"].get("config"):
                dt_reason = "no FineWeb-2 config"
            else:
                dt_reason = tok[:40]
        other_cell = share(n - ident, n)
        if others:
            other_cell += f" {others.most_common(1)[0][0]}"
        print(
            f"{lang:<5}{script_of(lang):<7}{FW2_CONFIG.get(lang, '-'):<11}{n:>5}"
            f" {share(ident, n):>7} {other_cell:>13} {share(kept, n):>8}"
            f" {share(kept, ident):>8} {dt_cell:>10}"
            f"  {top(rules, n, 2) or '-'}; {dt_reason or '-'}"
        )
        summary["languages"][lang] = {
            "docs": n,
            "identified": ident / n,
            "retention": kept / n,
            "filter_retention": filtered,
            "datatrove_retention": dt_kept,
        }
    langs = summary["languages"]
    known = {k: v for k, v in langs.items() if k not in NOT_IN_LID176}
    n_all, n_known = len(records), sum(v["docs"] for v in known.values())
    kept_all = sum(retained(r) for r in records)
    kept_known = sum(retained(r) for r in records if r["label"] not in NOT_IN_LID176)
    print(
        f"\nlakemix retention: {share(kept_all, n_all)} of all {n_all:,} documents;"
        f" {share(kept_known, n_known)} of the {n_known:,} in the {len(known)} languages"
        f" lid.176 knows (goal: >= {RETENTION_GOAL:.0%} in each, none under"
        f" {RETENTION_FLOOR:.0%})"
    )
    for bound in (RETENTION_GOAL, RETENTION_FLOOR):
        under = sorted((v["retention"], k) for k, v in known.items() if v["retention"] < bound)
        cells = " ".join(f"{k} {x:.0%}" for x, k in under)
        print(f"  under {bound:.0%}: {len(under)} of {len(known)}: {cells}")
    ident_known = sum(
        r["lakemix"]["language"] == r["label"] for r in records if r["label"] in known
    )
    print(
        f"the filters alone (documents identified as their language, as the issue measures):"
        f" keep {share(kept_known, ident_known)} of {ident_known:,}"
    )
    for bound in (RETENTION_GOAL, RETENTION_FLOOR):
        under = sorted(
            (v["filter_retention"], k)
            for k, v in known.items()
            if v["filter_retention"] is not None and v["filter_retention"] < bound
        )
        cells = " ".join(f"{k} {x:.0%}" for x, k in under)
        print(f"  under {bound:.0%}: {len(under)} of {len(known)}: {cells}")
    zero = [k for k, v in langs.items() if v["retention"] == 0]
    print(f"  at 0%: {len(zero)}: {' '.join(zero)}")
    outside = " ".join(f"{k} {v['retention']:.0%}" for k, v in langs.items() if k in NOT_IN_LID176)
    if outside:
        print(f"  not in lid.176 (no goal; never identified as themselves): {outside}")
    rules = Counter(rule for r in records for rule in r["lakemix"]["rules"])
    print(f"  rules failed most (share of all documents): {top(rules, n_all, 6)}")
    summary |= {"retention": kept_all / n_all if n_all else None}
    summary["retention_lid176"] = kept_known / n_known if n_known else None
    summary["filter_retention_lid176"] = kept_known / ident_known if ident_known else None

    if with_datatrove:
        decided = [r for r in records if r["datatrove"].get("kept") is not None]
        dt_kept = sum(r["datatrove"]["kept"] for r in decided)
        skipped = sorted({r["label"] for r in records if r["datatrove"].get("kept") is None})
        reasons = Counter(r["datatrove"]["reason"] for r in decided if not r["datatrove"]["kept"])
        print(
            f"datatrove with FineWeb-2's configs (no language-score filter): keeps"
            f" {share(dt_kept, len(decided))} of {len(decided):,} documents in"
            f" {len({r['label'] for r in decided})} languages; first reasons"
            f" {top(reasons, len(decided), 5)}; not run: {' '.join(skipped)}"
        )
        lm_same = sum(retained(r) for r in decided)
        print(f"  lakemix on the same documents: {share(lm_same, len(decided))}")
        summary["datatrove_retention"] = dt_kept / len(decided) if decided else None

    print(f"\n{'script':<7}{'langs':>6}{'docs':>7} {'lakemix':>8} {'datatrove':>10}")
    scripts: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        scripts[script_of(r["label"])].append(r)
    summary["scripts"] = {}
    for script, recs in sorted(scripts.items(), key=lambda kv: -len(kv[1])):
        n = len(recs)
        kept = sum(retained(r) for r in recs)
        dt = "-"
        if with_datatrove:
            decided = [
                r["datatrove"]["kept"] for r in recs if r["datatrove"].get("kept") is not None
            ]
            dt = share(sum(decided), len(decided))
        n_langs = len({r["label"] for r in recs})
        print(f"{script:<7}{n_langs:>6}{n:>7} {share(kept, n):>8} {dt:>10}")
        summary["scripts"][script] = kept / n
    return summary


def report_parity(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per clean-side language: documents whose word count and signals equal datatrove's."""
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_lang[r["label"]].append(r)
    print(
        f"\n== signal parity, the clean documents: lakemix (int_documents_quality_scored) against"
        f" datatrove's functions with its word tokenizer of the language; {len(COMPARED)} signals"
    )
    print(
        f"{'lang':<5}{'datatrove tokenizer':<28}{'docs':>5} {'words =':>8} {'signals =':>10}"
        f" {'words lm/dt':>12}  signals differing most (share of docs)"
    )
    summary: dict[str, Any] = {}
    for lang, recs in sorted(by_lang.items()):
        tok = recs[0]["datatrove"].get("tokenizer") or "-"
        compared = [r["parity"] for r in recs if "parity" in r]
        if not compared:
            print(f"{lang:<5}{tok[:80]}")
            continue
        n = len(compared)
        same_words = sum(p["word_count"][0] == p["word_count"][1] for p in compared)
        same_all = sum(not p["differing"] for p in compared)
        differing = Counter(s for p in compared for s in p["differing"])
        ours = sum(p["word_count"][0] or 0 for p in compared)
        theirs = sum(p["word_count"][1] for p in compared)
        print(
            f"{lang:<5}{tok[:27]:<28}{n:>5} {share(same_words, n):>8} {share(same_all, n):>10}"
            f" {share(ours, theirs):>12}  {top(differing, n, 3)}"
        )
        summary[lang] = {"tokenizer": tok, "docs": n, "words": same_words / n, "all": same_all / n}
    held = sorted(k for k, v in summary.items() if v["all"] >= PARITY_GOAL)
    spacy = sorted(k for k, v in summary.items() if v["tokenizer"].startswith("SpaCyTokenizer"))
    print(
        f"parity (every signal equal on >= {PARITY_GOAL:.0%} of documents) in {len(held)} of"
        f" {len(summary)} languages: {' '.join(held)}"
    )
    print(
        f"  datatrove splits words with a spaCy blank tokenizer in {len(spacy)} of them; with"
        f" word segmenters or other splitters in"
        f" {' '.join(k for k in sorted(summary) if k not in spacy)}"
    )
    return summary


def report_junk(records: list[dict[str, Any]], with_datatrove: bool) -> dict[str, Any]:
    """Junk made of the held-out prose's words: rejected per kind and per script."""
    print(
        f"\n== junk built from the same prose ({len(records):,} documents):"
        f" rejected per kind and script (goal >= {JUNK_GOAL:.0%} in every script)"
    )
    summary: dict[str, Any] = {}
    for name in ("kind", "script"):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in records:  # ids are oscar_junk/<kind>/<lang>/<n>
            groups[r["id"].split("/")[1] if name == "kind" else script_of(r["label"])].append(r)
        print(f"{name:<16}{'docs':>6} {'lakemix':>8} {'datatrove':>10}  rules rejecting most")
        for group, recs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            rejected = sum(not r["lakemix"]["kept"] for r in recs)
            dt = "-"
            if with_datatrove:
                decided = [r["datatrove"]["kept"] for r in recs]
                decided = [kept for kept in decided if kept is not None]
                dt = share(len(decided) - sum(decided), len(decided))
            rules = Counter(rule for r in recs for rule in r["lakemix"]["rules"])
            print(
                f"{group:<16}{len(recs):>6} {share(rejected, len(recs)):>8} {dt:>10}"
                f"  {top(rules, len(recs), 2)}"
            )
            summary[f"{name}/{group}"] = rejected / len(recs)
    rejected = sum(not r["lakemix"]["kept"] for r in records)
    under = sorted(k for k, v in summary.items() if k.startswith("script/") and v < JUNK_GOAL)
    print(
        f"all: {share(rejected, len(records))} rejected; scripts under the goal:"
        f" {', '.join(under) or 'none'}"
    )
    summary["all"] = rejected / len(records) if records else None
    return summary


def report_web(records: list[dict[str, Any]], with_datatrove: bool) -> dict[str, Any]:
    """Rejection per web corpus and language label, and the HPLT Chinese pages."""
    print(
        "\n== junk rejection: web documents by corpus and corpus language label; rejected ="
        " not kept; datatrove: the FineWeb-2 config of the language lakemix identified"
    )
    print(
        f"{'corpus':<11}{'label':<10}{'docs':>5} {'lakemix':>8}  {'identified as':<22}"
        f"{'datatrove':>10} {'(docs)':>7}  rules rejecting most"
    )
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["set"], r["label"])].append(r)

    def tally(recs: list[dict[str, Any]]) -> dict[str, Any]:
        decided = [r["datatrove"].get("kept") for r in recs] if with_datatrove else []
        decided = [kept for kept in decided if kept is not None]
        return {
            "docs": len(recs),
            "rejected": sum(not r["lakemix"]["kept"] for r in recs),
            "datatrove_docs": len(decided),
            "datatrove_rejected": len(decided) - sum(decided),
        }

    def line(corpus: str, label: str, recs: list[dict[str, Any]]) -> dict[str, Any]:
        t = tally(recs)
        n = t["docs"]
        langs = Counter(r["lakemix"]["language"] for r in recs)
        rules = Counter(rule for r in recs for rule in r["lakemix"]["rules"])
        dt = share(t["datatrove_rejected"], t["datatrove_docs"]) if with_datatrove else "-"
        print(
            f"{corpus:<11}{label[:9]:<10}{n:>5} {share(t['rejected'], n):>8}"
            f"  {top(langs, n, 1):<22}{dt:>10} {t['datatrove_docs']:>7}  {top(rules, n, 2)}"
        )
        return t

    summary: dict[str, Any] = {}
    small: dict[str, list[str]] = {}
    for corpus in ("hplt", "oscar2019"):
        mine = {label: recs for (c, label), recs in groups.items() if c == corpus}
        shown = sorted(
            (k for k, v in mine.items() if len(v) >= 5), key=lambda k: (-len(mine[k]), k)
        )
        for label in shown:
            summary[f"{corpus}/{label}"] = line(corpus, label, mine[label])
        rest = sorted(k for k in mine if k not in shown)
        if rest:
            line(corpus, f"{len(rest)} more", [r for k in rest for r in mine[k]])
            small[corpus] = []
            for label in rest:
                t = summary[f"{corpus}/{label}"] = tally(mine[label])
                dt = t["datatrove_rejected"] if t["datatrove_docs"] else "-"
                small[corpus].append(f"{label} {t['rejected']}/{dt}/{t['docs']}")
        if mine:
            summary[corpus] = line(corpus, "all", [r for v in mine.values() for r in v])
    zh = [r for r in records if r["set"] == "hplt_zh"]
    if zh:
        summary["hplt_zh"] = line("hplt_zh", "zh pages", zh)
    for corpus, cells in small.items():
        print(f"{corpus}, labels with under 5 documents: rejected by lakemix/datatrove/documents")
        for k in range(0, len(cells), 8):
            print("  " + "  ".join(f"{c:<11}" for c in cells[k : k + 8]).rstrip())
    return summary


def report_compare(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Retention per language and still-rejected shares, ``old`` run against ``new``."""
    print(
        f"\n== compare: {old['label']} ({old['git']}) -> {new['label']} ({new['git']});"
        " retention = kept and identified as the language"
    )
    before = {r["id"]: r for r in old["documents"]}
    after = {r["id"]: r for r in new["documents"]}
    langs = sorted({r["label"] for r in new["documents"] if r["set"] in CLEAN_SETS})
    print(f"{'lang':<5}{'docs':>5} {'before':>7} {'after':>7} {'change':>7}")
    everything = [i for i, r in after.items() if r["set"] == "leipzig" and i in before]
    for lang in [*langs, "all"]:
        ids = [i for i, r in after.items() if r["set"] == "leipzig" and r["label"] == lang]
        common = everything if lang == "all" else [i for i in ids if i in before]
        if not common:
            print(f"{lang:<5}{len(ids):>5} {'-':>7} (not in the old run)")
            continue
        b = sum(retained(before[i]) for i in common) / len(common)
        a = sum(retained(after[i]) for i in common) / len(common)
        print(f"{lang:<5}{len(common):>5} {b:>7.1%} {a:>7.1%} {(a - b) * 100:>+6.1f}p")
    for corpus in ("hplt_zh", "hplt", "oscar2019"):
        common = [i for i, r in after.items() if r["set"] == corpus and i in before]
        was = [i for i in common if not before[i]["lakemix"]["kept"]]
        still = [i for i in was if not after[i]["lakemix"]["kept"]]
        now = sum(not after[i]["lakemix"]["kept"] for i in common)
        goal = f" (goal >= {STILL_REJECTED_GOAL:.0%})" if corpus == "hplt_zh" else ""
        print(
            f"{corpus}: {len(common)} documents; rejected before {len(was)}, after {now};"
            f" of those rejected before, still rejected {len(still)}"
            f" ({share(len(still), len(was))}){goal}"
        )
        lost = Counter(
            rule for i in was if i not in still for rule in before[i]["lakemix"]["rules"]
        )
        if lost:
            print(f"  now kept, rules they failed before: {top(lost, len(was) - len(still), 4)}")
        if corpus == "hplt_zh":
            continue
        moved = []
        for label in sorted({after[i]["label"] for i in common}):
            ids = [i for i in common if after[i]["label"] == label]
            b = sum(not before[i]["lakemix"]["kept"] for i in ids)
            a = sum(not after[i]["lakemix"]["kept"] for i in ids)
            if a != b:
                moved.append(f"{label} {b}->{a}/{len(ids)}")
        if moved:
            print(f"  labels whose rejections changed (before->after/documents): {' '.join(moved)}")


def write_result(path: Path, result: dict[str, Any]) -> None:
    """``result`` as JSON, one document a line (greppable, diffable)."""
    head = json.dumps({**result, "documents": []}, ensure_ascii=False, indent=1)
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in result["documents"])
    tail = '"documents": []\n}'
    if not head.endswith(tail):
        raise AssertionError("documents must be the last field of the result")
    path.write_text(head.removesuffix("[]\n}") + "[\n" + lines + "\n]\n}\n", encoding="utf-8")


def git_state() -> str:
    """HEAD of the checkout, with "+dirty" when it has uncommitted changes."""
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return head + ("+dirty" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--label", default="current", help="names bench/out/multilingual-<label>.json"
    )
    parser.add_argument("--languages", nargs="+", help="Leipzig folders (ISO 639-1); default all")
    parser.add_argument("--docs-per-language", type=int, help="default: all the sentences give")
    parser.add_argument("--skip-datatrove", action="store_true", help="lakemix only")
    parser.add_argument("--seed", type=int, default=0, help="packing seed")
    parser.add_argument(
        "--lines",
        choices=LINE_SELECTIONS,
        default="odd",
        help="Leipzig lines to pack (from 0): odd, the half calibration never reads (default)",
    )
    parser.add_argument(
        "--clean",
        choices=("leipzig", "oscar"),
        default="leipzig",
        help="the clean side: Leipzig (the calibration's source) or OSCAR-built prose (held out)",
    )
    parser.add_argument(
        "--model",
        help="quality model: default (the shipped one), leipzig (fit here on Leipzig alone), or"
        " a model file; default: leipzig with --clean oscar, else the project's",
    )
    parser.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    parser.add_argument("--compare", nargs="+", metavar="JSON", help="OLD.json [NEW.json]")
    args = parser.parse_args()
    if args.compare and len(args.compare) == 2:
        old, new = (json.loads(Path(p).read_text()) for p in args.compare)
        report_compare(old, new)
        return
    os.sched_setaffinity(0, {args.cpu})  # children (lakemix, dbt, datatrove) inherit it
    load = os.getloadavg()
    print(f"pinned to CPU {args.cpu}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    start = time.perf_counter()
    configs = fineweb2_configs()
    languages = args.languages or leipzig_languages()
    if args.clean == "oscar":
        docs = [d for d in oscar_documents() if not args.languages or d.label in languages]
        title = "OSCAR 2019 paragraphs that read as sentences, laid out as prose (held out)"
    else:
        docs = leipzig_documents(languages, args.seed, args.docs_per_language, args.lines)
        title = (
            f"Leipzig sentences packed into documents of {DOCUMENT_CHARS[0]:,}-"
            f"{DOCUMENT_CHARS[1]:,} characters ({args.lines} lines)"
        )
    docs += [d for d in web_documents() if not args.languages or iso639_1(d) in languages]
    counts = Counter(d.set for d in docs)
    print(f"documents: {dict(counts)} ({time.perf_counter() - start:.1f} s)")

    timing = {}
    with tempfile.TemporaryDirectory(prefix="lakemix-bench-multilingual-") as tmp:
        model = str(args.model or ("leipzig" if args.clean == "oscar" else "default"))
        model_file = None if model == "default" else Path(model)
        if model == "leipzig":
            model_file = Path(tmp) / "leipzig.lqm"
            digest = leipzig_model(model_file, args.seed)
            print(f"quality model fit on Leipzig's labels alone: sha256 {digest[:16]}")
        start = time.perf_counter()
        lm = lakemix_side(docs, Path(tmp), model_file)
        timing["lakemix (ingest, dbt seed, dbt run)"] = time.perf_counter() - start
        dt, info = None, {}
        if not args.skip_datatrove:
            start = time.perf_counter()
            dt, info = datatrove_side(docs, lm, configs, Path(tmp))
            timing["datatrove (process)"] = time.perf_counter() - start
    records = outcomes(docs, lm, dt)
    clean = [r for r in records if r["set"] in CLEAN_SETS]
    summary = {"clean": report_leipzig(clean, dt is not None, title)}
    if dt is not None:
        summary["parity"] = report_parity(clean)
    junk = [r for r in records if r["set"] == JUNK_SET]
    if junk:
        summary["junk"] = report_junk(junk, dt is not None)
    web = [r for r in records if r["set"] not in (*CLEAN_SETS, JUNK_SET)]
    summary["web"] = report_web(web, dt is not None)
    print("\n" + "; ".join(f"{k}: {v:.0f} s" for k, v in timing.items()))
    if info:
        print(f"datatrove filters and signals, inside its process: {info['seconds']:.0f} s")
    result = {
        "label": args.label,
        "git": git_state(),
        "args": {k: v for k, v in vars(args).items() if k != "compare"},
        "seconds": timing,
        "datatrove_tokenizers": info.get("tokenizers", {}),
        "summary": summary,
        "documents": records,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"multilingual-{args.label}.json"
    write_result(path, result)
    print(f"per-document outcomes: {path.relative_to(ROOT)}")
    if args.compare:
        report_compare(json.loads(Path(args.compare[0]).read_text()), result)


if __name__ == "__main__":
    main()
