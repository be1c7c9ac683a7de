"""bench/release: release and rebuild times, and the storage a release adds, on the bench corpus.

Usage: .venv/bin/python bench/release.py [--docs 100000] [--seed 0] [--keep]

Corpus: ``bench/corpus.py`` (cached in ``bench/out/corpus-<N>``). Lakehouse: a fresh
temporary ``LAKEMIX_HOME`` set up as in ``bench/mix.py``. Steps, each a command a user types,
run from the project root:

1. ``lakemix ingest`` the corpus (not in the ratios);
2. ``dbt build`` then ``lakemix mix build demo_unimax`` (the project's demo mix, all
   languages): the reference, *build*;
3. ``lakemix release demo_unimax --tag bench-v1``: its seconds as a fraction of *build*, and
   the bytes it adds to the lakehouse (warehouse and catalog) next to the lakehouse's size.
   Tags point at existing snapshots and share their files, so a release should add almost
   nothing: the manifest row in meta.releases, its JSON copy and new table metadata files;
4. ``lakemix rebuild bench-v1``: a scratch build from the tagged raw snapshot with the recorded
   config, checked against the release's checksum; its seconds next to *build*.

The machine has 2 shared cores: compare the ratios, measured in one invocation.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from corpus import cached_corpus
from mix import BIN, ROOT, Lakehouse

TAG = "bench-v1"
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
MIX = "demo_unimax"


def size(path: Path) -> int:
    """Bytes of every file under ``path`` (or of the file)."""
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def lakehouse_bytes(home: Path) -> int:
    """Warehouse, catalog and release manifests: what a release can add to."""
    return size(home / "warehouse") + size(home / "catalog.db") + size(home / "releases")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--keep", action="store_true", help="keep the temporary lakehouse")
    args = parser.parse_args()

    corpus = cached_corpus(args.docs, args.seed)
    load = os.getloadavg()
    print(
        f"corpus {corpus.relative_to(ROOT)}: {args.docs:,} documents; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 shared cores)"
    )
    home = Path(tempfile.mkdtemp(prefix="lakemix-bench-release-"))
    try:
        house = Lakehouse(home)
        ingest = house.ingest(corpus)
        print(f"lakemix ingest: {ingest:.1f} s (not in the ratios)")
        build = house.run(str(BIN / "dbt"), "build")
        mix = house.run(str(BIN / "lakemix"), "mix", "build", MIX)
        reference = build + mix
        print(f"build: dbt build {build:.1f} s + lakemix mix build {MIX} {mix:.1f} s", end="")
        print(f" = {reference:.1f} s")

        before = lakehouse_bytes(home)
        release = house.run(str(BIN / "lakemix"), "release", MIX, "--tag", TAG, *UNREVIEWED)
        added = lakehouse_bytes(home) - before
        print(
            f"release: {release:6.2f} s = {release / reference:7.2%} of the build; adds "
            f"{added / 1e3:,.1f} kB to a {before / 1e6:,.1f} MB lakehouse "
            f"({added / before:.4%})"
        )
        # lakemix rebuild exits non-zero (and house.run stops the bench) on a different checksum.
        rebuild = house.run(str(BIN / "lakemix"), "rebuild", TAG)
        print(
            f"rebuild: {rebuild:6.1f} s = {rebuild / reference:.2f}x the build; "
            "checksum identical to the release"
        )
    finally:
        if args.keep:
            print(f"kept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
