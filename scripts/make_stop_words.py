"""Write seeds/stop_words.csv (language,word): the stop words of the Gopher quality filter.

Usage: .venv/bin/python scripts/make_stop_words.py

English has Gopher's eight stop words (Rae et al., 2021, as in datatrove's GopherQualityFilter).
Every other language with ``sentences.txt`` under ../shared/corpora/langid/lingua_leipzig/<code>/
gets its eight most frequent words in those sentences, the way FineWeb-2 derived stop words per
language from word frequencies. Words are split as ``lakemix.udf.quality.split_words`` splits
them, lower-cased, and count only if they contain a letter (punctuation and numbers are not
words here); ties are broken alphabetically. A word must occur at least once per hundred
sentences (``MIN_PER_SENTENCE``): in languages written without spaces (Chinese, Japanese) this
splitting finds no recurring words, so they get no stop words, and their stop-word count is
NULL rather than a count of meaningless words. The output is deterministic: rows sorted by
language, then by rank.
"""

from __future__ import annotations

import csv
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora"))
SEED = ROOT / "seeds" / "stop_words.csv"
GOPHER_STOP_WORDS = ("the", "be", "to", "of", "and", "that", "have", "with")
PER_LANGUAGE = 8
MIN_PER_SENTENCE = 0.01


def most_frequent_words(sentences: list[str], k: int = PER_LANGUAGE) -> list[str]:
    """The k most frequent lower-cased words with a letter; ties broken alphabetically.

    Words occurring fewer than ``MIN_PER_SENTENCE * len(sentences)`` times are left out.
    """
    sys.path.insert(0, str(ROOT / "python"))
    from lakemix.udf.quality import split_words

    counts: Counter[str] = Counter()
    for sentence in sentences:
        counts.update(w.lower() for w in split_words(sentence) if any(c.isalpha() for c in w))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [w for w, n in ranked if n >= MIN_PER_SENTENCE * len(sentences)]


def main() -> None:
    root = CORPORA / "langid" / "lingua_leipzig"
    rows = [("en", word) for word in GOPHER_STOP_WORDS]
    for folder in sorted(p for p in root.iterdir() if (p / "sentences.txt").is_file()):
        if folder.name == "en":
            continue
        lines = (folder / "sentences.txt").read_text(encoding="utf-8").split("\n")
        rows.extend((folder.name, word) for word in most_frequent_words([s for s in lines if s]))
    rows.sort(key=lambda row: row[0])  # stable: keeps each language's rank order
    with SEED.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(("language", "word"))
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows for {len({r[0] for r in rows})} languages to {SEED}")


if __name__ == "__main__":
    main()
