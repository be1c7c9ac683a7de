"""The iceberg materialization refuses types Iceberg cannot store, rather than a silent DOUBLE."""

from __future__ import annotations

from pathlib import Path

from lakemix import catalog
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import BIN, WEB, run


def test_hugeint_column_is_a_clear_error(
    lakehouse: Settings, project: Path, tmp_path: Path
) -> None:
    (project / "models" / "marts" / "sums.sql").write_text(
        "select source_id, sum(raw_character_count) as characters\n"
        "from {{ ref('stg_raw__documents') }} group by 1\n"
    )
    ingest([WEB / "dolma_cc_en_head"], source="head", fmt="jsonl")
    args = ["--project-dir", str(project), "--profiles-dir", str(project)]
    env = {"DBT_TARGET_PATH": str(tmp_path / "target"), "DBT_LOG_PATH": str(tmp_path / "logs")}
    proc = run([str(BIN / "dbt"), "run", "--select", "+sums", *args], extra_env=env, check=False)
    assert proc.returncode != 0
    assert "column characters is HUGEINT, which Iceberg cannot store" in proc.stdout
    assert not catalog(lakehouse).table_exists("marts.sums")
