"""The Spark target: the same project over the same Iceberg catalog gives the same results.

Parity (the issue's CI check): on the fixture corpus, DuckDB builds everything and the mix;
then Spark, on the standalone cluster of scripts/spark-cluster.sh (a master and two workers,
each its own JVM), rebuilds every model from the raw tables (--full-refresh) and the mix,
into new snapshots of the same tables; both builds have the same clean set, duplicate clusters
and mix checksum. Then DuckDB builds again on what Spark left.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from lakemix import duck
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.spark.parity import current_snapshots, fingerprint
from lakemix.tables import CLEAN_DOCUMENTS, DUPLICATE_CLUSTERS, mix_table
from tests.conftest import CORPORA, UNREVIEWED, WEB, dbt, run

LAKEMIX = str(Path(sys.executable).with_name("lakemix"))
MIX = "demo_unimax"
TABLES = [CLEAN_DOCUMENTS, DUPLICATE_CLUSTERS, mix_table(MIX)]


def lakemix(*args: str, tmp: Path, master: str = "local[2]") -> str:
    env = {
        "DBT_TARGET_PATH": str(tmp / "target"),
        "DBT_LOG_PATH": str(tmp / "logs"),
        "LAKEMIX_SPARK_MASTER": master,
    }
    return run([LAKEMIX, *args], extra_env=env, timeout=900).stdout


def test_spark_build_equals_duckdb_build(
    lakehouse: Settings, tmp_path: Path, spark_master: str
) -> None:
    ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
    ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
    ingest(sorted((WEB / "oscar2019").glob("*.txt.gz")), source="oscar2019", fmt="oscar")
    # fetched pages: their main text is extracted by the same UDF on both engines
    ingest([CORPORA / "html" / "commoncrawl_whirlwind"], source="cc", fmt="warc")
    pages = tmp_path / "pages"
    pages.mkdir()
    for page in sorted((CORPORA / "html" / "trafilatura_eval" / "pages").glob("*.html.gz"))[:6]:
        (pages / page.name).write_bytes(page.read_bytes())
    ingest([pages], source="pages", fmt="html")
    # a block list and a benchmark: the URL rules and decontamination run on both engines
    blocked = tmp_path / "parity" / "blocked" / "domains"
    blocked.parent.mkdir(parents=True)
    blocked.write_text("100kinvesting.com\n")
    lakemix("blocklist", "add", str(blocked.parent.parent), "--name", "parity", tmp=tmp_path)
    first = orjson.loads((WEB / "oscar2201" / "data.jsonl").read_bytes().split(b"\n", 1)[0])
    item = {"id": "planted", "question": " ".join(first["content"].split()[:30])}
    (tmp_path / "benchmark.jsonl").write_bytes(orjson.dumps(item) + b"\n")
    bench = str(tmp_path / "benchmark.jsonl")
    lakemix("benchmark", "add", bench, "--name", "parity", tmp=tmp_path)
    dbt("build", tmp=tmp_path)
    lakemix("mix", "build", MIX, tmp=tmp_path)
    on_duckdb = current_snapshots(TABLES)
    duckdb_prints = fingerprint(on_duckdb, mix=MIX)
    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    clean = f"select count(*) from {CLEAN_DOCUMENTS} where source_id in ('cc', 'pages')"
    [(clean_pages,)] = conn.execute(clean).fetchall()
    listed = (
        "select rule, sum(rejected_document_count) from marts.fct_rule_rejections where rule in "
        "('url_blocklist:blocked', 'decontamination:parity') group by rule order by rule"
    )
    rejected = conn.execute(listed).fetchall()
    conn.close()
    assert clean_pages >= 3  # pages reach the fingerprint: extracted alike on both engines
    assert [rule for rule, count in rejected if count >= 1] == [
        "decontamination:parity",
        "url_blocklist:blocked",
    ]

    # Portability, before Spark builds: every query compiles for both targets and parses, on a
    # lakehouse with releases (the drift test then compiles its branch that reads the last one).
    for tag in ("r1", "r2"):
        lakemix("release", MIX, "--tag", tag, *UNREVIEWED, tmp=tmp_path)
    vars_ = f"{{lakemix_mix: {MIX}}}"
    check = lakemix(
        "spark", "check", "--target-root", str(tmp_path / "check"), "--vars", vars_, tmp=tmp_path
    )
    assert "queries parse as duckdb SQL" in check and "queries parse as spark SQL" in check

    out = lakemix("spark", "dbt", "build", "--full-refresh", tmp=tmp_path, master=spark_master)
    assert "ERROR=0" in out and "target='spark'" in out
    lakemix("mix", "build", MIX, "--engine", "spark", tmp=tmp_path, master=spark_master)
    on_spark = current_snapshots(TABLES)
    spark_prints = fingerprint(on_spark, mix=MIX)

    assert all(on_spark[name] != on_duckdb[name] for name in TABLES)  # Spark wrote them anew
    assert spark_prints.differences(duckdb_prints) == []
    clean_rows = int(spark_prints.clean_documents.split("-")[0])
    cluster_rows = int(spark_prints.duplicate_clusters.split("-")[0])
    assert clean_rows > 50 and cluster_rows >= 10, spark_prints  # oscar2019 has duplicates

    # DuckDB takes over again from Spark's snapshots: same schemas, incremental models append.
    dbt("build", tmp=tmp_path)
    assert fingerprint(current_snapshots(TABLES), mix=MIX).differences(duckdb_prints) == []


def test_spark_reads_a_postgresql_catalog(pg_lakehouse: Settings) -> None:
    from lakemix.spark.session import spark_session

    ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
    session = spark_session(pg_lakehouse)
    try:
        rows = session.sql("select count(*), count(distinct document_id) from raw.documents")
        assert rows.collect()[0][:] == (20, 20)
    finally:
        session.stop()


def test_spark_dbt_refuses_another_target(lakehouse: Settings, tmp_path: Path) -> None:
    proc = run([LAKEMIX, "spark", "dbt", "build", "--target", "duckdb"], check=False)
    assert proc.returncode != 0
    assert "sets --target spark itself" in proc.stderr


@pytest.mark.parametrize("args", [[], ["--bogus"]])
def test_spark_dbt_without_a_command_is_a_usage_error(args: list[str]) -> None:
    proc = run([LAKEMIX, "spark", "dbt", *args], check=False)
    assert proc.returncode == 2 and "name a dbt command (" in proc.stderr
    assert "setLogLevel" not in proc.stderr  # refused before a Spark session started
