"""bench/loader: MixLoader's tokens per second next to the ceiling and to its peers, in one run.

Usage: .venv/bin/python bench/loader.py [--home DIR --tag TAG] [--mix demo_unimax]
       [--seq-len 2048] [--batch-size 8] [--tokens 20000000] [--rounds 5] [--trainers-only]

``--trainers-only``: the ceiling, the plain MixLoader and the trainer callbacks' path only.

Data: a release of the demo mix. With ``--home``, an existing lakehouse's release ``--tag``;
otherwise the demo corpus (every source under ../shared/corpora/web, as ``make demo``) is
ingested, built, mixed and released once into ``bench/out/loader-lakehouse`` (kept for the next
run). Every reader below reads the same token ids, those of the release's token store (the
Arrow file MixLoader builds from the release), and each runs until ``--tokens`` tokens:

* ceiling: pyarrow reading the store's token column from the same file, batch by batch, into
  int64 arrays (what a loader must at least do);
* MixLoader with 0, 1 and 2 worker threads, and 2 worker processes: packed ``seq_len`` batches
  of torch tensors with document boundaries and provenance (its default fields); tokens are
  real input tokens. Also the seconds
  from construction to the first batch, on the first use of the release (the bench's own
  lakehouse drops its token store first; with ``--home`` the store is used if it exists) and
  once the store exists, and the cost of a resume early and late in an epoch; and with 0
  workers and 1 thread through the per-batch path of the Lightning and Hugging Face trainer
  callbacks (``lakemix.loader.lightning``/``hf``: the state kept after each batch, one batch
  fetched ahead for Lightning, the callback's hook each step), to show what they add (each
  against the plain loader of the same round); and with 0 workers as a dynamic mix
  grouped by language (docs/loader.md#dynamic-mixes), its weights unchanged and set every 100
  batches, to show what dynamic weights cost;
* Hugging Face ``datasets`` streaming (requirements-bench.txt): one Parquet file of the same ids
  per language, ``interleave_datasets`` with the release's language shares as probabilities,
  packed into the same ``seq_len + 1`` blocks with a batched ``map``, batched by torch's
  DataLoader;
* MosaicML ``streaming``, if it is installed (it is not here: its install replaces torch with a
  CUDA build).

The ceiling and the MixLoaders take turns, ``--rounds`` times (each reader at least a second
a turn, started afresh, its first batch not timed, closed after its turn); each prints the
median, the range, and the median of its share of the ceiling of the same round. The machine
has 2 shared cores: compare figures of one invocation.
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
OUT = ROOT / "bench" / "out"
TAG = "bench-loader"
SOURCES = (  # as scripts/demo.sh ingests them
    ("dolma_cc2019", "jsonl"),
    ("dolma_cc_en_head", "jsonl"),
    ("oscar2019", "oscar"),
    ("oscar2201", "jsonl"),
    ("hplt_warc2text", "hplt"),
)


def demo_release(mix: str) -> Path:
    """bench/out/loader-lakehouse with release TAG of ``mix`` (built once)."""
    from mix import BIN, Lakehouse

    home = OUT / "loader-lakehouse"
    marker = home / "releases" / f"{TAG}.json"
    if marker.is_file():
        Lakehouse(home)
        return home
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    house = Lakehouse(home)
    web = Path(os.environ.get("LAKEMIX_CORPORA", ROOT.parent / "shared" / "corpora")) / "web"
    print(f"building {home} from {web} (once) ...", flush=True)
    for source, fmt in SOURCES:
        house.run(str(BIN / "lakemix"), "ingest", str(web / source), "--source", source,
                  "--format", fmt, "--no-progress")  # fmt: skip
    house.run(str(BIN / "dbt"), "build", "--quiet")
    house.run(str(BIN / "lakemix"), "mix", "build", mix)
    house.run(str(BIN / "lakemix"), "release", mix, "--tag", TAG)
    return home


def measure(name: str, batches: Iterable[int], budget: int, *, quiet: bool = False) -> float:
    """Tokens per second of an iterable of per-batch token counts: ``budget`` tokens, and on
    for at least a second (the fast readers finish 20M tokens in hundredths of one)."""
    return measure_both(name, batches, budget, quiet=quiet)[0]


def measure_both(
    name: str, batches: Iterable[int], budget: int, *, quiet: bool = False
) -> tuple[float, float]:
    """``measure``'s tokens per second, and tokens per CPU second of this process (all its
    threads; a worker process's CPU is not counted): the second depends less on what else
    runs on the machine."""
    start, cpu = time.perf_counter(), time.process_time()
    tokens = 0
    for n in batches:
        tokens += n
        if tokens >= budget and time.perf_counter() - start >= 1.0:
            break
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    rate = tokens / seconds
    if not quiet:
        print(f"  {name:<44} {rate / 1e6:8.2f} M tokens/s  ({tokens:,} tokens, {seconds:.2f} s)")
    return rate, tokens / max(cpu, 1e-9)


def rounds(
    readers: dict[str, Callable[[], Iterator[int]]], budget: int, count: int
) -> dict[str, list[tuple[float, float]]]:
    """Each reader's rate in ``count`` rounds, the readers taking turns in every round, so that
    a change of the machine's load (2 shared cores) hits them all alike. A reader is started
    afresh for each turn and its first batch is not timed; it is closed after its turn, so that
    no idle worker thread or process competes with the next reader."""
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in readers}
    for _ in range(count):
        for name, start in readers.items():
            stream = start()
            next(stream)
            rates[name].append(measure_both(name, stream, budget, quiet=True))
            del stream
            gc.collect()
    return rates


def forever(epoch: Callable[[], Iterable[int]]) -> Iterator[int]:
    while True:
        yield from epoch()


def ceiling(store: Path) -> Iterator[int]:
    reader = pa.ipc.open_file(pa.memory_map(str(store)))
    for i in range(reader.num_record_batches):
        ids = reader.get_batch(i).column("token_ids")
        yield len(np.asarray(ids.values, dtype=np.int32).astype(np.int64))


def mix_stream(options: dict[str, Any]) -> Iterator[int]:
    """Real input tokens of each batch of a new MixLoader, epoch after epoch."""
    from lakemix.loader import MixLoader

    loader = MixLoader(**options)
    try:
        while True:
            yield from loader_batches(loader)
    finally:
        loader.close()


def trainer_stream(options: dict[str, Any], trainer: str) -> Iterator[int]:
    """``mix_stream`` through a trainer integration's per-batch path, without the trainer:
    the batches its callback hands the trainer (``TrainedBatches``, keeping the state after
    each batch) and the callback's hook per step. ``lightning``: one batch fetched ahead, as
    Lightning does, ``MixLoaderCallback.on_train_batch_start`` before its step; ``hf``:
    ``MixLoaderTrainerCallback.on_step_end`` after it."""
    from lakemix.loader import MixLoader

    loader = MixLoader(**options)
    try:
        yield from integration_batches(loader, trainer)
    finally:
        loader.close()


def integration_batches(loader: Any, trainer: str) -> Iterator[int]:
    if trainer == "lightning":
        from lakemix.loader.lightning import MixLoaderCallback

        callback: Any = MixLoaderCallback(loader)
        while True:
            stream = iter(callback.dataloader)
            ahead = next(stream, None)
            k = 0
            while ahead is not None:
                batch, ahead = ahead, next(stream, None)
                callback.on_train_batch_start(None, None, batch, k)
                k += 1
                yield int(batch["cu_seqlens"][-1])
    from lakemix.loader.hf import MixLoaderTrainerCallback

    callback = MixLoaderTrainerCallback(loader)
    while True:
        for batch in callback.dataloader:
            yield int(batch["cu_seqlens"][-1])
            callback.on_step_end(None, None, None)  # its arguments are not used


class Replay:
    """A MixLoader's first batch handed out ``n`` times, its place asked of the loader: what
    the integrations' path costs a batch, beside the batch's making."""

    def __init__(self, loader: Any, n: int) -> None:
        self.loader, self.n = loader, n
        self.batch = next(iter(loader))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return itertools.repeat(self.batch, self.n)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


def callback_cost(options: dict[str, Any], n: int = 200_000) -> None:
    """Microseconds the trainer callbacks' per-batch path adds to a batch (min of 3 runs of
    ``n`` replayed batches, less the bare loop), beside the time a plain loader with 0
    workers takes to make a batch (min of 3 epochs)."""
    from lakemix.loader import MixLoader
    from lakemix.loader.hf import MixLoaderTrainerCallback
    from lakemix.loader.lightning import MixLoaderCallback

    loader = MixLoader(**options)
    epochs = []
    for _ in range(3):
        start = time.perf_counter()
        batches = sum(1 for _ in loader)
        epochs.append((time.perf_counter() - start) / batches)
    made = min(epochs) * 1e6

    def bare() -> None:
        for _ in Replay(loader, n):
            pass

    def lightning() -> None:
        callback = MixLoaderCallback(Replay(loader, n))
        stream = iter(callback.dataloader)
        ahead, k = next(stream, None), 0
        while ahead is not None:
            batch, ahead = ahead, next(stream, None)
            callback.on_train_batch_start(None, None, batch, k)
            k += 1

    def hf() -> None:
        callback = MixLoaderTrainerCallback(Replay(loader, n))
        for _ in callback.dataloader:
            callback.on_step_end(None, None, None)

    def best(run: Callable[[], None]) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times) / n * 1e6

    base = best(bare)
    costs = {name: best(run) - base for name, run in (("lightning", lightning), ("hf", hf))}
    print(
        f"trainer callbacks' per-batch work: lightning {costs['lightning']:.2f} us, hf "
        f"{costs['hf']:.2f} us a batch; the plain loader (0 workers) makes a batch in "
        f"{made:.0f} us: {costs['lightning'] / made:.2%} and {costs['hf'] / made:.2%} of it"
    )


def dynamic_stream(options: dict[str, Any], every: int) -> Iterator[int]:
    """``mix_stream`` of the release as a dynamic mix grouped by language: weights unchanged
    (``every`` 0), or set every ``every`` batches, alternating between the release's shares and
    uniform weights (each change plans again what was fetched ahead)."""
    from lakemix.loader import MixLoader

    loader = MixLoader(**options, groups="language")
    shares = loader.weights()
    uniform = {g: 1 / len(shares) for g in shares}
    for k, tokens in enumerate(loader_batches(loader), start=1):
        yield tokens
        if every and k % every == 0:
            loader.set_weights(uniform if (k // every) % 2 else shares)


def loader_batches(loader: Any) -> Iterator[int]:
    for batch in loader:
        if "cu_seqlens" in batch:  # its last value is the batch's real input tokens
            yield int(batch["cu_seqlens"][-1])
        else:  # the batch format before cu_seqlens (to measure older commits)
            yield int(batch["attention_mask"].sum())


def hf_streaming(store: Path, folder: Path, seq_len: int, batch_size: int) -> Iterator[int]:
    """datasets' streaming: a Parquet file per language, interleaved by token share, packed."""
    import pyarrow.parquet as pq
    import torch
    from datasets import interleave_datasets, load_dataset

    table = pa.ipc.open_file(pa.memory_map(str(store))).read_all()
    folder.mkdir(parents=True, exist_ok=True)
    languages = sorted(set(table.column("language").to_pylist()))
    files, shares = [], []
    for language in languages:
        rows = table.filter(pc.equal(table.column("language"), language))
        repeats = np.asarray(rows.column("repeat_count"))
        copies = rows.take(np.repeat(np.arange(rows.num_rows), repeats)).select(["token_ids"])
        path = folder / f"{language}.parquet"
        pq.write_table(copies, path)
        files.append(str(path))
        lengths = pc.list_value_length(rows.column("token_ids"))
        shares.append(float(np.asarray(lengths) @ repeats))
    streams = [load_dataset("parquet", data_files=f, split="train", streaming=True) for f in files]
    total = sum(shares)
    mixed = interleave_datasets(
        streams,
        probabilities=[s / total for s in shares],
        seed=0,
        stopping_strategy="all_exhausted",
    )
    block = seq_len + 1

    def pack(rows: pa.Table) -> pa.Table:  # the usual group_texts, vectorized with Arrow
        flat = pc.list_flatten(rows.column("token_ids"))
        cut = len(flat) // block * block
        blocks = pa.FixedSizeListArray.from_arrays(flat.slice(0, cut).combine_chunks(), block)
        return pa.table({"input_ids": blocks})

    packed = mixed.with_format("arrow").map(
        pack, batched=True, batch_size=256, remove_columns=["token_ids"]
    )
    loader = torch.utils.data.DataLoader(packed.with_format("torch"), batch_size=batch_size)
    for batch in loader:
        yield int(batch["input_ids"][:, :-1].numel())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="an existing lakehouse (with --tag)")
    parser.add_argument("--tag", default=TAG)
    parser.add_argument("--mix", default="demo_unimax")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=20_000_000)
    parser.add_argument("--rounds", type=int, default=5, help="turns of ceiling and MixLoaders")
    parser.add_argument(
        "--trainers-only", action="store_true", help="only what the trainer integrations add"
    )
    args = parser.parse_args()

    if args.home is not None:
        os.environ["LAKEMIX_HOME"] = str(args.home.resolve())
    else:  # the bench's own lakehouse: drop the token store, so that the first use is timed
        for store in (demo_release(args.mix) / "loader").glob("*.arrow"):
            store.unlink()
    import torch  # noqa: F401  (imported before the clock starts, as a training script has)

    from lakemix.loader import MixLoader
    from lakemix.settings import Settings

    options = {"mix": args.mix, "tag": args.tag, "seq_len": args.seq_len}
    options["batch_size"] = args.batch_size
    settings = Settings.from_env()
    existed = any((settings.home / "loader").glob(f"{args.tag}-*.arrow"))
    start = time.perf_counter()
    cold = MixLoader(**options)
    built = time.perf_counter() - start
    next(iter(cold))
    first = time.perf_counter() - start
    store = cold.store_path
    stored = int((cold.store.lengths * cold.store.repeats).sum())
    load = os.getloadavg()
    print(
        f"release {cold.tag} of {args.mix}: {cold.samples_per_epoch:,} samples, {stored:,} "
        f"tokens an epoch (store {store.stat().st_size / 1e6:.1f} MB); seq_len "
        f"{args.seq_len}, batch {args.batch_size}; load average {load[0]:.2f} {load[1]:.2f} "
        "(2 shared cores)\n"
        f"  {'first use' if not existed else 'a use'} of the release "
        f"({'the store existed' if existed else 'building its token store'}): "
        f"constructing the loader {built:.2f} s, first batch {first:.2f} s"
    )
    readers = {"ceiling: pyarrow, token column -> int64": lambda: forever(lambda: ceiling(store))}
    keys = {"ceiling: pyarrow, token column -> int64": "ceiling"}
    kinds = ((0, "thread"), (1, "thread"), (2, "thread"), (2, "process"))
    for workers, method in kinds[:2] if args.trainers_only else kinds:
        begin = time.perf_counter()
        loader = MixLoader(**options, num_workers=workers, worker_method=method)
        next(iter(loader))
        first = time.perf_counter() - begin
        del loader
        name = f"MixLoader, {workers} {method} workers (first batch {first:.2f} s)"
        mix = {**options, "num_workers": workers, "worker_method": method}
        readers[name] = functools.partial(mix_stream, mix)
        keys[name] = f"mixloader-{workers}-{method}"
        if method == "thread" and workers < 2:  # what the trainer integrations add to it
            for trainer in ("lightning", "hf"):
                name = f"MixLoader, {workers} thread workers, {trainer} callback's path"
                readers[name] = functools.partial(trainer_stream, mix, trainer)
                keys[name] = f"trainer-{trainer}-{workers}"
        if workers == 0 and not args.trainers_only:  # a dynamic mix against the static one
            for every in (0, 100):
                name = "MixLoader, 0 workers, dynamic by language" + (
                    f", set_weights every {every} batches" if every else ""
                )
                readers[name] = functools.partial(dynamic_stream, mix, every)
                keys[name] = f"dynamic-0-{every}"
    measured = rounds(readers, args.tokens, args.rounds)
    ceilings = measured["ceiling: pyarrow, token column -> int64"]
    print(
        f"  median of {args.rounds} rounds (min-max), median share of the ceiling of the same "
        "round; tokens per CPU second of this process (workers' processes not counted):"
    )
    rates: dict[str, float] = {}
    for name, found in measured.items():
        walls = [w for w, _ in found]
        shares = [w / c for (w, _), (c, _) in zip(found, ceilings, strict=True)]
        cpu = statistics.median(c for _, c in found)
        cpu_share = cpu / statistics.median(c for _, c in ceilings)
        rates[keys[name]] = statistics.median(walls)
        print(
            f"  {name:<58} {rates[keys[name]] / 1e6:8.1f} M tokens/s "
            f"({min(walls) / 1e6:.0f}-{max(walls) / 1e6:.0f})  {statistics.median(shares):5.1%}"
            f"  | {cpu / 1e6:6.1f} M per CPU s  {cpu_share:5.1%}"
        )
    by_key = {keys[name]: found for name, found in measured.items()}
    for workers in (0, 1):
        plain = by_key[f"mixloader-{workers}-thread"]
        paths = []
        for trainer in ("lightning", "hf"):
            found = by_key[f"trainer-{trainer}-{workers}"]
            wall = statistics.median(t / p for (t, _), (p, _) in zip(found, plain, strict=True))
            cpu = statistics.median(t / p for (_, t), (_, p) in zip(found, plain, strict=True))
            paths.append(f"{trainer} {wall:.1%} ({cpu:.1%} per CPU s)")
        print(
            f"trainer callbacks' path, {workers} workers: "
            + ", ".join(paths)
            + " of the plain MixLoader's throughput (median of the rounds' ratios)"
        )
    callback_cost(options)
    if args.trainers_only:
        return
    try:
        import datasets  # noqa: F401
    except ImportError:
        print("  Hugging Face datasets: not installed (pip install -r requirements-bench.txt)")
    else:
        folder = Settings.from_env().home / "bench-hf"
        stream = forever(lambda: hf_streaming(store, folder, args.seq_len, args.batch_size))
        rates["hf"] = measure("HF datasets streaming + interleave_datasets", stream, args.tokens)
    try:
        import streaming  # noqa: F401
    except ImportError:
        print("  MosaicML streaming: not installed (its install replaces torch with a CUDA build)")

    print(
        f"dynamic mix: {rates['dynamic-0-0'] / rates['mixloader-0-thread']:.0%} of the static "
        f"mix's throughput (0 workers), {rates['dynamic-0-100'] / rates['mixloader-0-thread']:.0%}"
        " with set_weights every 100 batches (medians)"
    )
    best = max(v for k, v in rates.items() if k.startswith("mixloader"))
    ours = ("ceiling", "mix", "trainer", "dynamic")
    peers = [v for k, v in rates.items() if not k.startswith(ours)]
    print(
        f"best MixLoader: {best / rates['ceiling']:.0%} of the ceiling (medians)"
        + (f", {best / max(peers):.1f}x the best peer" if peers else "")
    )
    resume_cost({**options, "seq_len": 64, "batch_size": 1})


def resume_cost(options: dict[str, Any]) -> None:
    """Seconds from load_state_dict to the first batch, 1% and 90% into an epoch of many
    small batches (seq_len 64, batch 1)."""
    from lakemix.loader import MixLoader

    whole = sum(1 for _ in MixLoader(**options))
    for fraction in (0.01, 0.9):
        loader = MixLoader(**options)
        stream = iter(loader)
        for _ in range(max(1, int(whole * fraction))):
            next(stream)
        state = loader.state_dict()
        start = time.perf_counter()
        again = MixLoader(**options)
        again.load_state_dict(state)
        next(iter(again))
        print(
            f"  resume at {fraction:.0%} of an epoch ({whole} batches): "
            f"{time.perf_counter() - start:.3f} s to the first batch"
        )


if __name__ == "__main__":
    main()
