"""Deduplication on real OSCAR 2019 data: ground truth, determinism, incremental = full."""

from __future__ import annotations

import gzip
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pyiceberg.table.snapshots import Operation

from lakemix import catalog, duck
from lakemix.dbt import cache_key
from lakemix.dbt.texts import TextFunctions
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.text_store import TextStore, store_path
from tests.conftest import WEB, dbt

OSCAR = sorted(p.resolve() for p in (WEB / "oscar2019").glob("*.txt.gz"))  # ingest resolves paths
NO_FILTERS = "{lakemix_filter_families: []}"  # every document reaches deduplication
PAIRS = "intermediate.int_content_pairs_verified"
MINHASHED = "intermediate.int_documents_minhashed"
# dbt unit tests of the filters expect the project's filter families, not NO_FILTERS.
NO_UNIT_TESTS = ("--exclude-resource-type", "unit_test")


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
        *NO_UNIT_TESTS,
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
    dbt("build", "--vars", NO_FILTERS, *NO_UNIT_TESTS, tmp=tmp_path)
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


def content_pairs(settings: Settings) -> Counter[tuple[str, str | None, float | None]]:
    """The rows of int_content_pairs_verified (the cached, verified candidate pairs)."""
    table = catalog(settings).load_table(PAIRS)
    rows = table.scan().to_arrow().to_pylist()
    return Counter((r["content_hash_a"], r["content_hash_b"], r["jaccard"]) for r in rows)


def content_hashes(settings: Settings) -> set[str]:
    """The content hashes of the documents with LSH band keys."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    rows = conn.execute(
        "select distinct content_hash from intermediate.int_documents_minhashed "
        "where band_keys is not null"
    ).fetchall()
    conn.close()
    return {hash_ for (hash_,) in rows}


def test_incremental_equals_full_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Near duplicates are between a language's deduplicated and original files. The first
    # batch has both files of the first third of the languages, and the deduplicated files of
    # the second third, so the second batch brings pairs new ~ old and new ~ new.
    deduplicated = [p for p in OSCAR if "_deduplicated_" in p.name]
    third = len(deduplicated) // 3
    originals = [p.with_name(p.name.replace("_deduplicated_", "_original_")) for p in deduplicated]
    first_batch = deduplicated[: 2 * third] + originals[:third]
    second_batch = [p for p in OSCAR if p not in first_batch]
    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "incremental"))
    ingest(first_batch, source="oscar2019", fmt="oscar")
    run_dedup(tmp_path / "i")
    settings = Settings.from_env()
    first, old_hashes = content_pairs(settings), content_hashes(settings)
    ingest(second_batch, source="oscar2019", fmt="oscar")
    run_dedup(tmp_path / "i")
    incremental = clusters(settings)
    cached = content_pairs(settings)

    # The second run appended, and matched only the texts it had not seen: one row recording
    # each new hash, and the pairs that involve one (new against old and new against new).
    new_hashes = content_hashes(settings) - old_hashes
    table = catalog(settings).load_table(PAIRS)
    snapshot = table.current_snapshot()
    assert snapshot is not None and snapshot.summary is not None
    assert snapshot.summary.operation == Operation.APPEND
    assert first <= cached  # the first run's rows are all still there, unchanged
    added = cached - first
    assert {a for a, b, _ in added if b is None} == new_hashes
    added_pairs = [(a, b) for a, b, _ in added if b is not None]
    assert all(a in new_hashes or b in new_hashes for a, b in added_pairs)
    assert any(a in old_hashes or b in old_hashes for a, b in added_pairs)  # the old index
    assert any(a in new_hashes and b in new_hashes for a, b in added_pairs)

    # Each incremental model read only what its source gained since its last run: the data
    # files added since the snapshot recorded with its rows (lakemix.rows_since).
    for model, source in (
        ("int_documents_minhashed", "int_documents_language_scored"),
        ("int_content_pairs_verified", "int_documents_minhashed"),
    ):
        read = source_snapshots_read(settings, f"intermediate.{model}", f"intermediate.{source}")
        assert len(read) == 2 and read[-1] == current_snapshot(settings, f"intermediate.{source}")
        sql = compiled(tmp_path / "i", model)
        added = files_added(settings, f"intermediate.{source}", since=read[0])
        assert added and f"read_parquet([{', '.join(repr(f) for f in added)}]" in sql
    # Only appends since: those files are exactly the new documents, no anti-join on its table.
    assert "not in" not in compiled(tmp_path / "i", "int_documents_minhashed")

    # Nothing new: nothing is read, and no snapshot is added.
    run_dedup(tmp_path / "i")
    assert "limit 0" in compiled(tmp_path / "i", "int_documents_minhashed")
    assert catalog(settings).load_table(PAIRS).current_snapshot() == snapshot
    assert clusters(settings) == incremental

    # The text store got each run's new texts, one segment a run.
    assert len(list(store_path(settings.home).glob("*.keys.npy"))) == 2
    assert_store_has_every_text(settings)

    run_dedup(tmp_path / "i", full_refresh=True)
    full = clusters(settings)
    assert incremental == full
    assert len(full) == 649
    assert content_pairs(settings) == cached
    assert len(list(store_path(settings.home).glob("*.keys.npy"))) == 1  # replaced
    assert_store_has_every_text(settings)

    # Without the store (deleted, or tables written by Spark) the texts are read from the
    # documents: the same pairs, the same Jaccard.
    shutil.rmtree(store_path(settings.home))
    pairs_only = ("--select", "int_content_pairs_verified", "--full-refresh")
    dbt("run", "--vars", NO_FILTERS, *pairs_only, tmp=tmp_path / "i")
    assert content_pairs(settings) == cached


def assert_store_has_every_text(settings: Settings) -> None:
    """The text store gives every content hash the very text of its documents."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    TextFunctions(TextStore(store_path(settings.home))).register(conn)
    wrong, right, hashes = conn.execute(
        """
        select
            count(*) filter (where stored is not null and stored != text),
            count(distinct content_hash) filter (where stored = text),
            count(distinct content_hash)
        from (
            select m.content_hash, d.text, lakemix_stored_text(m.content_hash) as stored
            from intermediate.int_documents_minhashed as m
            inner join intermediate.int_documents_language_scored as d using (document_id)
        )
        """
    ).fetchone() or (None, None, None)
    conn.close()
    assert (wrong, right) == (0, hashes)


def source_snapshots_read(settings: Settings, table: str, source: str) -> list[int]:
    """The snapshot of ``source`` each snapshot of ``table`` recorded as read, oldest first."""
    read = []
    for snapshot in catalog(settings).load_table(table).snapshots():
        assert snapshot.summary is not None
        value = snapshot.summary.additional_properties.get(f"lakemix.read.{source}")
        if value is not None and int(value) not in read:
            read.append(int(value))
    return read


def current_snapshot(settings: Settings, table: str) -> int:
    snapshot = catalog(settings).load_table(table).current_snapshot()
    assert snapshot is not None
    return snapshot.snapshot_id


def files_added(settings: Settings, table: str, *, since: int) -> list[str]:
    """Local paths of the data files of ``table`` that snapshot ``since`` did not have."""
    loaded = catalog(settings).load_table(table)
    before = {t.file.file_path for t in loaded.scan(snapshot_id=since).plan_files()}
    now = [t.file.file_path for t in loaded.scan().plan_files()]
    return sorted(p.removeprefix("file://") for p in now if p not in before)


def compiled(tmp: Path, model: str) -> str:
    """The SQL dbt ran for ``model`` in the last run with its target in ``tmp``."""
    return next((tmp / "target" / "run").rglob(f"{model}.sql")).read_text()


def test_pairs_cached_unverified_are_refused_when_verifying(
    lakehouse: Settings, tmp_path: Path
) -> None:
    """Pairs cached with lakemix_dedup_verify false have no Jaccard: verifying with them fails
    with the way out (a full refresh) instead of dropping every near duplicate."""
    arabic = [p for p in OSCAR if p.name.endswith("_ar.txt.gz")]  # holds a near-duplicate pair
    ingest(arabic, source="oscar2019", fmt="oscar")
    select = [
        "--select",
        "+int_duplicate_edges",
        "--indirect-selection",
        "cautious",
        *NO_UNIT_TESTS,
    ]
    unverified = "{lakemix_filter_families: [], lakemix_dedup_verify: false}"
    dbt("build", "--vars", unverified, *select, tmp=tmp_path)
    pairs = [(b, j) for _, b, j in content_pairs(lakehouse) if b is not None]
    assert pairs and all(j is None for _, j in pairs)

    failed = dbt("build", "--vars", NO_FILTERS, *select, tmp=tmp_path, check=False)
    assert failed.returncode != 0 and "pairs without a Jaccard" in failed.stdout

    dbt("build", "--vars", NO_FILTERS, *select, "--full-refresh", tmp=tmp_path)
    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    near = conn.execute(
        "select jaccard from intermediate.int_duplicate_edges where edge_kind = 'near'"
    ).fetchall()
    conn.close()
    assert near and all(j >= 0.8 for (j,) in near)


def test_incremental_models_compile_before_anything_is_built(
    lakehouse: Settings, tmp_path: Path
) -> None:
    """lakemix.rows_since asks the catalog for the source's files; with no source table yet
    (dbt compile or docs generate on a new lakehouse) the model reads the relation itself."""
    dbt(
        "compile", "--select", "int_documents_minhashed", "int_content_pairs_verified", tmp=tmp_path
    )
    for model, source in (
        ("int_documents_minhashed", "int_documents_language_scored"),
        ("int_content_pairs_verified", "int_documents_minhashed"),
    ):
        sql = next((tmp_path / "target" / "compiled").rglob(f"{model}.sql")).read_text()
        assert f'from "lakemix"."intermediate"."{source}"' in sql


def test_changed_minhash_settings_are_refused_until_a_full_refresh(
    lakehouse: Settings, tmp_path: Path
) -> None:
    """Rows hashed or verified under other settings would make an incremental run differ from
    a full rebuild: the run fails, naming the full refresh, which then records the new key."""
    arabic = [p for p in OSCAR if p.name.endswith("_ar.txt.gz")]
    ingest(arabic, source="oscar2019", fmt="oscar")
    select = ["--select", "+int_content_pairs_verified"]
    dbt("run", "--vars", NO_FILTERS, *select, tmp=tmp_path)
    reseeded = "{lakemix_filter_families: [], lakemix_minhash_seed: 2}"

    failed = dbt("run", "--vars", reseeded, *select, tmp=tmp_path, check=False)
    assert failed.returncode != 0
    assert "int_documents_minhashed holds rows computed with" in failed.stdout
    assert "dbt run --select int_documents_minhashed+ --full-refresh" in failed.stdout

    dbt("run", "--vars", reseeded, *select, "--full-refresh", tmp=tmp_path)
    tables = catalog(lakehouse)
    minhashed = cache_key.recorded(tables.load_table(MINHASHED)) or ""
    pairs = cache_key.recorded(tables.load_table(PAIRS)) or ""
    assert '"seed":2' in minhashed and '"udfs":{"minhash":1}' in minhashed
    assert '"seed":2' in pairs and '"udfs":{"jaccard":2,"minhash":1}' in pairs
    dbt("run", "--vars", reseeded, *select, tmp=tmp_path)  # same settings: incremental again
