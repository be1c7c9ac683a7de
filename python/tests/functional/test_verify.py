"""``lakemix verify`` finds missing, truncated and damaged files and says how to repair them;
readers name a lost file in one line."""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from lakemix import catalog
from lakemix.cli import main
from lakemix.dbt.store import StoreRequest, store
from lakemix.iceberg import local_path
from lakemix.ingest import ingest
from lakemix.settings import Settings
from tests.conftest import lakehouse_in


def _folder(root: Path, name: str, lines: int) -> Path:
    folder = root / name
    folder.mkdir()
    rows = [
        orjson.dumps({"id": f"{name}-{i}", "text": f"{name} text number {i} " * 20})
        for i in range(lines)
    ]
    (folder / "part.jsonl").write_bytes(b"\n".join(rows) + b"\n")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two ingests, a model table and a tag, built once; each test works on a copy."""
    tmp = tmp_path_factory.mktemp("verify")
    with lakehouse_in(tmp) as settings:
        ingest([_folder(tmp, "first", 300)], source="one", progress=False)
        ingest([_folder(tmp, "second", 200)], source="two", progress=False)
        staged = tmp / "staged"
        staged.mkdir()
        pq.write_table(pa.table({"document_id": ["a", "b"]}), staged / "part.parquet")
        cat = catalog(settings)
        store(cat, StoreRequest("marts.fct_things", str(staged), "overwrite", {}))
        raw = cat.load_table("raw.documents")
        raw.manage_snapshots().create_tag(raw.metadata.current_snapshot_id, "v1").commit()
    return tmp


def _files(settings: Settings, table: str) -> list[Path]:
    t = catalog(settings).load_table(table)
    return [Path(local_path(task.file.file_path)) for task in t.scan().plan_files()]


def _verify(*args: str) -> Result:
    return CliRunner().invoke(main, ["verify", *args])


def test_a_clean_lakehouse_passes(built: Path) -> None:
    with lakehouse_in(built):
        for args in ((), ("--deep",), ("--all-tags",), ("--tag", "v1")):
            result = _verify(*args)
            assert result.exit_code == 0, result.output
            assert "all files present and readable" in result.output
            assert "BROKEN" not in result.output
        unknown = _verify("--tag", "nope")
        assert unknown.exit_code == 1
        assert "no table has the tag 'nope'" in unknown.output


def test_missing_and_truncated_files_are_found_with_their_repair(built: Path) -> None:
    with lakehouse_in(built) as settings:
        model_file = _files(settings, "marts.fct_things")[0]
        raw_file = sorted(_files(settings, "raw.documents"))[0]
        ingest_id = raw_file.name.split("-")[1]
        model_bytes, raw_bytes = model_file.read_bytes(), raw_file.read_bytes()
        try:
            model_file.unlink()
            raw_file.write_bytes(raw_bytes[: len(raw_bytes) // 2])
            result = _verify("--all-tags")
            assert result.exit_code == 1
            out = result.output
            assert "BROKEN  marts.fct_things: 1 of 1 files" in out
            assert f"missing: {model_file}" in out or f"missing: file://{model_file}" in out
            assert "repair: `dbt build --full-refresh --select fct_things+`" in out
            assert "BROKEN  raw.documents: 1 of 2 files" in out
            assert f"bytes, the manifest records {len(raw_bytes):,}" in out
            assert "[current, tag v1]" in out
            assert f"`lakemix ingest-remove {ingest_id}`" in out
            assert "release tag(s) v1 read these files" in out
            assert "ok      raw.quarantine" in out

            # Readers: one line naming the table, the file and lakemix verify.
            sql = CliRunner().invoke(main, ["sql", "select * from marts.fct_things"])
            assert sql.exit_code == 1
            assert sql.output.startswith("Error: marts.fct_things: a file of the table is missing")
            assert str(model_file) in sql.output and "lakemix verify" in sql.output
            assert sql.output.count("\n") == 1, sql.output
        finally:
            model_file.write_bytes(model_bytes)
            raw_file.write_bytes(raw_bytes)
        assert _verify().exit_code == 0


def test_deep_reads_every_row_group(built: Path) -> None:
    """A file damaged inside its pages (same size, footer intact) passes the quick check and
    fails the deep one."""
    with lakehouse_in(built) as settings:
        raw_file = sorted(_files(settings, "raw.documents"))[0]
        good = raw_file.read_bytes()
        chunk = pq.ParquetFile(raw_file).metadata.row_group(0).column(9)  # text
        assert chunk.path_in_schema == "text"
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        size = chunk.total_compressed_size
        damaged = good[:start] + bytes(size) + good[start + size :]  # its pages zeroed
        try:
            raw_file.write_bytes(damaged)
            assert _verify().exit_code == 0
            deep = _verify("--deep")
            assert deep.exit_code == 1
            assert f"unreadable: {raw_file}" in deep.output or "unreadable: file://" in deep.output
        finally:
            raw_file.write_bytes(good)
