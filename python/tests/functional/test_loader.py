"""MixLoader on a real release: epoch contents, exact and elastic resume, bad input."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
import torch
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakemix.cli import main
from lakemix.loader import MixLoader, boundaries
from lakemix.settings import Settings
from lakemix.versions import ReleaseError, get_release
from tests.conftest import BIN, ROOT, run

MIX = "demo_unimax"


def loader(settings: Settings, **options: Any) -> MixLoader:
    defaults = {"mix": MIX, "tag": "v1", "seq_len": 64, "batch_size": 4, "seed": 5}
    return MixLoader(settings=settings, **{**defaults, **options})


def tokens_per_document(batches: list[dict[str, Any]]) -> Counter[str]:
    """Real input tokens of each document id (a copy counts its tokens again)."""
    counts: Counter[str] = Counter()
    for batch in batches:
        segment_ids = boundaries.segment_ids(batch)
        for row, documents in enumerate(batch["document_ids"]):
            segments = segment_ids[row][segment_ids[row] >= 0]
            for segment, n in Counter(segments.tolist()).items():
                counts[documents[segment]] += n
    return counts


def same(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> bool:
    if len(left) != len(right):
        return False
    for a, b in zip(left, right, strict=True):
        if a["document_ids"] != b["document_ids"]:
            return False
        if any(not torch.equal(a[k], b[k]) for k in a if k != "document_ids"):
            return False
    return True


def test_an_epoch_is_the_release(release: Settings) -> None:
    mix = loader(release)
    epoch = list(mix)
    manifest = mix.manifest
    train = [s for s in manifest.stats if s.split == "train"]
    # Every token of every copy once, plus one end-of-text token per copy.
    expected = sum(s.tokens + s.samples for s in train)
    assert sum(int(b["cu_seqlens"][-1]) for b in epoch) == expected
    languages: Counter[str] = Counter()
    store = mix.store
    rows = {store.document_id(r): r for r in range(len(store))}
    for document, n in tokens_per_document(epoch).items():
        row = rows[document]
        assert n == store.lengths[row] * store.repeats[row]
        languages[store.language(row)] += n
    assert languages == {s.language: s.tokens + s.samples for s in train}
    batch = epoch[0]
    assert batch["input_ids"].shape == (4, 64) and batch["input_ids"].dtype == torch.int64
    assert torch.equal(batch["labels"][:, :-1], batch["input_ids"][:, 1:])
    assert set(batch) == {"input_ids", "labels", "cu_seqlens", "document_ids"}
    asked = loader(release, extra_fields=["segment_ids", "attention_mask"])
    first = next(iter(asked))
    fields = ["input_ids", "labels", "cu_seqlens", "segment_ids", "attention_mask"]
    assert list(first) == [*fields, "document_ids"]
    assert torch.equal(first["segment_ids"], boundaries.segment_ids(batch))
    second = list(mix)  # the next epoch: same samples, another order
    assert not same(second, epoch)
    assert tokens_per_document(second) == tokens_per_document(epoch)
    assert same(list(loader(release)), epoch)  # deterministic


@pytest.mark.parametrize("method", ["thread", "process"])
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(0, 60), workers=st.integers(0, 2), data=st.data())
def test_resume_equals_the_uninterrupted_stream(
    release: Settings, method: str, cut: int, workers: int, data: Any
) -> None:
    whole = list(loader(release, seq_len=32))
    cut = min(cut, len(whole))
    first = loader(release, seq_len=32, num_workers=workers, worker_method=method)
    stream = iter(first)
    head = [next(stream) for _ in range(cut)]
    state = first.state_dict()
    resumed = loader(
        release, seq_len=32, num_workers=data.draw(st.integers(0, 2)), worker_method=method
    )
    resumed.load_state_dict(state)
    assert same(head + list(resumed), whole)


def test_elastic_resume_reads_the_rest_once(release: Settings) -> None:
    whole = tokens_per_document(list(loader(release)))
    seen: list[dict[str, Any]] = []
    states = []
    for rank, cut in enumerate((7, 19)):
        mix = loader(release, rank=rank, world_size=2, num_workers=1)
        stream = iter(mix)
        seen.extend(next(stream) for _ in range(cut))
        states.append(mix.state_dict())
    for rank in range(3):
        mix = loader(release, rank=rank, world_size=3, batch_size=2)
        mix.load_state_dict(states)
        seen.extend(mix)
    assert tokens_per_document(seen) == whole
    with pytest.raises(ValueError, match="every rank"):
        loader(release, rank=0, world_size=3).load_state_dict(states[:1])


def test_bad_input_is_refused_clearly(release: Settings, tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match=r"no release tagged 'v9' \(releases: v1\)"):
        loader(release, tag="v9")
    with pytest.raises(ValueError, match="is of mix 'demo_unimax', not 'demo_temperature'"):
        loader(release, mix="demo_temperature")
    with pytest.raises(ReleaseError, match=r"no release of mix 'nope'.*demo_unimax"):
        loader(release, mix="nope", tag=None)
    with pytest.raises(ValueError, match=r"split 'validation' of release v1.*has no samples"):
        loader(release, split="validation")
    with pytest.raises(ValueError, match="seq_len must be at least 2, got 1"):
        loader(release, seq_len=1)
    with pytest.raises(ValueError, match="unknown split 'test'"):
        loader(release, split="test")
    with pytest.raises(ValueError, match=r"unknown extra field 'masks'; choose among"):
        loader(release, extra_fields=["segment_ids", "masks"])
    other = loader(release, seed=6)
    with pytest.raises(ValueError, match="the state is of"):
        other.load_state_dict(loader(release).state_dict())


def test_train_tiny_resumes_exactly_and_records_its_documents(
    release: Settings, tmp_path: Path
) -> None:
    script = [str(BIN / "python"), str(ROOT / "examples" / "train_tiny.py"), "--tag", "v1"]
    common = ["--steps", "12", "--checkpoint-every", "3", "--seq-len", "32", "--batch-size", "8"]
    env = {"LAKEMIX_PRINT_FINAL_LOSS": "1", "LAKEMIX_HOME": str(release.home)}
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    run([*script, "--out", str(cut), *common, "--stop-after", "5"], extra_env=env)
    resumed = run([*script, "--out", str(cut), *common, "--resume"], extra_env=env)
    straight = run([*script, "--out", str(whole), *common], extra_env=env)
    assert "resumed at step 5" in resumed.stdout
    final = [line for line in resumed.stdout.splitlines() if line.startswith("final loss")]
    assert final and final[0] in straight.stdout.splitlines()  # bit for bit the same model

    record = orjson.loads((cut / "run.json").read_bytes())
    assert record["tag"] == "v1" and record["steps"] == 12 and record["tokens_seen"] == 12 * 8 * 32
    assert record["snapshots"]["marts.mix_demo_unimax"] == (
        get_release("v1", release).snapshots["marts.mix_demo_unimax"].snapshot_id
    )
    assert record["loader"] == orjson.loads((whole / "run.json").read_bytes())["loader"]

    listed = CliRunner().invoke(main, ["lineage", "--run", str(cut)])
    assert listed.exit_code == 0, listed.output
    assert "release v1 (demo_unimax" in listed.output
    assert f"samples seen: {record['samples_seen']} " in listed.output
    # The documents listed are those of the batches the run trained on.
    mix = loader(release, seq_len=32, batch_size=8, seed=0)
    stream = iter(mix)
    trained = {d for _ in range(12) for docs in next(stream)["document_ids"] for d in docs}
    lines = listed.output.split("document_id", 1)[1].splitlines()[1:]
    assert {line.split()[0] for line in lines if line.strip()} == trained
    missing = CliRunner().invoke(main, ["lineage", "--run", str(tmp_path)])
    assert missing.exit_code == 1 and "no run record" in missing.output


@pytest.mark.parametrize("method", ["thread", "process"])
def test_close_stops_the_workers_and_loses_no_batch(release: Settings, method: str) -> None:
    """A loader left open keeps its workers building batches ahead until the interpreter's
    exit (where a worker thread in a torch operator can abort the process): close() stops
    them, and iterating again continues after the last batch handed out."""
    import multiprocessing
    import threading

    from lakemix.loader import workers

    whole = [b["input_ids"] for b in loader(release, batch_size=1)]
    assert len(whole) > 8
    before = set(threading.enumerate()) | set(multiprocessing.active_children())
    mix = loader(release, batch_size=1, num_workers=2, worker_method=method)
    stream = iter(mix)
    seen = [next(stream)["input_ids"] for _ in range(5)]
    started = set(threading.enumerate()) | set(multiprocessing.active_children())
    assert len(started - before) >= 2 and mix in workers._open  # closed at exit, if not before
    mix.close()
    # (a process queue's feeder thread ends with its queue: multiprocessing joins it at exit)
    alive = [w for w in started - before if w.is_alive() and w.name != "QueueFeederThread"]
    assert not alive and mix not in workers._open
    seen += [next(stream)["input_ids"] for _ in range(2)]  # the suspended iterator goes on
    mix.close()
    seen += [b["input_ids"] for b in mix]
    assert len(seen) == len(whole) and all(map(torch.equal, seen, whole))
    mix.close()  # closing a closed loader does nothing


SLOW_WORKERS = """
import time, torch
from lakemix.loader import MixLoader, materialize
build = materialize.Materializer.build
def slow(self, *args, **kwargs):  # a group takes a second of torch operators, as under load
    x, end = torch.arange(1 << 16), time.monotonic() + 1.0
    while time.monotonic() < end:
        torch.split(x, [1 << 15, 1 << 15])
    return build(self, *args, **kwargs)
materialize.Materializer.build = slow
mix = MixLoader(mix="demo_unimax", tag="v1", seq_len=32, batch_size=4, seed=5, num_workers=2)
next(iter(mix))
print("exit", flush=True)
"""


def test_a_loader_left_open_does_not_abort_the_interpreters_exit(
    release: Settings, tmp_path: Path
) -> None:
    """Workers still building groups when a script ends (a trainer stopped mid-epoch on a busy
    machine) were daemon threads inside torch operators at the interpreter's finalization,
    which aborted the process ("terminate called without an active exception", every time
    with this script before the exit hook): the loader is closed at exit, its workers waited
    for."""
    script = tmp_path / "slow_workers.py"
    script.write_text(SLOW_WORKERS)
    env = {"LAKEMIX_HOME": str(release.home)}
    proc = run([str(BIN / "python"), str(script)], extra_env=env, timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout == "exit\n", proc.stderr[-2000:]
