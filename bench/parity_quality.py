"""bench/parity_quality: lakemix's quality signals vs datatrove's filters, decision by decision.

Usage: .venv/bin/python bench/parity_quality.py [--repeat 3] [--examples 2]

The documents are the web samples of ../shared/corpora/web (dolma_cc2019, dolma_cc_en_head,
oscar2201, oscar2019, hplt sample100), dumped once to bench/out/parity_documents.jsonl. The
reference runs in its own virtual environment, bench/out/venv-datatrove (created on first run
with the pins of bench/_datatrove.py; spaCy's blank English tokenizer ships inside spaCy,
nothing is downloaded): GopherQualityFilter, GopherRepetitionFilter, C4QualityFilter as
FineWeb ran it (filter_no_terminal_punct=False) and FineWebQualityFilter, with the thresholds of
the seed's '*' rows, all with datatrove's default (English) word tokenizer and stop words.
lakemix's side is ``quality_signals`` + ``stop_word_count`` (English stop words of
seeds/stop_words.csv) compared with the same seed rows.

Printed: per filter, agreement of the keep/drop decision on English documents (the language of
the record, else lakemix's language identification) and on all documents; each disagreement
class (datatrove's reason vs the lakemix rules that fail) with examples and the signal values
on both sides; the mean absolute difference per signal (datatrove's values recomputed with its
own functions); agreement of the word lists themselves, on these documents, on the Leipzig
sentences and words (75 languages) and on 100,000 random strings made to trip the tokenizer;
docs/s of both on one core.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import zstandard

from _datatrove import FILTERS, SEED, ensure_venv, thresholds

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
OUT = ROOT / "bench" / "out"
DOCUMENTS = OUT / "parity_documents.jsonl"
FAMILIES = ("gopher_quality", "gopher_repetition", "c4", "fineweb")
# datatrove's reason -> the seed rule it applies
REASONS = {
    "gopher_short_doc": "gopher_min_words",
    "gopher_long_doc": "gopher_max_words",
    "gopher_below_avg_threshold": "gopher_min_mean_word_length",
    "gopher_above_avg_threshold": "gopher_max_mean_word_length",
    "gopher_too_many_hashes": "gopher_max_hash_word_ratio",
    "gopher_too_many_ellipsis": "gopher_max_ellipsis_word_ratio",
    "gopher_too_many_bullets": "gopher_max_bullet_line_fraction",
    "gopher_too_many_end_ellipsis": "gopher_max_ellipsis_line_fraction",
    "gopher_below_alpha_threshold": "gopher_min_alpha_word_fraction",
    "gopher_enough_stop_words": "gopher_min_stop_words",
    "dup_para_frac": "gopher_max_duplicate_paragraph_fraction",
    "dup_para_char_frac": "gopher_max_duplicate_paragraph_char_fraction",
    "dup_line_frac": "gopher_max_duplicate_line_fraction",
    "dup_line_char_frac": "gopher_max_duplicate_line_char_fraction",
    **{f"top_{n}_gram": f"gopher_max_top_{n}gram_char_fraction" for n in (2, 3, 4)},
    **{
        f"duplicated_{n}_n_grams": f"gopher_max_duplicated_{n}gram_char_fraction"
        for n in range(5, 11)
    },
    "lorem_ipsum": "c4_no_lorem_ipsum",
    "curly_bracket": "c4_no_curly_bracket",
    "too_few_sentences": "c4_min_sentences",
    "line_punct_ratio": "fineweb_min_line_punct_fraction",
    "short_line_ratio": "fineweb_max_short_line_fraction",
    "char_dup_ratio": "fineweb_max_duplicate_line_char_ratio",
    "list_ratio": "fineweb_max_newline_word_ratio",
}

# Runs in bench/out/venv-datatrove: argv = documents.jsonl thresholds.json out.jsonl [tokens.jsonl]
WORKER = (
    r"""
import json, os, re, sys, time
import numpy as np
from datatrove.data import Document
from datatrove.pipeline.filters import (
    C4QualityFilter, FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter)
from datatrove.pipeline.filters.c4_filters import CITATION_REGEX, POLICY_SUBSTRINGS
from datatrove.pipeline.filters.gopher_quality_filter import STOP_WORDS
from datatrove.pipeline.filters.gopher_repetition_filter import (
    find_all_duplicate, find_duplicates, find_top_duplicate, get_n_grams)
from datatrove.utils.text import PUNCTUATION_SET, split_into_sentences, split_into_words

os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
docs_path, thresholds_path, out_path = sys.argv[1:4]
tokens_path = sys.argv[4] if len(sys.argv) > 4 else None
t = json.load(open(thresholds_path))
assert t["hash_word_ratio"] == t["ellipsis_word_ratio"], "datatrove has one symbol ratio"
"""
    + FILTERS
    + r"""docs = [json.loads(line) for line in open(docs_path)]

def decide(f, doc):
    r = f.filter(Document(text=doc["text"], id=doc["id"]))
    return ("keep", "") if r is True else ("drop", r[1] if isinstance(r, tuple) else "")

def ratio(a, b):
    return a / b if b else 0.0

def values(text):
    words = split_into_words(text)
    n = len(words)
    content = [w for w in words if any(ch not in PUNCTUATION_SET for ch in w)]
    lines = text.splitlines()
    v = {
        "word_count": len(content),
        "mean_word_length": float(np.mean([len(w) for w in content])) if content else 0.0,
        "hash_word_ratio": ratio(text.count("#"), n),
        "ellipsis_word_ratio": ratio(text.count("...") + text.count("\u2026"), n),
        "bullet_line_fraction": ratio(
            sum(s.lstrip().startswith(("\u2022", "-")) for s in lines), len(lines)),
        "ellipsis_line_fraction": ratio(
            sum(s.rstrip().endswith(("...", "\u2026")) for s in lines), len(lines)),
        "alpha_word_fraction": ratio(sum(any(c.isalpha() for c in w) for w in words), n),
        "stop_word_count": len(set(STOP_WORDS) & set(words)),
    }
    paragraphs = re.split(r"\n{2,}", text.strip())
    dups, chars = find_duplicates(paragraphs)
    v["duplicate_paragraph_fraction"] = dups / len(paragraphs)
    v["duplicate_paragraph_char_fraction"] = ratio(chars, len(text))
    rlines = re.split("\n+", text)
    dups, chars = find_duplicates(rlines)
    v["duplicate_line_fraction"] = dups / len(rlines)
    v["duplicate_line_char_fraction"] = ratio(chars, len(text))
    for g in (2, 3, 4):
        grams = get_n_grams(words, g)
        top = find_top_duplicate(grams) if grams else 0
        v[f"top_{g}gram_char_fraction"] = ratio(top, len(text))
    for g in range(5, 11):
        v[f"duplicated_{g}gram_char_fraction"] = ratio(find_all_duplicate(words, g), len(text))
    lorem = curly = sentences = 0
    for line in lines:
        line = line.strip()
        ws = line.split()
        if any(len(w) > 1000 for w in ws):
            continue
        line = CITATION_REGEX.sub("", line)
        if len(ws) < 3:
            continue
        low = line.lower()
        lorem |= "lorem ipsum" in low
        if "javascript" in low:
            continue
        if "{" in line:
            curly = 1
            continue
        if any(p in low for p in POLICY_SUBSTRINGS):
            continue
        sentences += len(split_into_sentences(line))
    v["c4_has_lorem_ipsum"], v["c4_has_curly_bracket"] = lorem, curly
    v["c4_sentence_count"] = sentences
    fl = [line for line in text.split("\n") if line.strip() != ""]
    stops = filters["fineweb"].stop_chars
    v["line_punct_fraction"] = ratio(sum(1 for line in fl if line.endswith(stops)), len(fl))
    v["short_line_fraction"] = ratio(sum(1 for line in fl if len(line) <= 30), len(fl))
    v["fineweb_duplicate_line_char_ratio"] = (
        find_duplicates(fl)[1] / len(text.replace("\n", "")) if fl else 0.0)
    v["newline_word_ratio"] = ratio(text.count("\n"), n)
    return v, words

for doc in docs[:50]:  # warm spaCy's caches
    for f in filters.values():
        decide(f, doc)
with open(out_path, "w") as out, open(tokens_path or os.devnull, "w") as tok:
    for doc in docs:
        row = {"id": doc["id"]}
        for name, f in filters.items():
            row[name], row[name + "_reason"] = decide(f, doc)
        row["values"], words = values(doc["text"])
        out.write(json.dumps(row) + "\n")
        tok.write(json.dumps({"id": doc["id"], "words": words}) + "\n")
timing = {}
for name, f in filters.items():
    start = time.perf_counter()
    for doc in docs:
        decide(f, doc)
    timing[name] = time.perf_counter() - start
start = time.perf_counter()
for doc in docs:
    for f in filters.values():
        decide(f, doc)
timing["pipeline"] = time.perf_counter() - start
print(json.dumps(timing))
"""
)


# Runs in bench/out/venv-datatrove: argv = a JSON list of strings; prints their word lists.
WORDS_WORKER = r"""
import json, sys
from datatrove.utils.text import split_into_words
print(json.dumps([split_into_words(t) for t in json.load(open(sys.argv[1]))]))
"""


def fuzz_strings(n: int = 100_000, seed: int = 0) -> list[str]:
    """Random strings of 1-30 pieces: punctuation, letters of several scripts, whitespace and
    spaCy exceptions, to find what real text has not shown."""
    pieces = list("aAbBcdeEghiIlmMnNoOprsStTuUvxXyz0123456789.,;:!?'\"()[]{}<>-_/\\#$%&*+=@^~`|")
    pieces += list("\u2013\u2014\u2026\u00ab\u00bb\u2019\u2018\u201c\u201d\u00b2\u00b0\u00a7")
    pieces += [" ", " ", "  ", "\t", "\n", "\xa0", "\u3000", "\u00df", "\u00e9", "\u0416"]
    pieces += ["\u0436", "\u03b1", "\u4e2d", "\u0627", "\u0905", "\u0bbf", "\u0561", "\u04a1"]
    pieces += ["\U0001f600", "\U0001f389", "\u20ac"]
    pieces += [
        "n't",
        "'s",
        "'ll",
        "'re",
        "'ve",
        "'d",
        "'m",
        "Mr.",
        "e.g.",
        "http://",
        "https://",
        "www.",
        ".com",
        ".org/",
        "km",
        "kg",
        "US$",
    ]
    pieces += [
        ":)",
        ":(",
        ";)",
        ":-)",
        "(:",
        "):",
        "''",
        "a.m.",
        "p.m.",
        "10am",
        "don't",
        "can't",
        "St.",
        "i.e.",
        "gonna",
        "Im",
        "dont",
    ]
    pieces += [
        "xx@yy.zz",
        ":8080",
        "?q=",
        "#frag",
        "C++",
        "and/or",
        "<3",
        "^_^",
        "o.O",
        "..",
        "...",
        "....",
        "1,000",
        "3.14",
        "-5",
    ]
    pieces += [
        "+1",
        "N.Y.",
        "Ph.D.",
        "Inc.",
        "y'all",
        "c'mon",
        "o'clock",
        "'em",
        "'cause",
        "ma'am",
        "°C",
        "°F.",
    ]
    rng = random.Random(seed)
    return ["".join(rng.choices(pieces, k=rng.randint(1, 30))) for _ in range(n)]


def leipzig_strings() -> list[str]:
    """Every line of the Leipzig sentences, word pairs and single words (75 languages)."""
    root = CORPORA / "langid" / "lingua_leipzig"
    return [
        line
        for folder in sorted(p for p in root.iterdir() if p.is_dir())
        for name in ("sentences.txt", "word-pairs.txt", "single-words.txt")
        if (folder / name).is_file()
        for line in (folder / name).read_text(encoding="utf-8").split("\n")
        if line
    ]


def _jsonl(raw: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in raw.splitlines() if line.strip()]


def load_documents() -> list[dict[str, Any]]:
    """id, source, record language (None when the record has none) and text of each document."""
    web = CORPORA / "web"
    docs: list[dict[str, Any]] = []
    for path in sorted((web / "dolma_cc2019").glob("*.jsonl.gz")):
        for r in _jsonl(gzip.decompress(path.read_bytes())):
            docs.append({"id": r["id"], "source": "dolma_cc2019", "lang": None, "text": r["text"]})
    for path in sorted((web / "dolma_cc_en_head").glob("*.jsonl")):
        for r in _jsonl(path.read_bytes()):
            lang = r.get("metadata", {}).get("language", "en")
            docs.append(
                {"id": r["id"], "source": "dolma_cc_en_head", "lang": lang, "text": r["text"]}
            )
    for i, r in enumerate(_jsonl((web / "oscar2201" / "data.jsonl").read_bytes())):
        lang = (r.get("metadata", {}).get("identification") or {}).get("label")
        docs.append(
            {"id": f"oscar2201-{i}", "source": "oscar2201", "lang": lang, "text": r["content"]}
        )
    for path in sorted((web / "oscar2019").glob("*.txt.gz")):
        lang = path.name.removesuffix(".txt.gz").rsplit("_", 1)[1]
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
        parts = [p for p in text.split("\n\n") if p.strip()]
        for i, part in enumerate(parts):
            docs.append(
                {"id": f"{path.name}-{i}", "source": "oscar2019", "lang": lang, "text": part}
            )
    for path in sorted((web / "hplt_warc2text").glob("sample100_*.jsonl.zst")):
        raw = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(path.read_bytes())).read()
        for i, line in enumerate(raw.splitlines()):
            r = json.loads(line.decode("utf-8", "replace"))
            if r.get("t") is None:
                continue
            lang = (r.get("lang") or "").split("_")[0] or None
            lang = {"eng": "en"}.get(lang, lang) if lang else None
            docs.append({"id": f"{path.name}-{i}", "source": "hplt", "lang": lang, "text": r["t"]})
    return docs


def seed_rules() -> dict[str, list[tuple[str, str, str, float]]]:
    rules: dict[str, list[tuple[str, str, str, float]]] = defaultdict(list)
    with SEED.open() as f:
        for row in csv.DictReader(f):
            if row["language"] == "*" and row["family"] in FAMILIES:
                rule = (row["rule"], row["signal"], row["operator"], float(row["threshold"]))
                rules[row["family"]].append(rule)
    return rules


def cells(agree: list[int], english: list[bool]) -> str:
    """'agreeing/English = %' and 'agreeing/all = %', right-aligned in two columns."""
    n_en = sum(english)
    en = f"{agree[0]}/{n_en} = {agree[0] / max(n_en, 1):.2%}"
    return f"{en:>22} {f'{agree[1]}/{len(english)} = {agree[1] / len(english):.2%}':>22}"


def failing(values: dict[str, float], rules: list[tuple[str, str, str, float]]) -> list[str]:
    ok = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}
    return [rule for rule, signal, op, thr in rules if not ok[op](values[signal], thr)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (best taken)")
    parser.add_argument("--examples", type=int, default=2, help="examples per disagreement class")
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sys.path.insert(0, str(ROOT / "python"))
    from lakemix.udf.quality import (
        SIGNALS,
        quality_signals,
        seed_stop_words,
        split_words,
        stop_word_count,
    )

    python = ensure_venv()
    docs = load_documents()
    OUT.mkdir(parents=True, exist_ok=True)
    with DOCUMENTS.open("wb") as f:
        for d in docs:
            f.write(orjson.dumps({"id": d["id"], "text": d["text"]}) + b"\n")
    (OUT / "parity_thresholds.json").write_text(json.dumps(thresholds()))

    texts = pa.array([d["text"] for d in docs], pa.large_string())
    try:
        from lakemix.udf.langid import identify_language

        detected = identify_language(texts).field("language").to_pylist()
    except Exception as e:  # the language model is optional here
        print(f"(no language identification: {e}; records without a language are not English)")
        detected = [None] * len(docs)
    english = [(d["lang"] or det) in ("en", "eng") for d, det in zip(docs, detected, strict=True)]

    print(
        f"{len(docs)} documents ({sum(english)} English), {sum(map(len, texts.to_pylist()))} chars"
    )
    start = time.perf_counter()
    reference_out = OUT / "parity_datatrove.jsonl"
    tokens_out = OUT / "parity_datatrove_words.jsonl"
    run = subprocess.run(
        [
            *(str(python), "-c", WORKER, str(DOCUMENTS), str(OUT / "parity_thresholds.json")),
            *(str(reference_out), str(tokens_out)),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    dt_timing = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"datatrove run: {time.perf_counter() - start:.0f} s")
    reference = [json.loads(line) for line in reference_out.open()]
    dt_words = [json.loads(line)["words"] for line in tokens_out.open()]

    # lakemix: warm up (compile or load the cache), then time
    start = time.perf_counter()
    quality_signals(pa.array(["warm up."]))
    warm = time.perf_counter() - start
    english_words = {"en": seed_stop_words()["en"]}
    en = pa.array(["en"] * len(docs))
    best = best_stop = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        signals = quality_signals(texts)
        best = min(best, time.perf_counter() - start)
        start = time.perf_counter()
        stops = stop_word_count(texts, en, english_words)
        best_stop = min(best_stop, time.perf_counter() - start)
    rows = signals.to_pylist()
    for row, count in zip(rows, stops.to_pylist(), strict=True):
        row["stop_word_count"] = count

    rules = seed_rules()
    print("\n== keep/drop agreement (lakemix signals + seed thresholds vs datatrove filters)")
    print(f"{'filter':<18} {'English':>22} {'all':>22}")
    classes: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    examples: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for family in FAMILIES:
        agree = [0, 0]
        for i, (row, ref) in enumerate(zip(rows, reference, strict=True)):
            fails = failing(row, rules[family])
            ours = "drop" if fails else "keep"
            same = ours == ref[family]
            agree[0] += same and english[i]
            agree[1] += same
            if not same:
                theirs = ref[family] + (
                    f" ({REASONS.get(ref[family + '_reason'], ref[family + '_reason'])})"
                    if ref[family] == "drop"
                    else ""
                )
                key = (theirs, ours + (f" ({', '.join(fails)})" if fails else ""))
                classes[family][key] += 1
                examples[(family, *key)].append(i)
        print(f"{family:<18} {cells(agree, english)}")

    # The two known classes, taken out: what agreement is left?
    gopher_words = {"the", "be", "to", "of", "and", "that", "have", "with"}
    as_datatrove = [
        {**row, "stop_word_count": len(gopher_words & set(split_words(d["text"])))}
        for row, d in zip(rows, docs, strict=True)
    ]
    agree = [0, 0]
    for i, (row, ref) in enumerate(zip(as_datatrove, reference, strict=True)):
        same = ("drop" if failing(row, rules["gopher_quality"]) else "keep") == ref[
            "gopher_quality"
        ]
        agree[0] += same and english[i]
        agree[1] += same
    print(f"{'gopher_quality *':<18} {cells(agree, english)}")
    agree = [0, 0]
    for i, (row, ref) in enumerate(zip(rows, reference, strict=True)):
        ours = "drop" if failing(row, rules["gopher_repetition"]) or not docs[i]["text"] else "keep"
        agree[0] += ours == ref["gopher_repetition"] and english[i]
        agree[1] += ours == ref["gopher_repetition"]
    print(f"{'gopher_repetition *':<18} {cells(agree, english)}")
    print(
        "* gopher_quality with datatrove's stop-word rule (distinct stop words, case-sensitive)"
        " on lakemix's words;\n  gopher_repetition with empty texts dropped, as datatrove does"
    )

    print("\n== disagreement classes: datatrove -> lakemix: count [English] (examples)")
    signal_of = {rule: signal for family in rules.values() for rule, signal, _, _ in family}
    for family in FAMILIES:
        for (theirs, ours), count in classes[family].most_common():
            idx = examples[(family, theirs, ours)]
            n_en = sum(english[i] for i in idx)
            print(f"{family}: datatrove {theirs} -> lakemix {ours}: {count} [{n_en}]")
            involved = {
                signal_of[r]
                for side in (theirs, ours)
                for r in side.split("(")[-1].rstrip(")").split(", ")
                if r in signal_of
            }
            for i in idx[: args.examples]:
                ref_values = reference[i]["values"]
                shown = ", ".join(
                    f"{s} {rows[i][s]:.4g} vs {ref_values[s]:.4g}" for s in sorted(involved)
                )
                print(f"    {docs[i]['id'][:60]} ({docs[i]['source']}): {shown}")

    print("\n== signals: mean |lakemix - datatrove| (English / all), share equal within 1e-9")
    names = [name for name, _ in SIGNALS] + ["stop_word_count"]
    for name in names:
        diff = np.array(
            [abs(r[name] - ref["values"][name]) for r, ref in zip(rows, reference, strict=True)]
        )
        en_diff = diff[np.array(english)]
        note = " (lakemix: occurrences, lower-cased; datatrove: distinct)" if "stop" in name else ""
        print(
            f"{name:<36} {en_diff.mean():10.4g} {diff.mean():10.4g}"
            f" {np.mean(diff < 1e-9):8.1%}{note}"
        )

    same_words = [split_words(d["text"]) == w for d, w in zip(docs, dt_words, strict=True)]
    total = sum(map(len, dt_words))
    differing = sum(
        sum((Counter(w) - Counter(split_words(d["text"]))).values())
        for d, w in zip(docs, dt_words, strict=True)
    )
    print(
        f"\n== words: identical word lists in {np.mean(np.array(same_words)[english]):.1%} of"
        f" English and {np.mean(same_words):.1%} of all documents; {differing} of {total}"
        f" datatrove words ({differing / max(total, 1):.3%}) not matched by lakemix's"
    )
    strings = leipzig_strings()
    (OUT / "parity_leipzig.json").write_text(json.dumps(strings))
    run = subprocess.run(
        [str(python), "-c", WORDS_WORKER, str(OUT / "parity_leipzig.json")],
        check=True,
        capture_output=True,
        text=True,
    )
    reference_words = json.loads(run.stdout)
    same = [split_words(t) == w for t, w in zip(strings, reference_words, strict=True)]
    print(
        f"   Leipzig sentences, word pairs and words ({len(strings):,} strings, 75 languages):"
        f" identical word lists for {sum(same):,} ({np.mean(same):.3%})"
    )
    strings = fuzz_strings()
    (OUT / "parity_fuzz.json").write_text(json.dumps(strings))
    run = subprocess.run(
        [str(python), "-c", WORDS_WORKER, str(OUT / "parity_fuzz.json")],
        check=True,
        capture_output=True,
        text=True,
    )
    pairs = zip(strings, json.loads(run.stdout), strict=True)
    different = [(t, w) for t, w in pairs if split_words(t) != w]
    print(
        f"   random strings of punctuation, letters and tokenizer exceptions ({len(strings):,}):"
        f" identical word lists for {len(strings) - len(different):,}"
        f" ({1 - len(different) / len(strings):.3%})"
    )
    for text, words in different[: args.examples]:
        print(f"    {text!r}: datatrove {words}, lakemix {split_words(text)}")

    n = len(docs)
    typical = [i for i, d in enumerate(docs) if d["source"] == "dolma_cc2019"]
    typical_texts = texts.take(pa.array(typical))
    best_typical = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        quality_signals(typical_texts)
        best_typical = min(best_typical, time.perf_counter() - start)
    print("\n== speed, one core (docs/s)")
    print(f"lakemix quality_signals            {n / best:10,.0f}")
    print(
        f"lakemix quality_signals, dolma_cc2019 only ({len(typical)} docs, typical web pages)"
        f" {len(typical) / best_typical:,.0f}"
    )
    print(f"lakemix stop_word_count            {n / best_stop:10,.0f}")
    print(f"lakemix both                       {n / (best + best_stop):10,.0f}")
    for name in (*FAMILIES, "pipeline"):
        label = "datatrove four filters in sequence" if name == "pipeline" else f"datatrove {name}"
        print(f"{label:<34} {n / dt_timing[name]:10,.0f}")
    print(f"(lakemix first call in this process, kernels from numba's cache: {warm:.2f} s)")


if __name__ == "__main__":
    main()
