"""Deduplication on the Spark standalone cluster, with a duplicate cluster larger than one
executor's share of the linked documents, equals DuckDB's.

The corpus: a chain of near-duplicates (each document a window of one long word sequence,
shifted by a few words, so only neighbours in the chain are duplicates: a component of large
diameter, which label propagation needs many rounds for), a family of exact duplicates and one
of one-word variants (their band keys are shared by more documents than the hot-key limit set
here, so the candidate join is salted), and unique documents. One document of each duplicate
family, the one with the largest id, is ingested first, so the document a cluster keeps (the
earliest ingested, then the smallest document_id) is not its smallest id.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from lakemix.catalog import catalog
from lakemix.ingest import ingest
from lakemix.ingest.run import document_id
from lakemix.settings import Settings
from tests.conftest import dbt
from tests.functional.test_spark import lakemix

CHAIN, EXACT, VARIANTS, UNIQUE = 240, 40, 40, 80
HOT_BAND_ROWS = 20  # the variants and exact copies share band keys of more documents
MODELS_AND_SEEDS = ("--exclude-resource-type", "test", "--exclude-resource-type", "unit_test")
DEDUPLICATED = "intermediate.int_documents_deduplicated"
MINHASHED = "intermediate.int_documents_minhashed"
COLUMNS = [
    "document_id",
    "cluster_id",
    "cluster_size",
    "cluster_kind",
    "is_cluster_kept",
    "duplicate_kind",
]


def words(rng: random.Random, count: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "va", "gu", "xe"]
    return ["".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(count)]


def stored_id(n: int) -> str:
    """The document_id ingest gives the corpus's document ``n``."""
    return document_id("synthetic", f"doc-{n:04d}", "", 0)


def write_corpus(path: Path, early: Path) -> None:
    """The corpus in ``path``, but the largest id of each duplicate family in ``early``."""
    rng = random.Random(20)
    stream = words(rng, CHAIN * 3 + 120)
    texts = [" ".join(stream[i * 3 : i * 3 + 120]) for i in range(CHAIN)]  # J(i, i+1) = 0.95
    base = words(rng, 150)
    texts += [" ".join(base)] * EXACT
    other = words(rng, 150)
    for i in range(VARIANTS):
        variant = list(other)
        variant[i] = f"variant{i}"
        texts.append(" ".join(variant))
    texts += [" ".join(words(rng, 100)) for _ in range(UNIQUE)]
    order = list(range(len(texts)))
    rng.shuffle(order)  # document ids unrelated to the chain's order
    families = [
        range(0, CHAIN),
        range(CHAIN, CHAIN + EXACT),
        range(CHAIN + EXACT, CHAIN + EXACT + VARIANTS),
    ]
    first = {max(family, key=stored_id) for family in families}
    with path.open("w", encoding="utf-8") as out, early.open("w", encoding="utf-8") as out_early:
        for n in order:
            line = json.dumps({"id": f"doc-{n:04d}", "text": texts[n]}) + "\n"
            (out_early if n in first else out).write(line)


def deduplicated_rows() -> set[tuple[object, ...]]:
    table = catalog().load_table(DEDUPLICATED).scan(selected_fields=tuple(COLUMNS)).to_arrow()
    return set(zip(*(table.column(name).to_pylist() for name in COLUMNS), strict=True))


def kept_by_rule(rows: set[tuple[object, ...]]) -> dict[object, object]:
    """cluster_id -> the member ingested first, then with the smallest document_id."""
    raw = catalog().load_table("raw.documents").scan(selected_fields=("document_id", "ingested_at"))
    table = raw.to_arrow()
    ingested = dict(zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True))
    members: dict[object, list[object]] = {}
    for row in rows:
        members.setdefault(row[1], []).append(row[0])
    return {
        cluster: min(ids, key=lambda document_id: (ingested[document_id], document_id))
        for cluster, ids in members.items()
    }


def test_spark_cluster_deduplicates_as_duckdb(
    lakehouse: Settings, tmp_path: Path, spark_master: str
) -> None:
    corpus, early = tmp_path / "corpus" / "synthetic.jsonl", tmp_path / "corpus" / "early.jsonl"
    corpus.parent.mkdir()
    write_corpus(corpus, early)
    ingest([early], source="synthetic", fmt="jsonl")
    ingest([corpus], source="synthetic", fmt="jsonl")
    vars_ = f"{{lakemix_filter_families: [], lakemix_spark_hot_band_rows: {HOT_BAND_ROWS}}}"
    select = ["--select", "+int_documents_deduplicated", "--vars", vars_, *MODELS_AND_SEEDS]
    dbt("build", *select, tmp=tmp_path)
    on_duckdb = deduplicated_rows()

    out = lakemix(
        "spark", "dbt", "build", "--full-refresh", *select, tmp=tmp_path, master=spark_master
    )
    assert "ERROR=0" in out, out[-3000:]
    on_spark = deduplicated_rows()

    assert on_spark == on_duckdb
    kept = kept_by_rule(on_spark)
    assert kept == {row[1]: row[1] for row in on_spark}  # each cluster's id is its kept document
    smallest = {row[1]: min(r[0] for r in on_spark if r[1] == row[1]) for row in on_spark}
    assert sum(kept[c] != smallest[c] for c in kept) == 3  # the families' early documents
    sizes = sorted({(row[1], row[2]) for row in on_spark}, key=lambda cluster: -cluster[1])
    linked = sum(size for _, size in sizes if size > 1)
    assert sizes[0][1] == CHAIN and sizes[0][1] > linked / 2  # more than one executor's share
    assert [size for _, size in sizes[:3]] == [CHAIN, EXACT, VARIANTS]
    logs = (tmp_path / "logs" / "dbt.log").read_text(encoding="utf-8")
    rounds = [int(n) for n in re.findall(r"connected components in (\d+) rounds", logs)]
    assert rounds and rounds[-1] >= 3, rounds  # the chain took several distributed rounds
    compiled = next((tmp_path / "target").rglob("int_content_pairs_verified.sql")).read_text()
    assert "band_index_salted" in compiled  # the hot band keys were salted on Spark
    compiled = next((tmp_path / "target").rglob("int_documents_deduplicated.sql")).read_text()
    assert " over (" not in compiled.lower()  # no window: no cluster gathers in one task
