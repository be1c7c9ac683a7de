"""A dynamic mix on a real release: weights set online, exact and elastic resume, lineage."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
import torch
from click.testing import CliRunner

from lakemix.cli import main
from lakemix.loader import MixLoader
from lakemix.loader.runs import format_run, read_run_record, run_documents
from lakemix.loader.trainers import record_run
from lakemix.settings import Settings
from tests.conftest import BIN, ROOT
from tests.conftest import run as run_command

MIX = "demo_unimax"


def loader(settings: Settings, **options: Any) -> MixLoader:
    defaults = {"mix": MIX, "tag": "v1", "seq_len": 32, "batch_size": 2, "seed": 5}
    return MixLoader(settings=settings, groups="language", **{**defaults, **options})


def scripted(names: tuple[str, ...], step: int) -> dict[str, float] | None:
    """A policy that reacts to steps as a loss-driven one would: new weights every 7 steps."""
    if step % 7:
        return None
    lead = names[(step // 7) % len(names)]
    rest = 0.5 / (len(names) - 1)
    return {n: 0.5 if n == lead else rest for n in names}


def run(mix: MixLoader, steps: int) -> list[dict[str, Any]]:
    """``steps`` batches, setting the scripted weights for the next step after each."""
    out: list[dict[str, Any]] = []
    for batch in mix:
        out.append(batch)
        weights = scripted(mix.group_names, mix.step)
        if weights is not None:
            mix.set_weights(weights, at_step=mix.step)
        if len(out) == steps:
            return out
    raise AssertionError("a dynamic mix's batches do not end")


def same(left: list[dict[str, Any]], right: list[dict[str, Any]]) -> bool:
    return len(left) == len(right) and all(
        a["document_ids"] == b["document_ids"]
        and all(torch.equal(a[k], b[k]) for k in a if k != "document_ids")
        for a, b in zip(left, right, strict=True)
    )


@pytest.mark.parametrize("workers", [0, 1])
def test_kill_and_resume_with_weight_changes_is_bit_exact(release: Settings, workers: int) -> None:
    # The demo's documents are long (40 steps of 64 tokens draw two to four): under seed 23 the
    # changes alter the draws both before and after the cut, which the last line checks.
    options = {"num_workers": workers, "extra_fields": ("group_ids", "segment_ids"), "seed": 23}
    whole = run(loader(release, **options), 40)
    first = loader(release, **options)
    head = run(first, 18)  # changes at 7 and 14 before the cut, 21, 28 and 35 after it
    state = first.state_dict()
    assert [c[0] for c in state["weights"]["changes"]] == [7, 14]
    resumed = loader(release, **options)
    resumed.load_state_dict(state)
    tail = run(resumed, 22)
    assert same(head + tail, whole)
    plain = run_plain(loader(release, seed=23), 40)  # the weights made a difference
    assert not same(plain[:18], whole[:18]) and not same(plain[18:], whole[18:])


def test_group_ids_name_each_tokens_group(release: Settings) -> None:
    mix = loader(release, extra_fields=("group_ids", "segment_ids"))
    names = mix.group_names
    store = mix.store
    rows = {store.document_id(r): r for r in range(len(store))}
    batch = next(iter(mix))
    for row in range(2):
        for token in range(32):
            document = batch["document_ids"][row][int(batch["segment_ids"][row, token])]
            group = names[int(batch["group_ids"][row, token])]
            assert store.language(rows[document]) == group


def test_weights_steer_the_groups(release: Settings) -> None:
    mix = loader(release, extra_fields=("group_ids",))
    only = mix.group_names[0]
    mix.set_weights({only: 1.0}, at_step=0)
    batches = run_plain(mix, 10)
    seen = Counter(int(g) for b in batches for g in b["group_ids"].flatten())
    assert set(seen) <= {0, -1}
    with pytest.raises(ValueError, match="step 0 was handed out already"):
        mix.set_weights({only: 1.0}, at_step=0)
    with pytest.raises(ValueError, match="unknown group"):
        mix.set_weights({"xx": 1.0})
    with pytest.raises(ValueError, match="must sum to 1"):
        mix.set_weights({only: 0.5})


def run_plain(mix: MixLoader, steps: int) -> list[dict[str, Any]]:
    out = []
    for batch in mix:
        out.append(batch)
        if len(out) == steps:
            return out
    raise AssertionError("a dynamic mix's batches do not end")


def test_elastic_resume_reads_every_started_group_epoch_on(release: Settings) -> None:
    two = [loader(release, rank=r, world_size=2) for r in (0, 1)]
    for mix in two:
        run_plain(mix, 12)
    states = [m.state_dict() for m in two]
    one = loader(release, rank=0, world_size=1)
    one.load_state_dict(states)
    assert one.step == 12
    batches = run_plain(one, 5)
    assert all(b["input_ids"].shape == (2, 32) for b in batches)
    assert one.state_dict()["firsts"] is not None


def documents_of(batches: list[dict[str, Any]]) -> set[str]:
    return {d for b in batches for row in b["document_ids"] for d in row}


def test_lineage_after_an_elastic_resume_names_what_each_world_size_read(
    release: Settings, tmp_path: Path
) -> None:
    two = [loader(release, rank=r, world_size=2) for r in (0, 1)]
    read_by_two = [run(mix, 12) for mix in two]  # weight changes at step 7, before the cut
    states = [m.state_dict() for m in two]
    record_run(two[0], tmp_path / "two", states, {"steps": 12})
    _, before = run_documents(tmp_path / "two", release)
    one = loader(release, rank=0, world_size=1)
    one.load_state_dict(states)
    read_by_one = run(one, 9)  # and at 14, after it
    record_run(one, tmp_path / "one", [one.state_dict()], {"steps": 21})
    record = read_run_record(tmp_path / "one")
    _, after = run_documents(tmp_path / "one", release)
    copies = Counter({d: n for d, _, n in after})
    earlier = Counter({d: n for d, _, n in before})
    # every document read by either world size, and none other
    assert set(copies) == documents_of(read_by_two[0] + read_by_two[1] + read_by_one)
    assert all(copies[d] >= n for d, n in earlier.items())  # what two ranks read is kept
    new = copies - earlier
    assert set(new) <= documents_of(read_by_one)
    # a document the new rank did not start anew was one the two ranks were cut in
    cut = {d for batches in read_by_two for d in batches[-1]["document_ids"][-1]}
    assert documents_of(read_by_one) - set(new) <= cut
    assert sum(copies.values()) == record["samples_seen"]
    assert [row["step"] for row in record["weights_trajectory"]] == [0, 7, 14]


def test_run_record_and_lineage_of_a_dynamic_run(release: Settings, tmp_path: Path) -> None:
    mix = loader(release)
    batches = run(mix, 15)
    record_run(mix, tmp_path, [mix.state_dict()], {"steps": 15})
    record = read_run_record(tmp_path)
    assert record["groups_by"] == "language"
    assert [row["step"] for row in record["weights_trajectory"]] == [0, 7, 14]
    assert set(record["group_epochs"]) == set(mix.group_names)
    _, documents = run_documents(tmp_path, release)
    read = {d for b in batches for row in b["document_ids"] for d in row}
    assert {d for d, _, _ in documents} == read
    assert sum(n for _, _, n in documents) == record["samples_seen"] == mix.state_dict()["draws"]
    text = format_run(tmp_path, release)
    assert "groups by language, epochs read:" in text
    assert "weights from step 7" in text
    shown = CliRunner().invoke(main, ["show", "--run", str(tmp_path), "--width", "15"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith(f"run {tmp_path}: release v1 ({MIX}")
    assert [line.split()[0] for line in lines[6:9]] == ["0", "7", "14"]  # the table's steps
    plot = lines[lines.index(next(x for x in lines if x.startswith("weight per group"))) + 1 :]
    assert len(plot) == len(mix.group_names) and all(len(x.split("|")[1]) == 15 for x in plot)
    refused = CliRunner().invoke(main, ["show"])
    assert refused.exit_code != 0 and "give a release TAG, --run" in refused.output


def test_train_tiny_with_odm_resumes_exactly(release: Settings, tmp_path: Path) -> None:
    script = [str(BIN / "python"), str(ROOT / "examples" / "train_tiny.py"), "--tag", "v1"]
    common = ["--steps", "16", "--checkpoint-every", "6", "--seq-len", "32", "--batch-size", "4"]
    common += ["--policy", "exp3", "--update-every", "4", "--num-workers", "0"]
    env = {"LAKEMIX_PRINT_FINAL_LOSS": "1", "LAKEMIX_HOME": str(release.home)}
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    command(["--out", str(cut), "--stop-after", "6"], script, common, env)
    resumed = command(["--out", str(cut), "--resume"], script, common, env)
    straight = command(["--out", str(whole)], script, common, env)
    assert "resumed at step 6" in resumed.stdout
    final = [line for line in resumed.stdout.splitlines() if line.startswith("final loss")]
    assert final and final[0] in straight.stdout.splitlines()  # bit for bit the same model
    record = orjson.loads((cut / "run.json").read_bytes())
    expected = orjson.loads((whole / "run.json").read_bytes())
    # in full, each side: a rare difference here (once in many suites) is not yet explained
    differing = {
        key: {"resumed": record.get(key), "straight": expected.get(key)}
        for key in sorted((record.keys() | expected.keys()) - {"written_at"})
        if record.get(key) != expected.get(key)
    }
    assert not differing, f"the resumed run's record differs: {differing!r}"
    assert [row["step"] for row in record["weights_trajectory"]] == [0, 4, 8, 12]
    assert record["policy"] == "exp3" and set(record["group_losses"]) <= set(record["group_epochs"])


def command(
    args: list[str], script: list[str], common: list[str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return run_command([*script, *args, *common], extra_env=env)


def test_train_tiny_records_each_groups_latest_loss(release: Settings, tmp_path: Path) -> None:
    """A run's record gives the latest loss of every group it read, not only of the groups in
    its last window (a window of one batch of packed documents holds one or two), so that
    ``--policy excess --reference`` can start from it."""
    script = [str(BIN / "python"), str(ROOT / "examples" / "train_tiny.py"), "--tag", "v1"]
    common = ["--steps", "40", "--checkpoint-every", "40", "--seq-len", "64", "--batch-size", "8"]
    common += ["--update-every", "1", "--num-workers", "0", "--seed", "1"]  # 4 groups read
    common += ["--groups", "language"]
    command(["--out", str(tmp_path)], script, common, {"LAKEMIX_HOME": str(release.home)})
    record = orjson.loads((tmp_path / "run.json").read_bytes())
    read = {g for g, epochs in record["group_epochs"].items() if epochs > 0}
    assert len(read) > 2 and set(record["group_losses"]) == read, record["group_losses"]
    trajectory = record["group_loss_trajectory"]  # what --policy excess compares with
    assert [step for step, _ in trajectory] == list(range(1, 41))
    assert set().union(*(losses for _, losses in trajectory)) == read
    # a DoReMi-style run against it: weights from the excess over its loss at the same step
    excess = tmp_path / "excess"
    common = [*common[:-2], "--policy", "excess", "--reference", str(tmp_path)]
    command(["--out", str(excess)], script, common, {"LAKEMIX_HOME": str(release.home)})
    weights = orjson.loads((excess / "run.json").read_bytes())["weights_trajectory"]
    assert [row["step"] for row in weights][:3] == [0, 1, 2] and len(weights) > 10
    first, last = weights[1]["weights"], weights[-1]["weights"]  # the policy's: they move
    assert max(abs(last[g] - first[g]) for g in first) > 1e-3
    # a reference in nats per token cannot steer a run whose losses are per byte
    per_byte = [*common, "--group-loss", "byte", "--steps", "2"]
    refused = run_command([*script, "--out", str(tmp_path / "b"), *per_byte], check=False,
                          extra_env={"LAKEMIX_HOME": str(release.home)})  # fmt: skip
    assert refused.returncode != 0 and "train both with the same --group-loss" in refused.stderr


def test_two_ranks_set_the_same_weights_at_the_same_steps(
    release: Settings, tmp_path: Path
) -> None:
    torchrun = [str(BIN / "torchrun"), "--standalone", "--nproc-per-node", "2"]
    script = [*torchrun, str(ROOT / "examples" / "train_tiny.py"), "--tag", "v1"]
    common = ["--steps", "9", "--checkpoint-every", "9", "--seq-len", "32", "--batch-size", "4"]
    common += ["--policy", "exp3", "--update-every", "3", "--num-workers", "0"]
    env = {"LAKEMIX_HOME": str(release.home)}
    run_command([*script, "--out", str(tmp_path / "run"), *common], extra_env=env, timeout=600)
    record = orjson.loads((tmp_path / "run" / "run.json").read_bytes())
    histories = [state["weights"]["changes"] for state in record["loader"]]
    assert len(histories) == 2 and histories[0] == histories[1]  # all-reduced losses
    assert [change[0] for change in histories[0]] == [3, 6, 9]
    assert record["loader"][0]["draws"] != record["loader"][1]["draws"] or (
        record["loader"][0]["items"] != record["loader"][1]["items"]
    )  # two shares of the groups
