"""MixLoader on a real release: epoch contents, exact and elastic resume, bad input."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.loader import MixLoader
from lakemix.settings import Settings
from lakemix.versions import ReleaseError
from tests.conftest import ENV_VARS, WEB, dbt

MIX = "demo_unimax"


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """One release of the demo mix over two small real corpora, built once for the module."""
    tmp = tmp_path_factory.mktemp("loader")
    with pytest.MonkeyPatch.context() as patch:
        for name in ENV_VARS:
            patch.delenv(name, raising=False)
        patch.setenv("LAKEMIX_HOME", str(tmp / "lakehouse"))
        patch.setenv("DBT_TARGET_PATH", str(tmp / "target"))
        patch.setenv("DBT_LOG_PATH", str(tmp / "logs"))
        ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
        ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
        dbt("build", tmp=tmp)
        for args in (["mix", "build", MIX], ["release", MIX, "--tag", "v1"]):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, result.output
        yield Settings.from_env()


def loader(settings: Settings, **options: Any) -> MixLoader:
    defaults = {"mix": MIX, "tag": "v1", "seq_len": 64, "batch_size": 4, "seed": 5}
    return MixLoader(settings=settings, **{**defaults, **options})


def tokens_per_document(batches: list[dict[str, Any]]) -> Counter[str]:
    """Real input tokens of each document id (a copy counts its tokens again)."""
    counts: Counter[str] = Counter()
    for batch in batches:
        for row, documents in enumerate(batch["document_ids"]):
            segments = batch["segment_ids"][row][batch["attention_mask"][row].bool()]
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
    train = [s for s in manifest["stats"] if s["split"] == "train"]
    # Every token of every copy once, plus one end-of-text token per copy.
    expected = sum(s["tokens"] + s["samples"] for s in train)
    assert sum(int(b["attention_mask"].sum()) for b in epoch) == expected
    languages: Counter[str] = Counter()
    store = mix.store
    rows = {store.document_id(r): r for r in range(len(store))}
    for document, n in tokens_per_document(epoch).items():
        row = rows[document]
        assert n == store.lengths[row] * store.repeats[row]
        languages[store.language(row)] += n
    assert languages == {s["language"]: s["tokens"] + s["samples"] for s in train}
    batch = epoch[0]
    assert batch["input_ids"].shape == (4, 64) and batch["input_ids"].dtype == torch.int64
    assert torch.equal(batch["labels"][:, :-1], batch["input_ids"][:, 1:])
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
    other = loader(release, seed=6)
    with pytest.raises(ValueError, match="the state is of"):
        other.load_state_dict(loader(release).state_dict())
