"""bench/_datatrove: datatrove as the benchmarks' reference, in its own virtual environment.

datatrove must not go into the project's environment, so the benchmarks run it in
bench/out/venv-datatrove, created on first use with the pins below (spaCy's blank tokenizers
ship inside spaCy, the word segmenters datatrove assigns to other languages inside their
wheels; nothing is downloaded: stanza and botok, which download models, are left out).
``FILTERS`` is the code, run in that environment, that builds datatrove's four quality filters
with the thresholds of the seed's '*' rows, C4 as FineWeb ran it (filter_no_terminal_punct=False).
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "bench" / "out" / "venv-datatrove"
SEED = ROOT / "seeds" / "quality_thresholds.csv"
# pip resolved these for datatrove[processing]==0.10.1 and spacy==3.8.18 on Python 3.11.
PINS = [
    "datatrove[processing]==0.10.1",
    "spacy==3.8.18",
    "annotated-doc==0.0.7",
    "annotated-types==0.8.0",
    "anyio==4.16.0",
    "babel==2.19.0",
    "blis==1.3.4",
    "catalogue==2.0.10",
    "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3",
    "click==8.5.1",
    "cloudpathlib==0.26.0",
    "cloudpickle==3.1.3",
    "confection==1.3.4",
    "courlan==1.4.0",
    "cymem==2.0.16",
    "dateparser==1.5.0",
    "defusedxml==0.7.1",
    "dill==0.4.1",
    "fasteners==0.20",
    "fasttext-numpy2-wheel==0.9.2",
    "filelock==4.3.1",
    "fsspec==2026.9.0",
    "ftfy==6.3.1",
    "h11==0.16.0",
    "hf-xet==1.8.0",
    "htmldate==1.11.0",
    "httpcore==1.0.9",
    "httpcore2==2.16.2",
    "httpx==0.29.0",
    "httpx2==2.16.2",
    "huggingface_hub==2.4.0",
    "humanize==4.17.0",
    "idna==3.20",
    "inscriptis==2.7.6",
    "Jinja2==3.1.6",
    "joblib==1.6.0",
    "jusText==3.0.2",
    "loguru==0.7.3",
    "lxml==6.1.3",
    "markdown-it-py==4.3.0",
    "MarkupSafe==3.0.4",
    "mdurl==0.1.2",
    "multiprocess==0.70.19",
    "murmurhash==1.0.16",
    "nltk==3.10.4",
    "numpy==2.4.6",
    "packaging==26.4",
    "preshed==3.0.15",
    "pyahocorasick==2.3.1",
    "pybind11==3.1.0",
    "pydantic==2.14.4",
    "pydantic_core==2.50.5",
    "Pygments==2.21.0",
    "python-dateutil==4.0.0",
    "pytz==2026.6",
    "PyYAML==6.0.4",
    "regex==2026.11.19",
    "requests==2.34.2",
    "requests-file==3.0.1",
    "rich==15.0.0",
    "shellingham==1.5.4",
    "smart_open==9.0.4",
    "spacy-legacy==3.0.12",
    "spacy-loggers==1.0.5",
    "srsly==2.5.6",
    "thinc==8.3.14",
    "tld==0.13.2",
    "tldextract==5.4.0",
    "tokenizers==0.23.3",
    "tqdm==4.70.1",
    "trafilatura==1.11.0",
    "truststore==0.10.5",
    "typer==0.29.2",
    "typing-inspection==0.4.5",
    "typing_extensions==4.16.0",
    "tzdata==2026.6",
    "tzlocal==5.4.5",
    "urllib3==2.8.0",
    "wasabi==1.1.3",
    "wcwidth==0.9.4",
    "weasel==1.0.1",
    "wrapt==2.5.2",
    "xxhash==3.8.2",
    # datatrove's per-language word tokenizers (bench/multilingual.py), all offline: jieba (zh),
    # SudachiPy + sudachidict-core (ja, through spaCy), kiwipiepy (ko: 0.20.4 is the last whose
    # model ships the skip-bigram files datatrove's KiwiTokenizer(model_type="sbg") opens),
    # pythainlp (th), khmer-nltk (km), laonlp (lo), pyidaungsu-numpy2 (my), pyvi (vi),
    # indic-nlp-library (Indic scripts); then what pip resolved for them (pip freeze).
    "alabaster==1.0.0",
    "docutils==0.22.4",
    "emoji==2.16.0",
    "imagesize==2.0.1",
    "indic-nlp-library==0.92",
    "jieba==0.42.1",
    "khmer-nltk==1.6",
    "kiwipiepy==0.20.4",
    "kiwipiepy_model==0.20.0",
    "LaoNLP==1.3.0",
    "Morfessor==2.0.6",
    "narwhals==2.29.0",
    "pandas==3.1.1",
    "pyidaungsu-numpy2==0.1.4",
    "pythainlp==5.4.0",
    "python-crfsuite==0.9.12",
    "pyvi==0.1.1",
    "roman-numerals==4.1.0",
    "scikit-learn==1.9.1",
    "scipy==1.17.1",
    "sklearn-crfsuite==0.5.0",
    "snowballstemmer==3.1.1",
    "sphinx-argparse==0.6.1",
    "Sphinx==9.0.4",
    "sphinx_rtd_theme==3.1.0",
    "sphinxcontrib-applehelp==2.0.0",
    "sphinxcontrib-devhelp==2.0.0",
    "sphinxcontrib-htmlhelp==2.1.0",
    "sphinxcontrib-jquery==4.1",
    "sphinxcontrib-jsmath==2.0.0",
    "sphinxcontrib-qthelp==2.0.0",
    "sphinxcontrib-serializinghtml==2.0.0",
    "sudachidict-core==20261015",
    "SudachiPy==0.7.0",
    "tabulate==0.10.0",
    "threadpoolctl==3.8.0",
]

# Code for the reference's environment: the imports of the four quality filters, and ``t`` read
# from the JSON file named by the second argument (bench/out/.../thresholds.json).
FILTER_IMPORTS = """\
import json, sys, time
from datatrove.pipeline.filters import (
    C4QualityFilter, FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter)
t = json.load(open(sys.argv[2]))
"""

# Code for the reference's environment. Needs ``t`` (the dict of :func:`thresholds`) and
# GopherQualityFilter, GopherRepetitionFilter, C4QualityFilter and FineWebQualityFilter imported
# from datatrove.pipeline.filters; defines ``filters``, family name -> filter.
FILTERS = """\
filters = {
    "gopher_quality": GopherQualityFilter(
        min_doc_words=t["word_count>="], max_doc_words=t["word_count<="],
        min_avg_word_length=t["mean_word_length>="], max_avg_word_length=t["mean_word_length<="],
        max_symbol_word_ratio=t["hash_word_ratio"],
        max_bullet_lines_ratio=t["bullet_line_fraction"],
        max_ellipsis_lines_ratio=t["ellipsis_line_fraction"],
        max_non_alpha_words_ratio=t["alpha_word_fraction"], min_stop_words=t["stop_word_count"]),
    "gopher_repetition": GopherRepetitionFilter(
        dup_line_frac=t["duplicate_line_fraction"], dup_para_frac=t["duplicate_paragraph_fraction"],
        dup_line_char_frac=t["duplicate_line_char_fraction"],
        dup_para_char_frac=t["duplicate_paragraph_char_fraction"],
        top_n_grams=tuple((n, t[f"top_{n}gram_char_fraction"]) for n in (2, 3, 4)),
        dup_n_grams=tuple((n, t[f"duplicated_{n}gram_char_fraction"]) for n in range(5, 11))),
    "c4": C4QualityFilter(filter_no_terminal_punct=False, min_num_sentences=t["c4_sentence_count"]),
    "fineweb": FineWebQualityFilter(
        line_punct_thr=t["line_punct_fraction"], short_line_thr=t["short_line_fraction"],
        char_duplicates_ratio=t["fineweb_duplicate_line_char_ratio"],
        new_line_ratio=t["newline_word_ratio"]),
}
"""


def ensure_venv() -> Path:
    """bench/out/venv-datatrove with PINS, created once (a marker file records the pins)."""
    python = VENV / "bin" / "python"
    marker = VENV / "lakemix-pins.txt"
    if python.is_file() and marker.is_file() and marker.read_text().split() == PINS:
        return python
    print(f"creating {VENV} (datatrove, spaCy, word segmenters) ...", flush=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *PINS], check=True)
    marker.write_text("\n".join(PINS) + "\n")
    return python


def thresholds() -> dict[str, float]:
    """The seed's '*' thresholds keyed by signal (and signal+operator where both bounds exist)."""
    out: dict[str, float] = {}
    with SEED.open() as f:
        for row in csv.DictReader(f):
            if row["language"] == "*":
                out[row["signal"]] = out[row["signal"] + row["operator"]] = float(row["threshold"])
    return out
