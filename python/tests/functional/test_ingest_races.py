"""Four ingests of overlapping folders at once, on SQLite and PostgreSQL: each file exactly once.

pyiceberg replays a commit that lost a race onto the winner's table (``add_files`` again), so
before ``commit.retry.num-retries=0`` two ingests of one file both committed it. The rounds
start the four ingests in forked processes together and repeat until the race was hit often.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from pathlib import Path

import orjson

from lakemix import catalog
from lakemix.ingest import ingest
from lakemix.ingest.ledger import FILES_PROPERTY
from lakemix.settings import Settings

ROUNDS = 6
FILES = 8
LINES = 5
# Four folders over eight files: every file is in two or three of them.
FOLDERS = {"a": range(0, 4), "b": range(2, 6), "c": range(4, 8), "d": (0, 3, 5, 7)}


def _corpus(root: Path, round_: int) -> dict[str, Path]:
    """The four folders of one round; file contents are new in every round."""
    folders = {}
    for name, members in FOLDERS.items():
        folder = root / f"round{round_}" / name
        folder.mkdir(parents=True)
        for n in members:
            lines = [
                orjson.dumps({"id": f"r{round_}-f{n}-{i}", "text": f"round {round_} file {n} #{i}"})
                for i in range(LINES)
            ]
            (folder / f"part-{n}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        folders[name] = folder
    return folders


def _ingest(folder: Path, go: multiprocessing.synchronize.Barrier) -> None:  # type: ignore[name-defined]
    go.wait()
    ingest([folder], source="race", fmt="jsonl", progress=False)


def test_concurrent_ingests_commit_each_file_once(any_lakehouse: Settings, tmp_path: Path) -> None:
    ingest([_corpus(tmp_path / "warm", 0)["a"]], source="race", fmt="jsonl", progress=False)
    context = multiprocessing.get_context("fork")
    for round_ in range(1, ROUNDS + 1):
        folders = _corpus(tmp_path, round_)
        go = context.Barrier(len(folders))
        procs = [context.Process(target=_ingest, args=(f, go)) for f in folders.values()]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(timeout=300)
            assert proc.exitcode == 0, f"an ingest of round {round_} failed ({proc.exitcode})"

    table = catalog(any_lakehouse).load_table("raw.documents")
    ids = table.scan(selected_fields=("document_id",)).to_arrow().column("document_id")
    doubled = {k: v for k, v in Counter(ids.to_pylist()).items() if v > 1}
    assert not doubled, f"{len(doubled)} documents committed more than once"
    assert len(ids) == (ROUNDS * FILES + 4) * LINES  # nothing lost either (round 0: 4 files)
    ledger: Counter[str] = Counter()
    for snapshot in table.metadata.snapshots:
        extra = snapshot.summary.additional_properties if snapshot.summary else {}
        ledger.update(e["sha256"] for e in orjson.loads(extra.get(FILES_PROPERTY, "[]")))
    assert set(ledger.values()) == {1}, "a file is in the ledger twice"
    assert len(ledger) == ROUNDS * FILES + 4
