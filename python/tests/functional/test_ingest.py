"""lakemix ingest on real corpus files and on broken ones, in a private lakehouse."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import zstandard

from lakemix import catalog, duck
from lakemix.ingest import IngestInputError, ingest
from lakemix.settings import Settings
from tests.conftest import WEB


def scan(
    settings: Settings, table: str, sql: str = "select count(*) from t"
) -> list[tuple[object, ...]]:
    t = catalog(settings).load_table(table)
    conn = duck.connect(settings=settings)
    conn.execute(f"create view t as select * from iceberg_scan('{t.metadata_location}')")
    return conn.execute(sql).fetchall()


def test_real_corpora_ingest_once(lakehouse: Settings) -> None:
    first = ingest([WEB / "dolma_cc_en_head"], source="mixed", fmt="auto")
    first.files += ingest([WEB / "hplt_warc2text"], source="mixed", fmt="hplt").files
    # dolma_cc_en_head: 20 documents; hplt: 1,000 TSV + 200 JSONL records, 8 with null text
    assert first.total("documents") == 20 + 1_000 + 192
    assert first.total("quarantined") == 8
    assert [f.status for f in first.files if f.status != "ingested"] == [
        "not read"
    ] * 2  # SOURCE.txt
    assert scan(lakehouse, "raw.documents") == [(1212,)]
    reasons = scan(lakehouse, "raw.quarantine", "select distinct reason from t")
    assert reasons == [("text field 't' is null, expected a string",)]

    # the same content is skipped whatever format or source it is offered under
    again = ingest([WEB / "dolma_cc_en_head", WEB / "hplt_warc2text"], source="mixed", fmt="hplt")
    assert again.total("documents") == 0 and again.skipped == 5
    assert again.documents_snapshot_id is None
    assert scan(lakehouse, "raw.documents") == [(1212,)]
    assert scan(lakehouse, "raw.quarantine") == [(8,)]


def test_one_snapshot_per_ingest_with_its_files_recorded(lakehouse: Settings) -> None:
    result = ingest([WEB / "dolma_cc_en_head"], source="cc_head")
    table = catalog(lakehouse).load_table("raw.documents")
    snap = table.current_snapshot()
    assert snap is not None and snap.snapshot_id == result.documents_snapshot_id
    assert len(table.snapshots()) == 1
    props = snap.summary.additional_properties if snap.summary else {}
    files = json.loads(props["lakemix.files"])
    assert sorted(Path(f["path"]).name for f in files) == [
        "cc_en_head-0091.jsonl",
        "cc_en_head-0174.jsonl",
    ]
    assert all(len(f["sha256"]) == 64 for f in files)
    assert props["lakemix.source"] == "cc_head" and props["lakemix.version"]


def test_document_ids_are_stable_across_lakehouses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = []
    for name in ("a", "b"):
        monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / name))
        settings = Settings.from_env()
        ingest(
            [WEB / "oscar2019" / "unshuffled_deduplicated_de.txt.gz"], source="oscar", fmt="oscar"
        )
        ids.append(scan(settings, "raw.documents", "select document_id from t order by 1"))
    assert ids[0] == ids[1] and len(ids[0]) > 0


def test_bad_files_never_abort_the_others(lakehouse: Settings, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g1", "text": "fine"}\n{"id": "g2", "text": "also fine"}\n')
    cut = tmp_path / "cut.jsonl.gz"
    blob = gzip.compress(
        b"".join(b'{"id": "c%d", "text": "row %d"}\n' % (i, i) for i in range(5000))
    )
    cut.write_bytes(blob[: len(blob) // 2])
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    nul = tmp_path / "nul.jsonl"
    nul.write_bytes(b'{"text": "a\\u0000b"}\n\x00\x00\x00\n')
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes('{"id": "w1", "text": "wörld"}\n'.encode("utf-16"))
    garbage = tmp_path / "garbage.jsonl.zst"
    garbage.write_bytes(zstandard.ZstdCompressor().compress(b"x" * 100)[:4] + b"\0" * 64)
    result = ingest([good, cut, empty, nul, utf16, garbage], source="hostile")
    by_name = {Path(f.path).name: f for f in result.files}
    assert by_name["good.jsonl"].documents == 2
    assert by_name["cut.jsonl.gz"].documents > 0 and by_name["cut.jsonl.gz"].quarantined == 1
    assert by_name["empty.jsonl"].read == 0
    assert by_name["nul.jsonl"].documents == 1 and by_name["nul.jsonl"].quarantined == 1
    reasons = dict(
        scan(lakehouse, "raw.quarantine", "select split_part(file, '/', -1), reason from t")
    )
    assert "unreadable stream" in reasons["cut.jsonl.gz"]
    assert reasons["nul.jsonl"].startswith("invalid JSON")
    assert reasons["garbage.jsonl.zst"].startswith("unreadable stream at its start")
    assert by_name["utf16.jsonl"].documents == 1
    assert scan(lakehouse, "raw.documents", "select text from t where text like 'w%'") == [
        ("wörld",)
    ]
    # nothing lost: every record is a document or in quarantine
    total = scan(lakehouse, "raw.documents")[0][0] + scan(lakehouse, "raw.quarantine")[0][0]
    assert total == result.total("read")


def test_bad_arguments_are_clear_errors_and_write_nothing(
    lakehouse: Settings, tmp_path: Path
) -> None:
    with pytest.raises(IngestInputError, match=r"no such file or directory: .*missing\.jsonl"):
        ingest([tmp_path / "missing.jsonl"], source="s")
    with pytest.raises(IngestInputError, match="invalid source name"):
        ingest([WEB / "dolma_cc_en_head"], source="../etc")
    with pytest.raises(IngestInputError, match="unknown format 'xml'"):
        ingest([WEB / "dolma_cc_en_head"], source="s", fmt="xml")
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    with pytest.raises(
        IngestInputError, match=r"loop_a \(a symlink that leads nowhere or to itself"
    ):
        ingest([tmp_path / "loop_a"], source="s")
    (tmp_path / "only.bin").write_bytes(b"x")
    with pytest.raises(IngestInputError, match="pass --format"):
        ingest([tmp_path / "only.bin"], source="s")
    assert not (lakehouse.home / "catalog.db").exists()


def test_the_cli_prints_a_summary(lakehouse: Settings) -> None:
    from click.testing import CliRunner

    from lakemix.cli import main

    runner = CliRunner()
    out = runner.invoke(
        main, ["ingest", str(WEB / "oscar2201"), "--source", "oscar2201", "--format", "jsonl"]
    )
    assert out.exit_code == 0, out.output
    assert "63 ingested, 0 quarantined" in out.output
    out = runner.invoke(main, ["ingest", str(WEB / "oscar2201"), "--source", "oscar2201"])
    assert "nothing new to ingest" in out.output
    out = runner.invoke(main, ["ingest", "/no/such/path", "--source", "x"])
    assert out.exit_code == 1 and "no such file or directory: /no/such/path" in out.output


def test_an_ingest_that_could_read_no_file_exits_1(
    lakehouse: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file failed while read (a disk error here; unreadable for a user without root's
    capabilities): nothing ingested, the note of each file printed, and the exit status says
    so. The README beside it does not count as a file that failed."""
    from click.testing import CliRunner

    from lakemix.cli import main
    from lakemix.ingest import run

    (tmp_path / "docs.jsonl").write_text('{"id": "a", "text": "one"}\n')
    (tmp_path / "README.md").write_text("about the corpus\n")

    def failing(self: object) -> None:  # the file's bytes could not all be read back
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(run.CheckedFile, "verify", failing)
    out = CliRunner().invoke(main, ["ingest", str(tmp_path), "--source", "eio"])
    assert out.exit_code == 1, out.output
    assert "nothing ingested: 1 file(s) not read" in out.output, out.output
    assert "Input/output error" in out.output


def test_broken_last_record_and_cut_stream_are_two_quarantine_rows(
    lakehouse: Settings, tmp_path: Path
) -> None:
    # enough good rows that the cut falls after a full decoder chunk, then a broken record
    rows = b"".join(b'{"id": "r%d", "text": "row %d"}\n' % (i, i) for i in range(20_000))
    blob = gzip.compress(rows + b'{"id": "bad", "text": \n' + b"x" * 100_000)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(blob[:-50])
    result = ingest([path], source="cut")
    assert result.total("quarantined") == 2  # the broken record, then the cut stream at its offset
    ids = scan(lakehouse, "raw.quarantine", "select quarantine_id from t")
    assert len(ids) == len(set(ids)) == result.total("quarantined")
