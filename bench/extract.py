"""Main-text extraction: accuracy and pages per CPU second of lakemix's extractors beside
trafilatura and resiliparse called as their authors document, on the same pages, in one run.

Pages: ../shared/corpora/html/trafilatura_eval (real pages; ``evaldata.json`` lists for each
the strings its authors expect in the main text and those they expect left out). No extractor
was fit on them. Scores are trafilatura's own evaluation: a "with" string found is a true
positive, missing a false negative; a "without" string found a false positive, missing a true
negative; precision, recall and F1 over all pages. Time is CPU time of the extraction alone
(pages decoded beforehand), one process.

    .venv/bin/python bench/extract.py [--pages N] [--extractors a,b]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lakemix.ingest.pages import decode_payload
from lakemix.udf import extract

EVAL = (
    Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "html" / "trafilatura_eval"
)
_SPACE = re.compile(r"\s+")


@dataclass
class Score:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    cpu: float = 0.0
    pages: int = 0

    def line(self, name: str) -> str:
        precision = self.tp / max(1, self.tp + self.fp)
        recall = self.tp / max(1, self.tp + self.fn)
        f1 = 2 * precision * recall / max(1e-9, precision + recall)
        accuracy = (self.tp + self.tn) / max(1, self.tp + self.tn + self.fp + self.fn)
        rate = self.pages / max(1e-9, self.cpu)
        return f"{name:<24} {precision:9.3f} {recall:7.3f} {f1:6.3f} {accuracy:9.3f} {rate:12,.0f}"


def pages(limit: int | None) -> list[tuple[str, list[str], list[str]]]:
    """(html, with, without) of the evaluated pages, in file-name order."""
    data = json.loads((EVAL / "evaldata.json").read_text())
    out = []
    for _url, entry in sorted(data.items(), key=lambda kv: kv[1]["file"]):
        path = EVAL / "pages" / f"{entry['file']}.gz"
        if not path.is_file():
            continue
        decoded = decode_payload(gzip.decompress(path.read_bytes()), None)
        if isinstance(decoded, str):
            continue
        out.append((decoded.text, entry.get("with", []), entry.get("without", [])))
        if limit and len(out) >= limit:
            break
    return out


def reference_extractors() -> dict[str, Callable[[str], str]]:
    """trafilatura and resiliparse as their documentation shows them."""

    def trafilatura_default(html: str) -> str:
        import trafilatura

        return trafilatura.extract(html) or ""

    def resiliparse_default(html: str) -> str:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        return extract_plain_text(HTMLTree.parse(html), main_content=True)

    return {
        "trafilatura (reference)": trafilatura_default,
        "resiliparse (reference)": resiliparse_default,
    }


def score(function: Callable[[str], str], data: list[tuple[str, list[str], list[str]]]) -> Score:
    result = Score()
    for html, with_, without in data:
        start = time.process_time()
        text = function(html)
        result.cpu += time.process_time() - start
        result.pages += 1
        flat = _SPACE.sub(" ", text)
        for s in with_:
            if _SPACE.sub(" ", s) in flat:
                result.tp += 1
            else:
                result.fn += 1
        for s in without:
            if _SPACE.sub(" ", s) in flat:
                result.fp += 1
            else:
                result.tn += 1
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=None, help="first N pages only")
    parser.add_argument(
        "--extractors",
        default=",".join(f"lakemix:{name}" for name in extract.EXTRACTORS),
        help="lakemix:NAME entries (and the two references, always run)",
    )
    args = parser.parse_args()
    data = pages(args.pages)
    functions: dict[str, Callable[[str], str]] = dict(reference_extractors())
    for entry in args.extractors.split(","):
        name = entry.removeprefix("lakemix:")
        functions[f"lakemix {name}"] = lambda html, n=name: extract.main_text(html, n)
    for function in functions.values():  # imports and first-call set-up outside the timing
        function(data[0][0])
    print(f"{len(data)} pages of {EVAL}, one process, CPU time of extraction only")
    print(
        f"{'extractor':<24} {'precision':>9} {'recall':>7} {'F1':>6} {'accuracy':>9} "
        f"{'pages/CPU s':>12}"
    )
    for name, function in functions.items():
        print(score(function, data).line(name), flush=True)


if __name__ == "__main__":
    main()
