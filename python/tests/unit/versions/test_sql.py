"""``lakemix sql`` reads the warehouse and nothing else, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from lakemix.catalog import catalog as open_catalog
from lakemix.cli import main
from lakemix.settings import Settings


@pytest.fixture
def warehouse(lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """A lakehouse with one Iceberg table, marts.numbers (1, 2, 3); the working folder is tmp."""
    catalog = open_catalog(lakehouse)
    catalog.create_namespace_if_not_exists("marts")
    table = catalog.create_table("marts.numbers", pa.schema([("n", pa.int64())]))
    table.append(pa.table({"n": [1, 2, 3]}))
    monkeypatch.chdir(tmp_path)
    return lakehouse


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["sql", *args])
    return result.exit_code, result.output


def test_iceberg_tables_are_queried(warehouse: Settings) -> None:
    code, output = run("select sum(n) as total from marts.numbers")
    assert code == 0, output
    assert output.split()[-1] == "6"


def test_copy_to_is_refused_and_writes_nothing(warehouse: Settings, tmp_path: Path) -> None:
    code, output = run("copy (select 42) to 'x.csv'")
    assert code == 1
    assert "COPY statements are refused" in output
    assert not (tmp_path / "x.csv").exists()


def test_attach_is_refused_and_creates_nothing(warehouse: Settings, tmp_path: Path) -> None:
    code, output = run("attach 'x.db' as e")
    assert code == 1
    assert "ATTACH statements are refused" in output
    assert not (tmp_path / "x.db").exists()


def test_files_outside_the_warehouse_cannot_be_read(warehouse: Settings) -> None:
    code, output = run("select * from read_text('/etc/passwd')")
    assert code == 1
    assert "PermissionException" in output
    assert "root:" not in output


def test_a_select_cannot_unlock_the_configuration(warehouse: Settings, tmp_path: Path) -> None:
    code, output = run("select 1; set enable_external_access = true")
    assert code == 1
    assert "one query, got 2 statements" in output
    code, output = run("select * from read_csv('" + str(tmp_path) + "/*.csv')")
    assert code == 1
    assert "PermissionException" in output


def test_scripts_get_every_row_as_csv_json_or_jsonl(warehouse: Settings) -> None:
    import orjson

    query = (
        "select n, n * 1.5::decimal(4, 1) as d, date '2026-12-07' + n::int as day, "
        "'a,\"b' as s from marts.numbers order by n"
    )
    code, out = run(query, "--format", "csv")
    assert code == 0 and out.splitlines() == [
        "n,d,day,s",
        '1,1.5,2026-12-08,"a,""b"',
        '2,3.0,2026-12-09,"a,""b"',
        '3,4.5,2026-12-10,"a,""b"',
    ]
    code, out = run(query, "--format", "json")
    assert code == 0 and orjson.loads(out)[2] == {
        "n": 3,
        "d": "4.5",
        "day": "2026-12-10",
        "s": 'a,"b',
    }
    code, out = run(query, "--format", "jsonl", "--limit", "2")
    assert code == 0 and [orjson.loads(line)["n"] for line in out.splitlines()] == [1, 2]
    code, out = run("select * from marts.numbers where n > 9", "--format", "json")
    assert code == 0 and orjson.loads(out) == []
    code, out = run("copy marts.numbers to 'x.csv'", "--format", "csv")
    assert code == 1 and "read-only" in out  # the rules stay whatever the format


def test_the_memory_limit_holds_in_lakemix_sql(
    warehouse: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKEMIX_MEMORY_LIMIT", "123MB")
    code, out = run("select current_setting('memory_limit') as m", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("117"), out  # 123 MB in MiB
