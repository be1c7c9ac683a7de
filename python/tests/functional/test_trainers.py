"""MixLoader inside trainers: the state saved is the batch last trained on (whatever the trainer
fetched ahead), under a plain loop that fetches ahead, under Lightning, and under torchrun."""

from __future__ import annotations

import hashlib
import itertools
import re
import shutil
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import orjson
import pytest
import torch
from click.testing import CliRunner
from torch import nn

from lakemix.cli import main
from lakemix.loader import MixLoader
from lakemix.loader.drivers import TrainerIntegrationError
from lakemix.loader.lightning import MixLoaderCallback
from lakemix.loader.trainers import TrainedBatches
from lakemix.settings import Settings
from tests.conftest import BIN, ROOT, run

MIX = "demo_unimax"


def loader(settings: Settings, **options: Any) -> MixLoader:
    defaults = {"mix": MIX, "tag": "v1", "seq_len": 32, "batch_size": 4, "seed": 5}
    return MixLoader(settings=settings, **{**defaults, **options})


def after(mix: MixLoader, batches: int) -> dict[str, Any]:
    """The state of ``mix`` after ``batches`` uninterrupted batches."""
    stream = iter(mix)
    for _ in range(batches):
        next(stream)
    return mix.state_dict()


def fingerprint(batch: dict[str, Any]) -> str:
    """The batch's tokens and documents, as one digest."""
    digest = hashlib.blake2b(batch["input_ids"].numpy().tobytes(), digest_size=16)
    digest.update(repr(batch["document_ids"]).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("workers", [0, 2])
def test_a_trainer_fetching_ahead_resumes_at_the_batch_after_the_last_trained(
    release: Settings, workers: int
) -> None:
    whole = [fingerprint(b) for b in itertools.islice(loader(release), 20)]
    assert len(whole) == 20
    batches = TrainedBatches(loader(release, num_workers=workers))
    stream = iter(batches)
    ahead = next(stream)  # one batch ahead, as Lightning fetches
    trained = []
    for _ in range(7):
        batch, ahead = ahead, next(stream)
        batches.trained()
        trained.append(fingerprint(batch))
    assert batches.waiting == 1
    state = batches.trained_state()
    # The loader's own state is a batch further on: saving it would skip one at the resume.
    assert batches.loader.state_dict()["cursor"] != state["cursor"]
    resumed = TrainedBatches(loader(release, num_workers=2 - workers))
    resumed.load(state)
    assert trained + [fingerprint(b) for b in itertools.islice(resumed, 13)] == whole
    # A trainer that drops its iterator with a batch fetched gets that batch again first.
    assert [fingerprint(b) for b in itertools.islice(batches, 2)] == whole[7:9]
    with pytest.raises(RuntimeError, match="none of this loader's is waiting"):
        TrainedBatches(loader(release)).trained()


class Recorder(pl.LightningModule):
    """A one-weight model that remembers the batches it trained on."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1))
        self.seen: list[str] = []

    def training_step(self, batch: dict[str, Any], batch_idx: int) -> torch.Tensor:
        self.seen.append(fingerprint(batch))
        return (self.weight * batch["input_ids"].float().mean()).sum()

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=1e-6)


# Epochs of 21-39 batches (31 on the demo release): the trainers' runs of 80 steps, checkpointed
# at step 20, resume inside the first epoch and cross two epoch ends.
LONG = {"seq_len": 2048, "batch_size": 8}


def fit(
    release: Settings, out: Path, *, workers: int = 0, ckpt: Path | None = None, raw: bool = False
) -> list[str]:
    """Train 80 steps under Lightning (checkpoints every 20); the batches trained on."""
    mix = loader(release, num_workers=workers, **LONG)
    callback = MixLoaderCallback(mix, run_dir=out)
    every = pl.callbacks.ModelCheckpoint(out / "ckpt", every_n_train_steps=20, save_top_k=-1)
    trainer = pl.Trainer(
        max_steps=80,
        accelerator="cpu",
        devices=1,
        callbacks=[callback, every],
        default_root_dir=out,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    model = Recorder()
    trainer.fit(model, train_dataloaders=mix if raw else callback.dataloader, ckpt_path=ckpt)
    return model.seen


def test_lightning_resumes_at_the_batch_after_its_checkpoint(
    release: Settings, tmp_path: Path
) -> None:
    # Loader workers 0, then 2 (the HF test goes the other way).
    whole = fit(release, tmp_path / "whole")
    assert len(whole) == 80 and 20 < len(list(loader(release, **LONG))) < 40
    (ckpt,) = (tmp_path / "whole" / "ckpt").glob("*step=20.ckpt")
    resumed = fit(release, tmp_path / "resumed", workers=2, ckpt=ckpt)
    assert resumed == whole[20:]  # Lightning alone resumed at whole[21:]: batch 21 was lost

    records = [orjson.loads((tmp_path / d / "run.json").read_bytes()) for d in ("whole", "resumed")]
    assert records[0]["loader"] == records[1]["loader"]
    assert records[1]["trainer"] == "lightning" and records[1]["steps"] == 80
    listed = CliRunner().invoke(main, ["lineage", "--run", str(tmp_path / "resumed")])
    assert listed.exit_code == 0 and "release v1 (demo_unimax" in listed.output, listed.output

    # The loader itself given to Trainer.fit beside the callback: refused at the first batch.
    with pytest.raises(TrainerIntegrationError, match=r"pass callback.dataloader to Trainer.fit"):
        fit(release, tmp_path / "raw", raw=True)

    # A checkpoint whose loader state is of another mix is refused, naming both.
    checkpoint = torch.load(ckpt, weights_only=False)
    (key,) = [k for k in checkpoint["callbacks"] if k.startswith("MixLoaderCallback")]
    for state in checkpoint["callbacks"][key]["loader"]:
        state["mix"] = "other_mix"
    torch.save(checkpoint, tmp_path / "other.ckpt")
    with pytest.raises(ValueError, match=r"'mix': 'other_mix'.*a checkpoint of another run"):
        fit(release, tmp_path / "other", ckpt=tmp_path / "other.ckpt")


def test_train_tiny_under_torchrun_reads_one_share_per_rank_and_resumes_exactly(
    release: Settings, tmp_path: Path
) -> None:
    torchrun = [str(BIN / "torchrun"), "--standalone", "--nproc-per-node", "2"]
    script = [*torchrun, str(ROOT / "examples" / "train_tiny.py"), "--tag", "v1", "--seed", "5"]
    common = ["--steps", "9", "--checkpoint-every", "4", "--seq-len", "32", "--batch-size", "4"]
    env = {"LAKEMIX_PRINT_FINAL_LOSS": "1", "LAKEMIX_HOME": str(release.home)}
    out = tmp_path / "run"
    run([*script, "--out", str(out), *common, "--stop-after", "4"], extra_env=env, timeout=300)
    resumed = run([*script, "--out", str(out), *common, "--resume"], extra_env=env, timeout=300)
    assert resumed.stdout.count("resumed at step 4") == 2
    # Two ranks share one stdout: a line of one may hold the start of the other's, so the
    # figures are found where they are rather than line by line.
    found = re.findall(r"final loss ([-+.\deE]+) rank (\d+)", resumed.stdout)
    losses = {rank: loss for loss, rank in found}
    assert set(losses) == {"0", "1"}
    assert losses["0"] != losses["1"]  # two ranks, two shares of data

    # One run record, with both ranks where two uninterrupted loaders are after 9 batches.
    record = orjson.loads((out / "run.json").read_bytes())
    expected = [after(loader(release, rank=rank, world_size=2), 9) for rank in (0, 1)]
    assert record["loader"] == expected and record["steps"] == 9
    listed = CliRunner().invoke(main, ["lineage", "--run", str(out)])
    assert listed.exit_code == 0 and ", 2 ranks" in listed.output, listed.output


def test_lightning_example_under_torchrun_resumes_every_rank_exactly(
    release: Settings, tmp_path: Path
) -> None:
    """Two ranks (gloo), loader workers 0 until the cut at step 4, the example's 1 when resumed
    to 8: the run record holds each rank's loader where an uninterrupted loader of that rank is
    after 8 batches. The two ranks' checkpoint also resumes on one process (elastically: the one
    loader takes both states)."""
    launcher = [str(BIN / "torchrun"), "--standalone", "--nproc-per-node", "2"]
    options = [str(ROOT / "examples" / "train_lightning.py"), "--tag", "v1"]
    common = ["--checkpoint-every", "4", "--seq-len", "32", "--batch-size", "4", "--seed", "5"]
    out, one, env = tmp_path / "run", tmp_path / "one", {"LAKEMIX_HOME": str(release.home)}
    cut = [*options, *common, "--steps", "4", "--num-workers", "0", "--out", str(out)]
    run([*launcher, *cut], extra_env=env, timeout=600)
    at_4 = orjson.loads((out / "run.json").read_bytes())["loader"]
    assert at_4 == [after(loader(release, rank=rank, world_size=2), 4) for rank in (0, 1)]
    shutil.copytree(out, one)

    resume = [*options, *common, "--steps", "8", "--resume"]
    run([*launcher, *resume, "--out", str(out)], extra_env=env, timeout=600)
    record = orjson.loads((out / "run.json").read_bytes())
    expected = [after(loader(release, rank=rank, world_size=2), 8) for rank in (0, 1)]
    assert record["loader"] == expected and record["steps"] == 8

    run([str(BIN / "python"), *resume, "--out", str(one)], extra_env=env, timeout=600)
    elastic = loader(release)
    elastic.load_state_dict(at_4)
    record = orjson.loads((one / "run.json").read_bytes())
    assert record["loader"] == [after(elastic, 4)] and record["steps"] == 8


class Counted(nn.Module):
    """A one-weight model for the Hugging Face Trainer that remembers its batches."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1))
        self.seen: list[str] = []

    def forward(self, input_ids: torch.Tensor, **batch: Any) -> dict[str, torch.Tensor]:
        self.seen.append(fingerprint({"input_ids": input_ids, **batch}))
        return {"loss": (self.weight * input_ids.float().mean()).sum()}


def hf_args(out: Path, **options: Any) -> Any:
    """The Trainer's arguments of the tests: 80 steps, a save every 20, on the CPU."""
    from transformers import TrainingArguments

    defaults = {"max_steps": 80, "save_steps": 20, "use_cpu": True, "report_to": "none"}
    return TrainingArguments(output_dir=str(out), disable_tqdm=True, **{**defaults, **options})


def hf_train(
    release: Settings, out: Path, *, workers: int = 0, resume: Path | None = None
) -> list[str]:
    """Train 80 steps with MixTrainer, as a user writes it first (the Trainer's default
    ``ignore_data_skip=False``); the batches trained on."""
    from lakemix.loader.hf import MixTrainer

    args = hf_args(out)
    model = Counted()
    MixTrainer(model=model, args=args, loader=loader(release, num_workers=workers, **LONG)).train(
        resume_from_checkpoint=None if resume is None else str(resume)
    )
    assert args.ignore_data_skip is False  # MixTrainer set it on a copy
    return model.seen


def test_hugging_face_trainer_resumes_at_the_batch_after_its_checkpoint(
    release: Settings, tmp_path: Path
) -> None:
    whole = hf_train(release, tmp_path / "run", workers=2)
    assert len(whole) == 80
    checkpoint = tmp_path / "run" / "checkpoint-20"
    assert hf_train(release, tmp_path / "run", resume=checkpoint) == whole[20:]
    record = orjson.loads((tmp_path / "run" / "run.json").read_bytes())
    assert record["trainer"] == "transformers" and record["steps"] == 80

    # A checkpoint whose loader state is of another release, or of another seed, is refused.
    state_file = checkpoint / "lakemix_loader.json"
    state = orjson.loads(state_file.read_bytes())
    state["loader"][0]["tag"] = "v0"
    state_file.write_bytes(orjson.dumps(state))
    with pytest.raises(ValueError, match=r"'tag': 'v0'.*a checkpoint of another run"):
        hf_train(release, tmp_path / "run", resume=checkpoint)


def test_a_mix_loader_given_straight_to_a_trainer_is_refused_in_one_line(
    release: Settings, tmp_path: Path
) -> None:
    """What a user writes first, without lakemix's integration: each trainer stops before its
    first step with one line naming the integration to use."""
    from transformers import Trainer

    from lakemix.loader.hf import MixLoaderTrainerCallback, MixTrainer

    def refused(train: Any, integration: str) -> None:
        with pytest.raises(TrainerIntegrationError) as error:
            train()
        message = str(error.value)
        assert integration in message and "\n" not in message, message

    lightning = pl.Trainer(max_steps=3, accelerator="cpu", logger=False, enable_progress_bar=False)
    model = Recorder()
    refused(lambda: lightning.fit(model, train_dataloaders=loader(release)), "MixLoaderCallback")
    assert model.seen == []
    counted = Counted()
    as_dataset = Trainer(model=counted, args=hf_args(tmp_path), train_dataset=loader(release))
    refused(as_dataset.train, "MixTrainer(model=..., args=..., loader=loader)")

    class Own(Trainer):  # type: ignore[misc]
        def get_train_dataloader(self) -> Any:
            return loader(release)

    refused(Own(model=counted, args=hf_args(tmp_path, ignore_data_skip=True)).train, "MixTrainer")
    assert counted.seen == []
    with pytest.raises(ValueError, match="give it no train_dataset"):
        MixTrainer(model=counted, args=hf_args(tmp_path), train_dataset=[], loader=loader(release))
    with pytest.raises(ValueError, match="max_steps"):
        MixTrainer(model=counted, args=hf_args(tmp_path, max_steps=-1), loader=loader(release))

    # A Trainer subclass of one's own with the callback alone must turn off the data skip.
    callback = MixLoaderTrainerCallback(loader(release))

    class WithCallback(Trainer):  # type: ignore[misc]
        def get_train_dataloader(self) -> Any:
            return callback.dataloader

    with pytest.raises(ValueError, match=r"ignore_data_skip=True"):
        WithCallback(model=counted, args=hf_args(tmp_path), callbacks=[callback]).train()


def test_hf_example_under_torchrun_resumes_every_rank_exactly(
    release: Settings, tmp_path: Path
) -> None:
    """examples/train_hf.py at two ranks (gloo): cut at step 4 with 2 loader workers, resumed
    to 8 with 0. Both runs exit cleanly (the process group and the loader's workers are gone
    before the interpreter's exit), each rank trains on its own share, the one run record holds
    each rank's loader where an uninterrupted loader of that rank is after 8 batches. The
    Trainer resumes at another world size too: the two ranks' checkpoint on one process (the
    loader takes both states, elastically)."""
    launcher = [str(BIN / "torchrun"), "--standalone", "--nproc-per-node", "2"]
    options = [str(ROOT / "examples" / "train_hf.py"), "--tag", "v1", "--steps", "8"]
    options += ["--checkpoint-every", "4", "--seq-len", "32", "--batch-size", "4", "--seed", "5"]
    out, one = tmp_path / "run", tmp_path / "one"
    env = {"LAKEMIX_HOME": str(release.home), "LAKEMIX_PRINT_FINAL_LOSS": "1"}
    cut = [*options, "--stop-after", "4", "--num-workers", "2", "--out", str(out)]
    runs = [run([*launcher, *cut], extra_env=env, timeout=600)]
    at_4 = orjson.loads((out / "run.json").read_bytes())["loader"]
    assert at_4 == [after(loader(release, rank=rank, world_size=2), 4) for rank in (0, 1)]
    shutil.copytree(out, one)

    resume = [*options, "--resume", "--num-workers", "0"]
    runs.append(run([*launcher, *resume, "--out", str(out)], extra_env=env, timeout=600))
    for proc in runs:  # a rank that aborts at exit fails torchrun (run() checks); said here too
        assert "terminate called" not in proc.stderr, proc.stderr[-4000:]
    # the two ranks share one stdout: a line may hold the start of the other rank's
    losses = dict(re.findall(r"final loss rank (\d+) ([-+.\deE]+)", runs[1].stdout))
    assert set(losses) == {"0", "1"} and losses["0"] != losses["1"]  # two shares of data
    assert [p.name for p in out.glob("**/run.json")] == ["run.json"]  # one record, by rank 0
    record = orjson.loads((out / "run.json").read_bytes())
    expected = [after(loader(release, rank=rank, world_size=2), 8) for rank in (0, 1)]
    assert record["loader"] == expected and record["steps"] == 8
    assert record["trainer"] == "transformers" and record["checkpoint"] == "checkpoint-8"
    listed = CliRunner().invoke(main, ["lineage", "--run", str(out)])
    assert listed.exit_code == 0 and ", 2 ranks" in listed.output, listed.output

    run([str(BIN / "python"), *resume, "--out", str(one)], extra_env=env, timeout=600)
    elastic = loader(release)
    elastic.load_state_dict(at_4)
    record = orjson.loads((one / "run.json").read_bytes())
    assert record["loader"] == [after(elastic, 4)] and record["steps"] == 8
