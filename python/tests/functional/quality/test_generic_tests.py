"""The generic dbt tests in tests/generic pass and fail where they should, on crafted rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from lakemix.settings import Settings
from tests.conftest import BIN, ROOT, run

FIXTURES = {
    "fixture_values": """
        select * from (values
            (1, 'a', 0.5, 0.100, 0.104, 0.0, 'plain text', 'release 1.2.3 at a@b', 'x'),
            (2, null, 1.5, 0.200, 0.300, 0.2, 'write to someone@example.org', 'v2.0', 'y'),
            (2, null, 0.7, 0.300, 0.300, 0.0, 'more', 'pi is 3.14159', 'from 10.0.0.1 today')
        ) as t(id, label, score, share, target, slack, body, note, host)
    """,
    "fixture_whole": "select * from (values (1), (2), (3)) as t(id)",
    "fixture_part_a": "select * from (values (1)) as t(id)",
    "fixture_part_b": "select * from (values (2), (3)) as t(id)",
    "fixture_part_c": "select * from (values (3), (4)) as t(id)",
}
SCHEMA = """
version: 2
models:
  - name: fixture_values
    data_tests:
      - unique_combination: {arguments: {columns: [id, label]}, name: unique_id_label_fails}
      - unique_combination: {arguments: {columns: [id, score]}, name: unique_id_score_passes}
    columns:
      - name: id
        data_tests: [{completeness: {name: completeness_passes}}]
      - name: label
        data_tests:
          - completeness: {name: completeness_fails}
          - completeness: {arguments: {max_missing_fraction: 0.7}, name: completeness_loose_passes}
      - name: score
        data_tests:
          - value_in_range: {arguments: {min_value: 0, max_value: 1}, name: range_fails}
          - value_in_range: {arguments: {min_value: 0.5, max_value: 2}, name: range_passes}
          - value_in_range: {arguments: {min_value: 0.5, inclusive: false}, name: strict_fails}
      - name: share
        data_tests:
          - share_near_target: {arguments: {target_column: target}, name: share_fails}
          - share_near_target:
              arguments: {target_column: target, slack_column: slack}
              name: share_with_slack_passes
      - name: body
        data_tests: [{no_pii_pattern: {name: pii_fails}}]
      - name: note
        data_tests: [{no_pii_pattern: {name: pii_passes}}]
      - name: host
        data_tests: [{no_pii_pattern: {name: pii_ip_fails}}]
  - name: fixture_whole
    data_tests:
      - partitioned_into:
          arguments:
            column_name: id
            parts: ["{{ ref('fixture_part_a') }}", "{{ ref('fixture_part_b') }}"]
          name: partition_passes
      - partitioned_into:
          arguments:
            column_name: id
            parts: ["{{ ref('fixture_part_a') }}", "{{ ref('fixture_part_c') }}"]
          name: partition_fails
"""
EXPECTED = {
    "unique_id_label_fails": "fail",
    "unique_id_score_passes": "pass",
    "completeness_passes": "pass",
    "completeness_fails": "fail",
    "completeness_loose_passes": "pass",
    "range_fails": "fail",
    "range_passes": "pass",
    "strict_fails": "fail",
    "share_fails": "fail",
    "share_with_slack_passes": "pass",
    "pii_fails": "fail",
    "pii_ip_fails": "fail",
    "pii_passes": "pass",
    "partition_passes": "pass",
    "partition_fails": "fail",
}


def test_generic_tests_on_crafted_rows(lakehouse: Settings, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "models" / "fixtures").mkdir(parents=True)
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "macros", project / "macros")
    shutil.copytree(ROOT / "tests" / "generic", project / "tests" / "generic")
    for name, sql in FIXTURES.items():
        (project / "models" / "fixtures" / f"{name}.sql").write_text(
            "{{ config(materialized='view', schema='fixtures') }}\n" + sql
        )
    (project / "models" / "fixtures" / "_fixtures.yml").write_text(SCHEMA)
    target = tmp_path / "target"
    proc = run(
        [str(BIN / "dbt"), "build", "--project-dir", str(project), "--profiles-dir", str(project)],
        extra_env={"DBT_TARGET_PATH": str(target), "DBT_LOG_PATH": str(tmp_path / "logs")},
        check=False,
    )
    results = orjson.loads((target / "run_results.json").read_bytes())["results"]
    statuses = {
        r["unique_id"].split(".")[2]: r["status"]
        for r in results
        if r["unique_id"].startswith("test.")
    }
    assert statuses == EXPECTED, proc.stdout[-3000:]
    assert proc.returncode == 1


@pytest.mark.parametrize("name", ["completeness", "value_in_range", "share_near_target"])
def test_generic_tests_are_documented(name: str) -> None:
    documented = (ROOT / "tests" / "generic" / "_generic_tests.yml").read_text()
    assert f"name: test_{name}\n" in documented
    assert (ROOT / "tests" / "generic" / f"test_{name}.sql").is_file()
