"""Deduplication on real OSCAR 2019 data: ground truth, determinism, incremental = full."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from lakemix import duck
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import WEB, dbt

OSCAR = sorted(p.resolve() for p in (WEB / "oscar2019").glob("*.txt.gz"))  # ingest resolves paths
NO_FILTERS = "{lakemix_filter_families: []}"  # every document reaches deduplication


def run_dedup(tmp: Path, *, full_refresh: bool = False) -> None:
    """dbt build of the models up to deduplication (and their own tests), every filter off."""
    extra = ["--full-refresh"] if full_refresh else []
    dbt(
        "build",
        "--vars",
        NO_FILTERS,
        "--select",
        "+int_documents_deduplicated",
        "--indirect-selection",
        "cautious",
        *extra,
        tmp=tmp,
    )


def oscar_documents(path: Path) -> list[tuple[int, str]]:
    """(byte offset, text) of each document, read independently of lakemix's reader."""
    docs, lines, start, offset = [], [], 0, 0
    for raw in gzip.decompress(path.read_bytes()).splitlines(keepends=True):
        if raw.strip():
            if not lines:
                start = offset
            lines.append(raw.rstrip(b"\r\n"))
        elif lines:
            docs.append((start, b"\n".join(lines).decode("utf-8", "replace")))
            lines = []
        offset += len(raw)
    if lines:
        docs.append((start, b"\n".join(lines).decode("utf-8", "replace")))
    return docs


def cross_file_duplicates() -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """(original file, offset) ~ (deduplicated file, offset) pairs with the same text."""
    pairs = []
    for original in (p for p in OSCAR if "_original_" in p.name):
        twin = original.with_name(original.name.replace("_original_", "_deduplicated_"))
        by_text = {text: offset for offset, text in oscar_documents(twin)}
        for offset, text in oscar_documents(original):
            if text in by_text:
                pairs.append(((str(original), offset), (str(twin), by_text[text])))
    return pairs


def clusters(settings: Settings) -> dict[tuple[str, int], tuple[str, bool]]:
    """(file, offset) -> (cluster's kept file:offset, is kept) for every deduplicated document."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    rows = conn.execute(
        """
        select d.file_path, d.file_offset, k.file_path, k.file_offset, x.is_cluster_kept
        from intermediate.int_documents_deduplicated as x
        inner join intermediate.int_documents_language_scored as d using (document_id)
        inner join intermediate.int_documents_language_scored as k
            on x.kept_document_id = k.document_id
        """
    ).fetchall()
    return {(f, o): (f"{kf}:{ko}", kept) for f, o, kf, ko, kept in rows}


def test_every_cross_file_exact_duplicate_is_found(lakehouse: Settings, tmp_path: Path) -> None:
    truth = cross_file_duplicates()
    assert len(truth) == 303  # as the corpus README states
    ingest(OSCAR, source="oscar2019", fmt="oscar")
    dbt("build", "--vars", NO_FILTERS, tmp=tmp_path)
    found = clusters(lakehouse)
    missed = [pair for pair in truth if found[pair[0]][0] != found[pair[1]][0]]
    assert missed == []
    # each cluster keeps exactly one document
    kept = {}
    for cluster, is_kept in found.values():
        kept[cluster] = kept.get(cluster, 0) + is_kept
    assert set(kept.values()) == {1}


def test_same_clusters_whatever_threads_and_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = []
    for name, threads, order in (
        ("a", "1", OSCAR),
        ("b", "2", random.Random(3).sample(OSCAR, len(OSCAR))),
    ):
        monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / name))
        monkeypatch.setenv("LAKEMIX_DUCKDB_THREADS", threads)
        ingest(order, source="oscar2019", fmt="oscar")
        run_dedup(tmp_path / name)
        results.append(clusters(Settings.from_env()))
    assert results[0] == results[1]


def test_incremental_equals_full_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    half = len(OSCAR) // 2
    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "incremental"))
    ingest(OSCAR[:half], source="oscar2019", fmt="oscar")
    run_dedup(tmp_path / "i")
    ingest(OSCAR[half:], source="oscar2019", fmt="oscar")
    run_dedup(tmp_path / "i")
    incremental = clusters(Settings.from_env())

    run_dedup(tmp_path / "i", full_refresh=True)
    full = clusters(Settings.from_env())
    assert incremental == full
    assert len(full) == 649
