"""The production-like layout: a PostgreSQL catalog and the warehouse on S3 (SeaweedFS).

One build for the module (ingest, dbt build, mix, release v1), then what only an object store
can break: no local warehouse files, the loader and time travel reading over S3, kills during
``dbt build`` and ``lakemix release`` (written objects stay unreferenced until gc), and one clear
line for each kind of bad storage setting.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest
from click.testing import CliRunner

from lakemix import duck
from lakemix.catalog import catalog as open_catalog
from lakemix.cli import main
from lakemix.iceberg.snapshots import scan_at
from lakemix.iceberg.views import narrowed, refresh_views
from lakemix.loader import MixLoader
from lakemix.settings import Settings
from lakemix.storage import filesystem
from lakemix.versions import get_release, list_releases
from lakemix.versions.gc import _referenced
from tests.conftest import (
    BIN,
    ROOT,
    UNREVIEWED,
    lakehouse_in,
    released_lakehouse,
    services_env,
)

S3_VARIABLES = (
    "LAKEMIX_TEST_S3_ENDPOINT",
    "LAKEMIX_TEST_S3_BUCKET",
    "LAKEMIX_TEST_S3_REGION",
    "LAKEMIX_TEST_S3_ACCESS_KEY_ID",
    "LAKEMIX_TEST_S3_SECRET_ACCESS_KEY",
)


@pytest.fixture(scope="module")
def s3_env() -> Iterator[dict[str, str]]:
    """Variables that point lakemix at a fresh prefix of the SeaweedFS test bucket, deleted
    with everything in it afterwards."""
    server = services_env(*S3_VARIABLES)
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    env = {
        "LAKEMIX_WAREHOUSE": f"s3://{server['LAKEMIX_TEST_S3_BUCKET']}/{prefix}",
        "LAKEMIX_S3_ENDPOINT": server["LAKEMIX_TEST_S3_ENDPOINT"],
        "AWS_REGION": server["LAKEMIX_TEST_S3_REGION"],
        "AWS_ACCESS_KEY_ID": server["LAKEMIX_TEST_S3_ACCESS_KEY_ID"],
        "AWS_SECRET_ACCESS_KEY": server["LAKEMIX_TEST_S3_SECRET_ACCESS_KEY"],
    }
    yield env
    settings = Settings.from_env({**env, "HOME": os.environ.get("HOME", "/")})
    fs, root = filesystem(settings.s3, settings.warehouse)
    # SeaweedFS lists an emptied prefix as a folder until it goes: pyarrow then finds no marker
    with contextlib.suppress(FileNotFoundError):
        fs.delete_dir(root)


@pytest.fixture(scope="module")
def s3_release(
    s3_env: dict[str, str], pg_server_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A released lakehouse (v1 of demo_unimax) on a fresh PostgreSQL catalog with its
    warehouse on S3, built once; its folder, to enter with ``lakehouse_in(tmp, env)``."""
    import sqlalchemy

    name = f"lakemix_test_{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(pg_server_uri, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sqlalchemy.text(f'create database "{name}"'))
    s3_env["LAKEMIX_CATALOG_URI"] = pg_server_uri.rsplit("/", 1)[0] + f"/{name}"
    tmp = tmp_path_factory.mktemp("s3_release")
    with released_lakehouse(tmp, s3_env):
        pass
    yield tmp
    with admin.connect() as conn:
        conn.execute(sqlalchemy.text(f'drop database if exists "{name}" with (force)'))
    admin.dispose()


@pytest.fixture
def on_s3(s3_release: Path, s3_env: dict[str, str]) -> Iterator[Settings]:
    """The environment pointed at the S3 lakehouse while the test runs."""
    with lakehouse_in(s3_release, s3_env) as settings:
        yield settings


def objects(settings: Settings) -> dict[str, float]:
    """URI -> modification time of every object under the warehouse prefix."""
    fs, root = filesystem(settings.s3, settings.warehouse)
    selector = pafs.FileSelector(root, recursive=True)
    return {
        f"s3://{info.path}": info.mtime.timestamp() if info.mtime else 0.0
        for info in fs.get_file_info(selector)
        if info.type == pafs.FileType.File
    }


def referenced(settings: Settings) -> set[str]:
    """Every object a snapshot or the current metadata of some table reads."""
    catalog = open_catalog(settings)
    return {
        path
        for namespace in catalog.list_namespaces()
        for ident in catalog.list_tables(namespace)
        for path in _referenced(catalog.load_table(ident))
    }


def lakemix(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_the_pipeline_runs_on_s3(on_s3: Settings) -> None:
    # Every table lives in the bucket; nothing of the warehouse was written to local disk.
    catalog = open_catalog(on_s3)
    tables = [ident for ns in catalog.list_namespaces() for ident in catalog.list_tables(ns)]
    assert len(tables) > 10
    for ident in tables:
        table = catalog.load_table(ident)
        assert table.location().startswith(on_s3.warehouse + "/"), ident
        assert table.metadata_location.startswith("s3://"), ident
    # Models' files were written once, at their final keys (one prefix per run), not staged
    # locally and copied.
    clean = catalog.load_table("marts.fct_clean_documents")
    paths = [task.file.file_path for task in clean.scan().plan_files()]
    assert paths and all(re.search(r"/data/dbt-[^/]+/[^/]+\.parquet$", p) for p in paths), paths
    assert not (on_s3.home / "warehouse").exists()
    assert not any((on_s3.home / "staging").iterdir())  # no local copy of a model's files
    # ... and the local caches stay local: the DuckDB file beside the catalog settings.
    assert on_s3.duckdb_path.is_file()

    # The loader reads the release over S3: every training token of v1 once.
    release = get_release("v1")
    loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=64, batch_size=4, seed=5)
    train = [s for s in release.stats if s.split == "train"]
    assert sum(int(b["cu_seqlens"][-1]) for b in loader) == sum(s.tokens + s.samples for s in train)

    # Time travel: the mix at its tag, from pyiceberg and from DuckDB over httpfs.
    mix = catalog.load_table("marts.mix_demo_unimax")
    documents = sum(s.documents for s in release.stats)
    assert mix.scan(snapshot_id=mix.metadata.refs["v1"].snapshot_id).count() == documents
    assert scan_at(mix, "v1").startswith("iceberg_scan('s3://")
    at_v1 = lakemix("sql", "select count(*) as n from marts.mix_demo_unimax", "--at", "v1")
    assert at_v1.split()[-1] == str(documents)

    # The reading commands: table counts, full-text search, the quality report at the tag.
    assert "raw.documents" in lakemix("tables")
    assert "clean" in lakemix("search", "the", "--limit", "1")
    assert "wrote " in lakemix("report", "--tag", "v1")

    # The view narrowed to the files holding given documents (how the search index reads its
    # new ones) reads them over S3 on a connection of its own: DuckDB's S3 secret is shared.
    conn = duck.connect(settings=on_s3)
    refresh_views(conn, catalog)
    ids = conn.execute("select document_id from marts.fct_clean_documents limit 3").to_arrow_table()
    with narrowed(conn, catalog, ["marts.fct_clean_documents"], ids) as reader:
        picked = reader.execute(
            "select count(*), count(text) from marts.fct_clean_documents "
            "semi join narrowed_keys using (document_id)"
        ).fetchone()
    assert picked == (3, 3)


def test_gc_on_s3_deletes_only_unreferenced_objects(on_s3: Settings) -> None:
    fs, root = filesystem(on_s3.s3, on_s3.warehouse)
    stray = f"{root}/marts/mix_demo_unimax/data/dbt-killed-00000.parquet"
    with fs.open_output_stream(stray) as out:
        out.write(b"PAR1 written by a killed build")
    assert f"s3://{stray}" in objects(on_s3)
    lakemix("gc", "--grace", "0")
    left = objects(on_s3)
    assert f"s3://{stray}" not in left
    assert set(left) <= referenced(on_s3), "gc left objects no snapshot reads"
    assert get_release("v1").tag == "v1"
    lakemix("sql", "select count(*) from marts.mix_demo_unimax", "--at", "v1")


def _kill_part_way(cmd: list[str], duration: float, fraction: float) -> bool:
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(fraction * duration)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return killed


def _kill_once_written(cmd: list[str], settings: Settings, known: set[str]) -> set[str]:
    """Run ``cmd`` and SIGKILL it as soon as it has written a data object that no snapshot
    references yet (a model's files at their final keys, before their commit); returns the
    new data objects unreferenced after the kill."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # one LIST a poll: a model's commit follows its files within a fraction of a second
        while proc.poll() is None:
            if any("/data/dbt-" in k for k in set(objects(settings)) - known):
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    return {k for k in objects(settings) if "/data/" in k} - known - referenced(settings)


def test_killed_dbt_build_on_s3_converges_and_gc_cleans_up(on_s3: Settings) -> None:
    catalog = open_catalog(on_s3)
    columns = ["document_id", "language", "token_count", "text"]
    before = catalog.load_table("marts.fct_clean_documents").scan().to_arrow().select(columns)
    models = "fct_clean_documents fct_document_rejections dim_duplicate_clusters dim_languages"
    build = [str(BIN / "dbt"), "run", "--full-refresh", "--select", *models.split()]
    build += ["--project-dir", str(ROOT), "--profiles-dir", str(ROOT)]

    leftovers: set[str] = set()
    for _ in range(3):  # a kill can land just after a commit: then there is nothing to leave
        leftovers = _kill_once_written(build, on_s3, set(objects(on_s3)))
        if leftovers:
            break
    assert leftovers, "every build committed its files before the kill: nothing was exercised"
    # Nothing half-visible: the marts read whole, as before.
    killed = catalog.load_table("marts.fct_clean_documents").scan().to_arrow().select(columns)
    assert killed.sort_by("document_id").equals(before.sort_by("document_id"))

    retry = [str(BIN / "dbt"), "build", *build[2:]]  # with the tests: a release needs them
    subprocess.run(retry, cwd=ROOT, check=True, capture_output=True)
    after = catalog.load_table("marts.fct_clean_documents").scan().to_arrow().select(columns)
    assert after.sort_by("document_id").equals(before.sort_by("document_id"))
    assert leftovers <= set(objects(on_s3)), "something deleted the leftovers before gc"

    lakemix("gc", "--grace", "0")
    left = objects(on_s3)
    assert not leftovers & set(left), "gc kept objects the killed build wrote"
    assert set(left) <= referenced(on_s3)
    print(f"the killed build left {len(leftovers)} unreferenced data objects; gc deleted them")
    lakemix("mix", "build", "demo_unimax")  # the mix is older than the rebuilt marts now


def test_killed_release_on_s3_is_whole_or_absent(on_s3: Settings) -> None:
    cmd = [str(BIN / "lakemix"), "release", "demo_unimax", *UNREVIEWED, "--tag"]
    start = time.perf_counter()
    whole = subprocess.run([*cmd, "s3-whole"], cwd=ROOT, capture_output=True, text=True)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    duration = time.perf_counter() - start
    expected = get_release("s3-whole")
    catalog = open_catalog(on_s3)
    rng = random.Random(3)
    kills = 0
    for _ in range(4):
        kills += _kill_part_way([*cmd, "s3-crash"], duration, rng.uniform(0.3, 0.9))
        done = [m for m in list_releases() if m.tag == "s3-crash"]
        if done:  # whole: a tag on every table it pins
            for name, entry in done[0]["snapshots"].items():
                ref = catalog.load_table(name).metadata.refs["s3-crash"]
                assert ref.snapshot_id == entry["snapshot_id"]
            break
    assert kills > 0, "every release finished before its kill: the test exercised nothing"
    if not [m for m in list_releases() if m.tag == "s3-crash"]:
        lakemix("release", "demo_unimax", "--tag", "s3-crash", *UNREVIEWED)
    assert get_release("s3-crash").checksum == expected.checksum


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"AWS_SECRET_ACCESS_KEY": "not-the-secret-1234"}, "the credentials were refused"),
        ({"LAKEMIX_S3_ENDPOINT": "http://127.0.0.1:9"}, "the endpoint cannot be reached"),
        ({"LAKEMIX_WAREHOUSE": "s3://lakemix-no-such-bucket/wh"}, "does not exist"),
    ],
    ids=["wrong-credentials", "unreachable-endpoint", "missing-bucket"],
)
def test_bad_storage_settings_are_one_clear_line(
    s3_env: dict[str, str], tmp_path: Path, change: dict[str, str], expected: str
) -> None:
    env = {**os.environ, **s3_env, "LAKEMIX_HOME": str(tmp_path / "lakehouse"), **change}
    env.pop("LAKEMIX_CATALOG_URI", None)  # the embedded catalog: only storage can be wrong
    for command in (["versions"], ["gc", "--grace", "0"]):
        proc = subprocess.run(
            [str(BIN / "lakemix"), *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        output = proc.stdout + proc.stderr
        assert proc.returncode == 1, output
        assert "Traceback" not in output
        assert output.strip().count("\n") == 0, output
        assert expected in output
        assert env["AWS_SECRET_ACCESS_KEY"] not in output


def test_verify_on_s3_names_a_deleted_object_and_passes_once_it_is_back(on_s3: Settings) -> None:
    clean = open_catalog(on_s3).load_table("marts.fct_clean_documents")
    uri = sorted(task.file.file_path for task in clean.scan().plan_files())[0]
    fs, _ = filesystem(on_s3.s3, on_s3.warehouse)
    key = uri.removeprefix("s3://")
    with fs.open_input_stream(key) as stream:
        kept = stream.read()
    assert lakemix("verify").count("BROKEN") == 0
    fs.delete_file(key)
    try:
        broken = CliRunner().invoke(main, ["verify"])
        assert broken.exit_code == 1, broken.output
        assert "BROKEN  marts.fct_clean_documents: 1 of " in broken.output
        assert f"missing: {uri}" in broken.output
        assert "repair: `dbt build --full-refresh --select fct_clean_documents+`" in broken.output
        assert "ok      raw.documents" in broken.output
        # A reader names the table, the object and lakemix verify in one line.
        sql = CliRunner().invoke(main, ["sql", "select max(text) from marts.fct_clean_documents"])
        assert sql.exit_code == 1 and sql.output.count("\n") == 1, sql.output
        assert uri in sql.output and "lakemix verify" in sql.output
    finally:
        with fs.open_output_stream(key) as stream:  # the same bytes at the same key
            stream.write(kept)
    assert "all files present and readable" in lakemix("verify", "--deep")
