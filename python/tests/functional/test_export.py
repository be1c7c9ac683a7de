"""lakemix export on a real release: Megatron read back by Megatron-Core, Parquet and JSONL by
Hugging Face datasets, lineage of exported rows, resume after a kill, bad input."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.export import ExportError, ReleaseDamagedError, ReleaseGoneError, export, locate
from lakemix.export.megatron import MAP_SUFFIX as MAP
from lakemix.settings import Settings
from lakemix.versions import connect_at, get_release

SMALL = 40_000  # bytes a shard: several shards from the small release


@pytest.fixture(scope="module")
def train(release: Settings) -> dict[str, tuple[int, str]]:
    """``document_id: (repeat_count, text)`` of v1's train split, read with SQL at the tag."""
    conn = connect_at("v1", settings=release)
    rows = conn.execute(
        "select mix.document_id, mix.repeat_count, clean.text "
        "from marts.mix_demo_unimax as mix "
        "join marts.fct_clean_documents as clean using (document_id) "
        "where mix.split = 'train' and mix.repeat_count > 0"
    ).fetchall()
    conn.close()
    return {d: (int(n), t) for d, n, t in rows}


@pytest.fixture(scope="module")
def parquet_export(release: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("parquet") / "out"
    result = CliRunner().invoke(
        main, ["export", "v1", "--format", "parquet", "--shard-size", f"{SMALL}B", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_manifest(out: Path, release: Settings, fmt: str) -> dict[str, Any]:
    """export.json names the release and matches the files: every shard's bytes and hash."""
    manifest = orjson.loads((out / "export.json").read_bytes())
    released = get_release("v1", release)
    assert manifest["release"]["checksum"] == released.checksum
    assert (manifest["release"]["tag"], manifest["format"], manifest["complete"]) == (
        "v1",
        fmt,
        True,
    )
    files = {"export.json", "README.md"}
    for shard in manifest["shards"]:
        for name, entry in shard["files"].items():
            assert (out / name).stat().st_size == entry["bytes"]
            assert sha256(out / name) == entry["sha256"]
            files.add(name)
    assert {p.name for p in out.iterdir()} == files  # nothing else, no partial file
    totals = manifest["totals"]
    assert totals["documents"] == sum(s["counts"]["documents"] for s in manifest["shards"])
    return manifest


def test_megatron_reads_back_with_megatron_core(
    release: Settings, train: dict[str, tuple[int, str]], tmp_path: Path
) -> None:
    from megatron.core.datasets.indexed_dataset import IndexedDataset

    from lakemix.udf.tokens import _tokenizer

    out = tmp_path / "megatron"
    result = invoke("export", "v1", "--format", "megatron", "--shard-size", "100kB", str(out))
    assert result.exit_code == 0, result.output
    manifest = check_manifest(out, release, "megatron")
    assert len(manifest["shards"]) > 1
    stats = [s for s in get_release("v1", release).stats if s.split == "train"]
    tokenizer = _tokenizer("cl100k")
    eot = tokenizer.eot_token
    copies: dict[str, int] = {}
    tokens = 0
    for number, shard in enumerate(manifest["shards"]):
        prefix = out / f"train-{number:05d}"
        assert set(shard["files"]) == {f"{prefix.name}{s}" for s in (".bin", ".idx", MAP)}
        data = IndexedDataset(str(prefix))  # Megatron-Core's own reader of .bin/.idx
        assert len(data) == shard["counts"]["copies"]
        assert data.index.dtype == np.int32  # cl100k's 100k ids do not fit uint16
        mapping = pq.read_table(f"{prefix}.documents.parquet").to_pylist()
        assert len(mapping) == len(data)
        start = 0
        for index in range(len(data)):
            ids = data[index]
            entry = mapping[index]
            assert ids[-1] == eot and eot not in ids[:-1].tolist()
            assert tokenizer.decode(ids[:-1].tolist()) == train[entry["document_id"]][1]
            assert (entry["token_start"], entry["token_count"]) == (start, len(ids))
            start += len(ids)
            tokens += len(ids)
            copies[entry["document_id"]] = copies.get(entry["document_id"], 0) + 1
    assert copies == {d: n for d, (n, _) in train.items()}  # every copy of the mix, once
    assert tokens == sum(s.tokens + s.samples for s in stats)  # ids and one eot a copy
    assert manifest["totals"]["tokens"] == tokens
    # A position traces back: the map gives the id, lakemix lineage its whole story.
    first = out / "train-00001"
    found = locate(first, token=5)
    assert found == locate(first, document=0) and found["index"] == 0
    traced = invoke("lineage", "--megatron", f"{first}:0")
    assert traced.exit_code == 0, traced.output
    assert f"document {found['document_id']}" in traced.output
    assert "releases: v1 (demo_unimax" in traced.output
    bad = invoke("lineage", "--megatron", str(first))
    assert bad.exit_code == 2 and "write PREFIX:INDEX" in bad.output
    outside = invoke("lineage", "--megatron", f"{first}:{len(data) + 10**6}")
    assert outside.exit_code == 1 and "is outside" in outside.output


def test_parquet_loads_with_hf_datasets(
    release: Settings, train: dict[str, tuple[int, str]], parquet_export: Path, tmp_path: Path
) -> None:
    from datasets import load_dataset

    manifest = check_manifest(parquet_export, release, "parquet")
    assert len(manifest["shards"]) > 1
    files = sorted(str(p) for p in parquet_export.glob("train-*.parquet"))
    cache = str(tmp_path / "hf-cache")  # not ~/.cache: another session's export may be there
    data = load_dataset("parquet", data_files=files, split="train", cache_dir=cache)
    assert data.num_rows == len(train) == manifest["totals"]["documents"]
    assert {r["document_id"]: (r["repeat_count"], r["text"]) for r in data} == train
    ids = data["document_id"]
    assert ids == sorted(ids)  # ordered by id: the order a resumed export goes on in
    row = data[0]
    assert row["language"] and row["source_id"] in {"dolma_cc_en_head", "oscar2201"}
    assert row["file_path"] and row["ingest_id"] and row["file_offset"] is not None
    assert row["token_count"] > 0
    card = (parquet_export / "README.md").read_text()
    assert manifest["release"]["checksum"] in card and "train-*.parquet" in card
    # the card's Hugging Face header: the folder alone loads as the dataset
    assert load_dataset(str(parquet_export), split="train", cache_dir=cache).num_rows == len(train)
    traced = invoke("lineage", ids[0])
    assert traced.exit_code == 0 and "releases: v1" in traced.output


def test_jsonl_matches_parquet(
    release: Settings, train: dict[str, tuple[int, str]], parquet_export: Path, tmp_path: Path
) -> None:
    from datasets import load_dataset

    out = tmp_path / "jsonl"
    result = invoke("export", "v1", "--format", "jsonl", "--shard-size", f"{SMALL}B", str(out))
    assert result.exit_code == 0, result.output
    manifest = check_manifest(out, release, "jsonl")
    files = sorted(str(p) for p in out.glob("train-*.jsonl"))
    data = load_dataset("json", data_files=files, split="train", cache_dir=str(tmp_path / "hf"))
    parquet = pq.read_table(sorted(parquet_export.glob("*.parquet"))).to_pylist()
    assert data.to_list() == parquet
    shards = orjson.loads((parquet_export / "export.json").read_bytes())["shards"]
    assert [s["counts"] for s in manifest["shards"]] == [s["counts"] for s in shards]


@pytest.mark.parametrize("fmt", ["parquet", "megatron"])
def test_a_killed_export_resumes_without_rewriting(
    release: Settings, tmp_path: Path, fmt: str
) -> None:
    whole = export("v1", tmp_path / "whole", fmt=fmt, shard_size=SMALL, settings=release)
    out = tmp_path / "killed"
    kill_after = 2

    def killed(record: dict[str, Any]) -> None:
        if len(orjson.loads((out / "export.json").read_bytes())["shards"]) == kill_after:
            raise KeyboardInterrupt  # as a kill: nothing runs after it

    with pytest.raises(KeyboardInterrupt):
        export("v1", out, fmt=fmt, shard_size=SMALL, settings=release, on_shard=killed)
    journal = orjson.loads((out / "export.json").read_bytes())
    assert not journal["complete"] and len(journal["shards"]) == kill_after
    finished = {n: (out / n).stat().st_ino for s in journal["shards"] for n in s["files"]}
    (out / "train-00002.bin.partial").write_bytes(b"half a shard")
    (out / "train-00002.parquet").write_bytes(b"renamed, never recorded")
    again = export("v1", out, fmt=fmt, shard_size=SMALL, settings=release)
    assert again.resumed_shards == kill_after
    assert again.written_shards == len(whole.manifest["shards"]) - kill_after
    for name, inode in finished.items():
        assert (out / name).stat().st_ino == inode  # the finished shards were not rewritten
    assert [s["files"] for s in again.manifest["shards"]] == [
        s["files"] for s in whole.manifest["shards"]
    ]  # same bytes as an uninterrupted export
    assert (out / "README.md").read_text() == (tmp_path / "whole" / "README.md").read_text()
    recorded = {n for s in again.manifest["shards"] for n in s["files"]}
    assert {p.name for p in out.iterdir()} == recorded | {"export.json", "README.md"}
    done = invoke("export", "v1", "--format", fmt, "--shard-size", f"{SMALL}B", str(out))
    assert done.exit_code == 0 and "complete: nothing to do" in done.output


def test_bad_input_is_refused_clearly(
    release: Settings, parquet_export: Path, tmp_path: Path
) -> None:
    out = str(tmp_path / "out")
    cases = [
        (["v9"], r"no release tagged 'v9' \(releases: v1\)"),
        (["v1", "--split", "test"], r"unknown split 'test'; choose one of train, validation"),
        (["v1", "--split", "validation"], r"release v1 has no validation documents"),
        (["v1", "--tokenizer", "cl100k"], r"--tokenizer is for --format megatron"),
        (["v1", "--shard-size", "big"], r"'big' is not a size"),
    ]
    for args, message in cases:
        result = invoke("export", *args, "--format", "parquet", out)
        assert result.exit_code != 0
        assert re.search(message, result.output), result.output
    unknown = invoke("export", "v1", "--format", "megatron", "--tokenizer", "gpt9", out)
    assert "unknown tokenizer 'gpt9'; choose one of cl100k, o200k, llama3, qwen3" in unknown.output
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    refused = invoke("export", "v1", "--format", "parquet", str(other))
    assert "is not empty and holds no lakemix export" in refused.output
    # the folder of another export: another format, another shard size, another release
    for args in (["--format", "jsonl"], ["--format", "parquet", "--shard-size", "1MB"]):
        refused = invoke("export", "v1", *args, str(parquet_export))
        assert refused.exit_code != 0 and "holds another export" in refused.output
    manifest = orjson.loads((parquet_export / "export.json").read_bytes())
    forged = tmp_path / "forged"
    shutil.copytree(parquet_export, forged)
    manifest["release"]["checksum"] = "0-00"
    (forged / "export.json").write_bytes(orjson.dumps(manifest))
    refused = invoke(
        "export", "v1", "--format", "parquet", "--shard-size", f"{SMALL}B", str(forged)
    )
    assert "holds another export (release v1 (checksum 0-00)" in refused.output
    assert not (tmp_path / "out").exists()


def test_a_garbage_collected_release_says_how_to_rebuild(release: Settings, tmp_path: Path) -> None:
    """A copy of the lakehouse whose mix lost the release's snapshot (untagged, expired)."""
    from lakemix.catalog import catalog
    from lakemix.versions.relocate import relocate

    copy = tmp_path / "lakehouse"
    shutil.copytree(release.home, copy, ignore=shutil.ignore_patterns("loader", "rebuilds"))
    settings = Settings.from_env({"LAKEMIX_HOME": str(copy)})
    relocate(settings=settings)  # the copy's own files, or its catalog refuses them
    table = catalog(settings).load_table("marts.mix_demo_unimax")
    pinned = get_release("v1", settings).snapshots["marts.mix_demo_unimax"].snapshot_id
    table.manage_snapshots().remove_tag("v1").commit()
    table = catalog(settings).load_table("marts.mix_demo_unimax")
    if table.metadata.current_snapshot_id == pinned:  # the current one cannot be expired
        table.overwrite(table.scan().to_arrow())
        table = catalog(settings).load_table("marts.mix_demo_unimax")
    table.maintenance.expire_snapshots().by_ids([pinned]).commit()
    with pytest.raises(ReleaseGoneError) as caught:
        export("v1", tmp_path / "out", fmt="parquet", settings=settings)
    message = str(caught.value)
    assert f"marts.mix_demo_unimax no longer has its snapshot {pinned}" in message
    assert "`lakemix rebuild v1 --keep`" in message
    assert isinstance(caught.value, ExportError)
    # the original is untouched
    assert export("v1", tmp_path / "fine", fmt="jsonl", settings=release).manifest["complete"]


def test_a_file_deleted_by_hand_is_named_not_called_garbage_collected(
    release: Settings, tmp_path: Path
) -> None:
    """A data file of the release deleted while its snapshot is still in the table's metadata:
    gc did not do it, so the error names the file and ``lakemix verify --tag``, in one line."""
    from lakemix.catalog import catalog
    from lakemix.iceberg import local_path

    pinned = get_release("v1", release).snapshots["marts.mix_demo_unimax"].snapshot_id
    table = catalog(release).load_table("marts.mix_demo_unimax")
    lost = Path(local_path(next(iter(table.scan(snapshot_id=pinned).plan_files())).file.file_path))
    aside = tmp_path / "aside.parquet"
    shutil.move(lost, aside)
    try:
        with pytest.raises(ReleaseDamagedError) as caught:
            export("v1", tmp_path / "out", fmt="parquet", settings=release)
        message = str(caught.value)
        assert str(lost) in message and "`lakemix verify --tag v1`" in message
        assert "garbage-collected" not in message and "did not expire it" in message
        assert isinstance(caught.value, ExportError)
        refused = invoke("export", "v1", "--format", "jsonl", str(tmp_path / "cli"))
        assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
        assert str(lost) in refused.output
    finally:
        shutil.move(aside, lost)
    assert export("v1", tmp_path / "fine", fmt="jsonl", settings=release).manifest["complete"]


def test_megatron_in_another_tokenizer(
    release: Settings, train: dict[str, tuple[int, str]], tmp_path: Path
) -> None:
    from megatron.core.datasets.indexed_dataset import IndexedDataset

    from lakemix.udf.tokens import _tokenizer

    out = tmp_path / "o200k"
    export("v1", out, fmt="megatron", tokenizer="o200k", settings=release)
    manifest = orjson.loads((out / "export.json").read_bytes())
    tokenizer = _tokenizer("o200k")
    assert manifest["settings"]["tokenizer"] == "o200k"
    assert manifest["settings"]["eod"] == tokenizer.eot_token
    data = IndexedDataset(str(out / "train-00000"))
    mapping = pq.read_table(out / f"train-00000{MAP}").column("document_id").to_pylist()
    for index in range(len(data)):
        ids = data[index]
        assert ids[-1] == tokenizer.eot_token
        assert tokenizer.decode(ids[:-1].tolist()) == train[mapping[index]][1]
    assert len(data) == sum(n for n, _ in train.values())
