"""Training runs tracked in the real MLflow server (scripts/services.d/50-mlflow.sh), linked to
their releases both ways: what a run logs, `lakemix runs`, `lineage --run mlflow:ID`,
`lakemix compare`, an unreachable server, and a run whose release was garbage-collected."""

from __future__ import annotations

import shutil
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from lakemix.cli import main
from lakemix.loader import MixLoader
from lakemix.loader.tracked import start_tracking
from lakemix.loader.trainers import record_run
from lakemix.settings import Settings
from lakemix.tracking import TrackingWarning
from lakemix.versions import get_release
from tests.conftest import BIN, ROOT, UNREVIEWED, dbt, lakehouse_in, run
from tests.functional.quality.test_demo_instructions import demo_variable, printed_command

TRAIN = ["--steps", "8", "--checkpoint-every", "4", "--seq-len", "32", "--batch-size", "4"]


@dataclass(frozen=True)
class Tracked:
    """Two tiny runs of demo_unimax, A on release v1 (the project's filters) and B on t1 (the
    second filter setting of scripts/demo.sh, built as the demo builds it), tracked in
    experiment ``experiment`` of the server at ``uri``, in a copy of the demo lakehouse."""

    uri: str
    experiment: str
    settings: Settings
    dirs: tuple[Path, Path]
    ids: tuple[str, str]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def tracked(
    demo_release: Path, mlflow_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Tracked]:
    tmp = tmp_path_factory.mktemp("tracked")
    # A copy: this module adds release t1 and later garbage-collects it.
    shutil.copytree(demo_release / "lakehouse", tmp / "lakehouse", ignore=_loader_caches)
    experiment = f"lakemix-test-{uuid.uuid4().hex[:12]}"
    with (
        lakehouse_in(tmp) as settings,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("MLFLOW_TRACKING_URI", mlflow_uri)
        patch.setenv("MLFLOW_EXPERIMENT_NAME", experiment)
        assert invoke("relocate").exit_code == 0  # the copy's own files from here on
        # The demo's second filter setting: filtering and what follows it, then the mix.
        refilter, filters_b = demo_variable("refilter"), demo_variable("filters_b")
        dbt("build", "--select", refilter, "--vars", filters_b, tmp=tmp)
        for args in (
            ("mix", "build", "demo_unimax"),
            ("release", "demo_unimax", "--tag", "t1", *UNREVIEWED),
        ):
            result = invoke(*args)
            assert result.exit_code == 0, result.output
        env = {"LAKEMIX_HOME": str(settings.home)}
        dirs, ids = [], []
        for mix, tag in (("demo_unimax", "v1"), ("demo_unimax", "t1")):
            out = tmp / f"run-{tag}"
            script = [str(BIN / "python"), str(ROOT / "examples" / "train_tiny.py"), *TRAIN]
            script += ["--mix", mix, "--tag", tag, "--out", str(out), "--num-workers", "0"]
            if tag == "v1":  # A stops after its first checkpoint and resumes: one MLflow run
                run([*script, "--stop-after", "4"], extra_env=env, timeout=600)
                cut = orjson.loads((out / "run.json").read_bytes())["tracking"]["run_id"]
                script.append("--resume")
            done = run(script, extra_env=env, timeout=600)
            assert "mlflow run" in done.stdout, done.stdout
            dirs.append(out)
            ids.append(orjson.loads((out / "run.json").read_bytes())["tracking"]["run_id"])
            if tag == "v1":
                assert "resumed at step 4" in done.stdout and ids[0] == cut
        yield Tracked(mlflow_uri, experiment, settings, (dirs[0], dirs[1]), (ids[0], ids[1]))


def _loader_caches(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n in ("loader", "rebuilds")]


def client(uri: str) -> Any:
    from mlflow import MlflowClient

    return MlflowClient(tracking_uri=uri)


def test_a_run_logs_its_release_settings_and_loader_state(tracked: Tracked) -> None:
    mlflow = client(tracked.uri)
    run_a = mlflow.get_run(tracked.ids[0])
    manifest = get_release("v1", tracked.settings)
    assert run_a.info.status == "FINISHED"
    assert run_a.data.tags["lakemix.release"] == "v1"
    assert run_a.data.tags["lakemix.checksum"] == manifest.checksum

    (given,) = run_a.inputs.dataset_inputs
    dataset = given.dataset
    assert dataset.name == "demo_unimax@v1" and dataset.source_type == "lakemix_release"
    assert dataset.digest == manifest.checksum.split("-")[1]
    source = orjson.loads(dataset.source)
    assert source["tag"] == "v1" and source["checksum"] == manifest.checksum
    assert source["lakehouse"] == str(tracked.settings.home)
    profile = orjson.loads(dataset.profile)
    train = [s for s in manifest.stats if s.split == "train"]
    assert profile["tokens"] == sum(s.tokens for s in train)
    assert profile["languages"] == {
        s.language: {"documents": s.documents, "samples": s.samples, "tokens": s.tokens}
        for s in train
    }
    columns = {c["name"]: c["type"] for c in orjson.loads(dataset.schema)["mlflow_colspec"]}
    assert columns["document_id"] == "string" and "repeat_count" in columns
    assert [(t.key, t.value) for t in given.tags] == [("mlflow.data.context", "train")]

    # The source kind is registered (by the mlflow.dataset_source entry point of an installed
    # lakemix, or by importing the module): MLflow turns the logged source back into one.
    from mlflow.data.dataset_source_registry import get_dataset_source_from_json

    import lakemix.tracking.dataset  # noqa: F401

    restored = get_dataset_source_from_json(dataset.source, source_type=dataset.source_type)
    with lakehouse_in(tracked.settings.home.parent):
        assert restored.load().checksum == manifest.checksum

    params = run_a.data.params
    assert params["mix.strategy.kind"] == "unimax" and params["loader.seq_len"] == "32"
    assert (
        orjson.loads(params["vars.lakemix_filter_families"])
        == manifest.vars["lakemix_filter_families"]
    )
    assert set(run_a.data.metrics) >= {"loss", "samples_seen", "tokens_seen"}

    # The loader state at each checkpoint, and the latest as lakemix/run.json.
    steps = [a.path for a in mlflow.list_artifacts(tracked.ids[0], "lakemix/checkpoints")]
    assert steps == ["lakemix/checkpoints/step-00000004", "lakemix/checkpoints/step-00000008"]
    logged = mlflow.download_artifacts(tracked.ids[0], "lakemix/run.json")
    local = orjson.loads((tracked.dirs[0] / "run.json").read_bytes())
    assert orjson.loads(Path(logged).read_bytes()) == local
    assert local["tracking"] == {"uri": tracked.uri, "run_id": tracked.ids[0]}


def test_runs_lists_the_runs_of_a_release_with_their_metrics(tracked: Tracked) -> None:
    with lakehouse_in(tracked.settings.home.parent), pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", tracked.uri)
        patch.setenv("MLFLOW_EXPERIMENT_NAME", tracked.experiment)
        listed = invoke("runs", "--release", "v1")
        every = invoke("runs", "--metric", "loss")
        unknown = invoke("runs", "--metric", "accuracy")
        shown = invoke("show", "t1")
    assert listed.exit_code == 0, listed.output
    assert tracked.ids[0] in listed.output and tracked.ids[1] not in listed.output
    assert "finished" in listed.output and "loss=" in listed.output
    assert every.exit_code == 0 and all(i in every.output for i in tracked.ids)
    assert unknown.exit_code != 0 and "no run logged 'accuracy'" in unknown.output
    assert shown.exit_code == 0 and "release t1 of mix demo_unimax" in shown.output
    runs_part = shown.output.split("tracked runs on t1", 1)[1]
    assert tracked.ids[1] in runs_part and tracked.ids[0] not in runs_part


def test_lineage_of_a_tracked_run_reads_its_logged_loader_state(tracked: Tracked) -> None:
    with lakehouse_in(tracked.settings.home.parent), pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", tracked.uri)
        remote = invoke("lineage", "--run", f"mlflow:{tracked.ids[0]}")
        local = invoke("lineage", "--run", str(tracked.dirs[0]))
        missing = invoke("lineage", "--run", "mlflow:0123456789abcdef")
    assert remote.exit_code == 0, remote.output
    first, *rest = remote.output.splitlines()
    assert first.startswith(f"run mlflow:{tracked.ids[0]}: release v1 (demo_unimax")
    assert rest == local.output.splitlines()[1:] and len(rest) > 12
    assert missing.exit_code == 1 and "no MLflow run 0123456789abcdef" in missing.output
    # The same with the server given as a flag, as runs and compare take it.
    with lakehouse_in(tracked.settings.home.parent), pytest.MonkeyPatch.context() as patch:
        patch.delenv("MLFLOW_TRACKING_URI", raising=False)
        flagged = invoke(
            "lineage", "--run", f"mlflow:{tracked.ids[0]}", "--tracking-uri", tracked.uri
        )
        shown = invoke("show", "--run", f"mlflow:{tracked.ids[0]}", "--tracking-uri", tracked.uri)
    assert flagged.output == remote.output
    assert shown.exit_code == 0 and shown.output.startswith(f"run mlflow:{tracked.ids[0]}:")


def test_compare_puts_metrics_side_by_side_with_the_data_difference(tracked: Tracked) -> None:
    a, b = tracked.ids
    with lakehouse_in(tracked.settings.home.parent), pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", tracked.uri)
        compared = invoke("compare", a, f"mlflow:{b}")
        diffed = invoke("diff", "v1", "t1")
        itself = invoke("compare", a, a)
    assert compared.exit_code == 0, compared.output
    losses = [client(tracked.uri).get_run(i).data.metrics["loss"] for i in (a, b)]
    (line,) = [x for x in compared.output.splitlines() if x.startswith("loss ")]
    change = losses[1] - losses[0]
    assert line.split()[1:] == [f"{losses[0]:.6g}", f"{losses[1]:.6g}", f"{change:+.6g}"]
    # The filter settings differ (as each release recorded the vars its data was built with,
    # not those of the mix build after it), and documents of A left for a C4 rule of B.
    families = {x.split()[0]: x.split()[1:] for x in compared.output.splitlines() if x}
    assert families["vars.lakemix_filter_families"] == [
        '["language","floor","gopher_repetition","model","url","decontamination"]',
        '["language","gopher_quality","gopher_repetition","c4","fineweb"]',
    ]
    data = compared.output.split("as `lakemix diff` says:\n", 1)[1]
    assert diffed.exit_code == 0 and data == diffed.output and "filter: c4_" in data
    # Train and validation apart, as the loader and MLflow's dataset profile count train only.
    header = next(line.split() for line in data.splitlines() if line.startswith("language "))
    assert header[:4] == ["language", "source", "split", "change"], header
    assert any(line.startswith("removed: ") and "(train " in line for line in data.splitlines())
    assert itself.exit_code == 0 and "the same release (v1" in itself.output


def test_the_compare_line_the_demo_prints_runs(tracked: Tracked) -> None:
    a, b = tracked.ids
    values = {"$MLFLOW_TRACKING_URI": tracked.uri, "${runs[0]}": a, "${runs[1]}": b}
    with lakehouse_in(tracked.settings.home.parent):
        compared = invoke(*printed_command("compare", values))
        listed = invoke(*printed_command("runs", values))
    assert compared.exit_code == 0, compared.output
    assert f"A: run {a}" in compared.output and f"B: run {b}" in compared.output
    assert any(line.startswith("loss ") for line in compared.output.splitlines())
    assert "vars.lakemix_filter_families" in compared.output and "filter: c4_" in compared.output
    assert listed.exit_code == 0 and a in listed.output and b in listed.output


def test_an_unreachable_server_warns_once_and_training_goes_on(
    release: Settings, tmp_path: Path
) -> None:
    loader = MixLoader(mix="demo_unimax", tag="v1", seq_len=32, batch_size=4, settings=release)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tracker = start_tracking(loader, tmp_path, uri="http://127.0.0.1:9")  # nothing listens
        assert tracker is not None and not tracker.active
        batches = iter(loader)
        for step in (1, 2):
            next(batches)
            tracker.log_metrics({"loss": 1.0}, step=step)
            record_run(loader, tmp_path, [loader.state_dict()], {"steps": step}, tracker=tracker)
    tracking = [w for w in caught if issubclass(w.category, TrackingWarning)]
    assert len(tracking) == 1, [str(w.message) for w in caught]
    assert "http://127.0.0.1:9 cannot be reached" in str(tracking[0].message)
    record = orjson.loads((tmp_path / "run.json").read_bytes())
    assert record["steps"] == 2 and record["loader"] == [loader.state_dict()]
    assert record["tracking"]["uri"] == "http://127.0.0.1:9" and "error" in record["tracking"]


def test_a_run_whose_release_was_garbage_collected_says_how_to_rebuild(tracked: Tracked) -> None:
    """Last: release t1 loses its snapshot of its mix (untagged, expired) in the copy."""
    from lakemix.catalog import catalog

    settings = tracked.settings
    name = "marts.mix_demo_unimax"
    pinned = get_release("t1", settings).snapshots[name].snapshot_id
    table = catalog(settings).load_table(name)
    table.manage_snapshots().remove_tag("t1").commit()
    table = catalog(settings).load_table(name)
    if table.metadata.current_snapshot_id == pinned:  # the current one cannot be expired
        table.overwrite(table.scan().to_arrow())
        table = catalog(settings).load_table(name)
    table.maintenance.expire_snapshots().by_ids([pinned]).commit()

    a, b = tracked.ids
    with lakehouse_in(settings.home.parent), pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", tracked.uri)
        patch.setenv("MLFLOW_EXPERIMENT_NAME", tracked.experiment)
        listed = invoke("runs")
        compared = invoke("compare", a, b)
        lineage = invoke("lineage", "--run", f"mlflow:{b}")
    gone = f"release t1 was garbage-collected: {name} no longer has its snapshot {pinned}"
    (row,) = [x for x in listed.output.splitlines() if x.startswith(b)]
    assert " t1 " in row and " gone " in row
    assert gone in listed.output and "`lakemix rebuild t1 --keep`" in listed.output
    assert compared.exit_code == 0 and "loss" in compared.output
    assert f"data: cannot explain the difference: {gone}" in compared.output
    assert lineage.exit_code == 1 and gone in lineage.output


def test_lightning_logs_into_the_run_of_its_mlflow_logger(
    release: Settings, mlflow_uri: str, tmp_path: Path
) -> None:
    import lightning.pytorch as pl
    from lightning.pytorch.loggers import MLFlowLogger

    from lakemix.loader.lightning import MixLoaderCallback
    from tests.functional.test_trainers import Recorder

    mix = MixLoader(mix="demo_unimax", tag="v1", seq_len=32, batch_size=4, settings=release)
    callback = MixLoaderCallback(mix, run_dir=tmp_path)
    logger = MLFlowLogger(f"lakemix-test-{uuid.uuid4().hex[:12]}", tracking_uri=mlflow_uri)
    every = pl.callbacks.ModelCheckpoint(tmp_path / "ckpt", every_n_train_steps=3, save_top_k=-1)
    trainer = pl.Trainer(
        max_steps=6,
        accelerator="cpu",
        devices=1,
        callbacks=[callback, every],
        default_root_dir=tmp_path,
        logger=logger,
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Recorder(), train_dataloaders=callback.dataloader)
    assert callback.tracker is not None and not callback.tracker.owned
    run = client(mlflow_uri).get_run(logger.run_id)
    (given,) = run.inputs.dataset_inputs
    assert given.dataset.name == "demo_unimax@v1" and run.data.params["trainer"] == "lightning"
    checkpoints = client(mlflow_uri).list_artifacts(logger.run_id, "lakemix/checkpoints")
    assert [a.path.rsplit("/", 1)[1] for a in checkpoints] == ["step-00000003", "step-00000006"]
    record = orjson.loads((tmp_path / "run.json").read_bytes())
    assert record["tracking"]["run_id"] == logger.run_id


def test_the_hugging_face_trainer_logs_its_metrics_into_a_run_of_its_own(
    release: Settings, mlflow_uri: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers import Trainer, TrainingArguments

    from lakemix.loader.hf import MixLoaderTrainerCallback
    from tests.functional.test_trainers import Counted

    experiment = f"lakemix-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", experiment)
    mix = MixLoader(mix="demo_unimax", tag="v1", seq_len=32, batch_size=4, settings=release)
    callback = MixLoaderTrainerCallback(mix, tracking_uri=mlflow_uri)

    class MixTrainer(Trainer):  # type: ignore[misc]
        def get_train_dataloader(self) -> Any:
            return callback.dataloader

    args = TrainingArguments(
        output_dir=str(tmp_path),
        max_steps=4,
        save_steps=2,
        logging_steps=1,
        use_cpu=True,
        report_to="none",
        disable_tqdm=True,
        ignore_data_skip=True,
    )
    MixTrainer(model=Counted(), args=args, callbacks=[callback]).train()
    assert callback.tracker is not None and callback.tracker.owned
    run = client(mlflow_uri).get_run(callback.tracker.run_id)
    assert run.info.status == "FINISHED" and run.data.tags["lakemix.release"] == "v1"
    assert "loss" in run.data.metrics and run.data.params["trainer"] == "transformers"
    history = client(mlflow_uri).get_metric_history(run.info.run_id, "loss")
    assert [m.step for m in history] == [1, 2, 3, 4]
    checkpoints = client(mlflow_uri).list_artifacts(run.info.run_id, "lakemix/checkpoints")
    assert [a.path.rsplit("/", 1)[1] for a in checkpoints] == ["step-00000002", "step-00000004"]
