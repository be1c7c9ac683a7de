"""bench/dynamic_mix: per-language validation loss of a static mix, a schedule, ODM and DoReMi.

Usage: .venv/bin/python bench/dynamic_mix.py [--docs 50000] [--home bench/out/dynamic-mix]
       [--seeds 0 1 2] [--steps 120]
       [--seq-len 64] [--batch-size 8] [--dim 32] [--update-every 10] [--evaluate-only] [--curve]
       [--train static schedule odm odm_byte odm_initial odm_half reference excess alpha_0.6
       uniform]

``--evaluate-only``: score the finished runs of ``--seeds`` without training (seeds trained by
invocations side by side, ``--seeds 0``, ``--seeds 1``, ..., then scored together). ``--train
odm``: train only those kinds and score the others from their finished runs of as many steps
(after a change to one policy).

``--curve``: train a run like the reference kind alone (``runs/curve-<seed>``; with
``--evaluate-only``: read the finished ones, or the reference runs) and print each language's
training loss in six parts of the run, mean over the seeds: whether a language's loss still
falls at the end of the run or has flattened. A policy can only gain more than it costs where
some language's loss has flattened (fewer tokens cost it little).

Corpus: ``bench/corpus.py`` (``cached_corpus(--docs)``, real Leipzig sentences and web paragraphs),
of which ten languages of very different sizes (``LANGUAGES``: English has some 30 times the
documents of Irish). Lakehouse: ``--home`` (``bench/out/dynamic-mix``; built once, kept for the next
run, built again when ``--docs`` changes: give another corpus size its own home):
the corpus ingested and built by dbt in a copy of the project (``project/``, so that the bench's
mix files never enter the project's ``mixes/``), then mixes of the same documents released (and
the two static ones of ``STATIC_ALPHAS``, below):

* ``bench_dyn_static``: temperature sampling (alpha 0.3, as XLM-R and mT5) over the ten languages,
  a budget of all their clean tokens, 10% of the documents held out for validation;
* ``bench_dyn_schedule``: the same, with ``groups: language`` and a ``schedule:`` (constant): a
  warm-up on the natural shares (alpha 1, high-resource heavy) for the first quarter of the run's
  tokens, then alpha 0.6, 0.3 and, for the last quarter, 0 (uniform: the most low-resource text);
  released as ``bench_dyn_schedule_<run tokens>`` (one release a run length).

Runs, each ``examples/train_tiny.py`` (CPU, its tiny model) for ``--steps`` steps of
``--batch-size`` x ``--seq-len`` tokens (equal tokens for all), once per seed (``--seed``: the
model's init and the loader's order); the runs of a seed side by side, one thread each:

* static: ``--mix bench_dyn_static`` (the temperature mix as released);
* schedule: ``--mix bench_dyn_schedule`` (the loader follows the release's schedule);
* ODM: ``--mix bench_dyn_static --policy exp3 --update-every N``: Online Data Mixing's EXP3 over
  the languages, started from the release's token shares (the temperature weights);
* ODM per byte: the same, rewarded by each language's loss per byte of text
  (``--group-loss byte``) rather than per token;
* ODM exploring toward the mix: ``--explore initial`` (its exploration share goes to the
  temperature weights, not uniform ones); ODM on half the mix: the same with ``--min-explore
  0.5`` (half of every batch follows the temperature weights, the bandit steers the rest);
* reference: ``--mix bench_dyn_static --groups language``: the static weights drawn group by
  group (the dynamic loader with weights that never change), which logs each language's loss;
* excess: ``--mix bench_dyn_static --policy excess --reference <that seed's reference run>``:
  DoReMi-style weights from each language's loss above the reference run's loss at the same
  step, from uniform weights as DoReMi (trained after its reference run; from the reference's
  own weights and seed it would be that run, its excess 0 at every step).

* alpha_0.6, uniform: static temperature mixes of alpha 0.6 and 0 (``bench_dyn_static_alpha_06``,
  ``bench_dyn_static_uniform``): what fixed weights trade between the low- and the
  high-resource loss, so that a policy's result can be read against fixed weights that move as
  far (a policy meets the goal only below that frontier).

Every run's learning rate warms up and decays as ``train_tiny.py``'s does (cosine to a tenth),
so a model is not mostly its last few batches (under a constant rate, the seeds of one kind
spread widely: Armenian 5.02-6.38 over three static runs).

Each trained model is then scored on the validation split of the static release (no other
release trains on its documents: the same seed and fraction hold out the same ones, of those it
includes): every validation
document once, cut into windows of ``seq_len + 1`` tokens (at most ``EVAL_WINDOWS`` a document),
the mean next-token loss of each language's tokens (a token the model's vocabulary lacks is not
scored). Printed: each language's loss per run kind (mean over seeds and min-max), the change
against the static mix, and the means over the low-resource languages (the five with the fewest
clean tokens) and the high-resource ones (the three with the most), with the seed spread. The
goal (issue 22): a dynamic run lowers the low-resource mean by more than the seed spread, at a
high-resource cost smaller than the gain. Printed as measured, whatever the sign.

The machine has 2 shared cores: the losses do not depend on the load, the seconds do.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
OUT = ROOT / "bench" / "out"
# The accuracy objective (severity error) needs reviewers; the bench corpus has none.
UNREVIEWED = ("--accept-unvalidated", "bench corpus: no reviewers")
LANGUAGES = ("en", "es", "fr", "de", "fi", "hy", "cy", "is", "eu", "ga")
PROJECT_PARTS = ("dbt_project.yml", "profiles.yml", "models", "macros", "seeds", "tests",
                 "snapshots")  # fmt: skip
STATIC, SCHEDULE = "bench_dyn_static", "bench_dyn_schedule"
ALPHAS = (1.0, 0.6, 0.3, 0.0)  # the schedule's temperature exponents, a quarter of the run each
# Static temperature mixes beside the baseline's alpha 0.3 (kind -> alpha): what fixed weights
# trade between low- and high-resource loss, the frontier a policy has to get below.
STATIC_ALPHAS = {"alpha_0.6": 0.6, "uniform": 0.0}
EVAL_WINDOWS = 4
# A language's validation loss is a mean over its held-out documents: with fewer, one document
# decides it (corpus-10000 holds out 3 Basque and 3 Irish documents, corpus-2000 one Irish
# document and no Icelandic one).
MIN_VALIDATION_DOCS = 10
LOW, HIGH = 5, 3  # languages counted as low- and high-resource
DEFAULT_DIM = 32  # train_tiny's --dim
CURVE_PARTS = 6  # --curve: the run's steps in this many equal parts
# The ODM runs: train_tiny.py's EXP3 flags of each.
ODM_FLAGS: dict[str, list[str]] = {
    "odm": [],
    "odm_byte": ["--group-loss", "byte"],
    "odm_initial": ["--explore", "initial"],
    "odm_half": ["--explore", "initial", "--min-explore", "0.5"],
}
# Run kinds; the first is the baseline the others are compared with.
KINDS = (
    "static", "schedule", "odm", "odm_byte", "odm_initial", "odm_half", "reference", "excess",
    *STATIC_ALPHAS,
)  # fmt: skip


def temperature(tokens: Mapping[str, float], alpha: float) -> dict[str, float]:
    """q_l = p_l ** alpha / sum_k p_k ** alpha (alpha 0: uniform), rounded to sum to 1."""
    total = sum(tokens.values())
    raw = {g: (n / total) ** alpha for g, n in tokens.items()}
    scale = sum(raw.values())
    weights = {g: round(w / scale, 6) for g, w in raw.items()}
    first = sorted(weights)[0]  # the rounding's remainder, so that the row sums to 1
    weights[first] = round(1.0 - sum(w for g, w in weights.items() if g != first), 6)
    return weights


def mix_file(
    name: str, budget: int, schedule: list[dict[str, Any]] | None, alpha: float = 0.3
) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": name,
        "description": f"bench/dynamic_mix.py: temperature {alpha} over ten languages"
        + (", a schedule of the weights" if schedule else ""),
        "token_budget": budget,
        "languages": list(LANGUAGES),
        "strategy": {"kind": "temperature", "alpha": alpha},
        "validation_fraction": 0.1,
        "seed": 17,
        "tokenizer": "cl100k",
    }
    if schedule is not None:
        raw["groups"] = {"by": "language", "when_exhausted": "repeat", "max_epochs": 20}
        raw["schedule"] = {"interpolation": "constant", "rows": schedule}
    return raw


class Bench:
    """The bench's lakehouse and its project copy; commands run in the copy."""

    def __init__(self, home: Path) -> None:
        self.home, self.project = home, home / "project"
        self.log = home / "commands.log"
        for key in [k for k in os.environ if k.startswith("LAKEMIX_")]:
            del os.environ[key]
        os.environ.update(
            {
                "LAKEMIX_HOME": str(home / "lakehouse"),
                "DO_NOT_TRACK": "1",
                "DBT_TARGET_PATH": str(home / "target"),
                "DBT_LOG_PATH": str(home / "logs"),
            }
        )

    def run(self, *cmd: str) -> None:
        with self.log.open("ab") as log:
            log.write(f"\n$ {' '.join(cmd)}\n".encode())
            log.flush()
            done = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.project)
        if done.returncode != 0:
            tail = self.log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"{' '.join(cmd)} failed; the end of {self.log}:\n{tail}")

    def clean_tokens(self) -> dict[str, int]:
        from lakemix.duck import connect

        conn = connect(self.home / "lakehouse" / "lakemix.duckdb", read_only=True)
        try:
            rows = conn.execute(
                "select language, sum(token_count) from marts.fct_clean_documents "
                f"where language in ({', '.join(repr(g) for g in LANGUAGES)}) group by language"
            ).fetchall()
        finally:
            conn.close()
        return {str(g): int(n) for g, n in rows}


def build(home: Path, docs: int, run_tokens: int) -> tuple[Bench, dict[str, int], str]:
    """The lakehouse in ``home`` with the static releases (built once, kept for the next run;
    built again when ``docs`` changes) and the schedule's release for a run of ``run_tokens``
    (its tag, one a run length)."""
    from corpus import cached_corpus, shards

    marker = home / "built.yml"
    bench = Bench(home)
    bin_ = Path(sys.executable).parent
    built = yaml.safe_load(marker.read_text()) if marker.is_file() else None
    if built is None or built["docs"] != docs:
        shutil.rmtree(home, ignore_errors=True)
        bench.project.mkdir(parents=True)
        for name in PROJECT_PARTS:
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, bench.project / name)
        (bench.project / "mixes").mkdir()
        corpus = cached_corpus(docs)
        print(f"building {home} from {corpus} (once) ...", flush=True)
        start = time.perf_counter()
        for shard in shards(corpus):
            bench.run(str(bin_ / "lakemix"), "ingest", str(shard), "--source", "bench",
                      "--format", "jsonl", "--no-progress")  # fmt: skip
        bench.run(str(bin_ / "dbt"), "build", "--quiet")
        tokens = bench.clean_tokens()
        missing = sorted(set(LANGUAGES) - set(tokens))
        if missing:
            raise SystemExit(f"no clean documents of {missing} in the corpus: change LANGUAGES")
        release(bench, STATIC, STATIC, mix_file(STATIC, sum(tokens.values()), None))
        built = {"docs": docs, "clean_tokens": tokens}
        marker.write_text(yaml.safe_dump(built))
        print(f"  built in {time.perf_counter() - start:.0f} s", flush=True)
    tokens = built["clean_tokens"]
    tag = f"{SCHEDULE}_{run_tokens}"
    if not (home / "lakehouse" / "releases" / f"{tag}.json").is_file():
        rows = [
            {"at_tokens": k * run_tokens // len(ALPHAS), "weights": temperature(tokens, alpha)}
            for k, alpha in enumerate(ALPHAS)
        ]
        release(bench, SCHEDULE, tag, mix_file(SCHEDULE, sum(tokens.values()), rows))
    for kind, alpha in STATIC_ALPHAS.items():
        name = static_mix(kind)
        if not (home / "lakehouse" / "releases" / f"{name}.json").is_file():
            release(bench, name, name, mix_file(name, sum(tokens.values()), None, alpha))
    return bench, tokens, tag


def static_mix(kind: str) -> str:
    """The mix (and release tag) of a static kind of ``STATIC_ALPHAS``."""
    return f"{STATIC}_{kind.replace('.', '')}"


def release(bench: Bench, name: str, tag: str, raw: dict[str, Any]) -> None:
    """Write mix ``name``'s file into the project copy, build it and release it as ``tag``."""
    bin_ = Path(sys.executable).parent
    path = bench.project / "mixes" / f"{name}.yml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    bench.run(str(bin_ / "lakemix"), "mix", "build", name)
    bench.run(str(bin_ / "lakemix"), "release", name, "--tag", tag, *UNREVIEWED)


def train(
    bench: Bench, kinds: Mapping[str, tuple[str, str]], seed: int, args: argparse.Namespace
) -> dict[str, Path]:
    """One train_tiny run of each kind, side by side (one thread each); their folders."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    runs: dict[str, tuple[Path, subprocess.Popen[bytes], Any]] = {}
    for kind, (mix, tag) in kinds.items():
        out = run_dir(bench, args, kind, seed)
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        cmd = [sys.executable, str(ROOT / "examples" / "train_tiny.py"), "--mix", mix,
               "--tag", tag, "--out", str(out), "--steps", str(args.steps),
               "--checkpoint-every", str(args.steps), "--seq-len", str(args.seq_len),
               "--batch-size", str(args.batch_size), "--num-workers", "0",
               "--seed", str(seed), "--dim", str(args.dim)]  # fmt: skip
        if kind in ODM_FLAGS:
            cmd += ["--policy", "exp3", "--update-every", str(args.update_every)]
            cmd += ODM_FLAGS[kind]
        elif kind in ("reference", "curve"):  # the static weights, grouped: each group's loss
            cmd += ["--groups", "language", "--update-every", str(args.update_every)]
        elif kind == "excess":
            reference = trained(bench, args, "reference", seed)
            cmd += ["--policy", "excess", "--reference", str(reference),
                    "--update-every", str(args.update_every)]  # fmt: skip
        log = (out / "train.log").open("wb")
        runs[kind] = (
            out,
            subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env),
            log,
        )
    for kind, (out, process, log) in runs.items():
        code = process.wait()
        log.close()
        if code != 0:
            tail = (out / "train.log").read_text(errors="replace")[-3000:]
            raise SystemExit(f"train_tiny ({kind}, seed {seed}) failed:\n{tail}")
    return {kind: out for kind, (out, _, _) in runs.items()}


def run_dir(bench: Bench, args: argparse.Namespace, kind: str, seed: int) -> Path:
    """A run's folder: ``runs/`` for the default model width, ``runs-dim<N>/`` for another."""
    runs = bench.home / ("runs" if args.dim == DEFAULT_DIM else f"runs-dim{args.dim}")
    return runs / f"{kind}-{seed}"


def unfinished(out: Path, kind: str, steps: int) -> str | None:
    """Why ``out`` is not a finished run of ``steps`` steps, or None when it is."""
    record = out / "run.json"
    if not (out / "checkpoint.pt").is_file() or not record.is_file():
        return f"no finished run {out}: train it first (without --evaluate-only)"
    ran = json.loads(record.read_text())["steps"]
    if ran != steps:
        return f"{out} ran {ran} steps, not {steps}: train it again (--train {kind})"
    return None


def trained(bench: Bench, args: argparse.Namespace, kind: str, seed: int) -> Path:
    """The folder of a run of ``--steps`` steps that ``train`` finished, for ``--evaluate-only``
    and the kinds ``--train`` leaves out."""
    out = run_dir(bench, args, kind, seed)
    problem = unfinished(out, kind, args.steps)
    if problem:
        raise SystemExit(problem)
    return out


def tiny_model_class() -> Any:
    spec = importlib.util.spec_from_file_location("train_tiny", ROOT / "examples" / "train_tiny.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TinyLM


def validation_documents() -> dict[str, int]:
    """Held-out documents per language of the static release (what every run is scored on)."""
    from collections import Counter

    from lakemix.loader import MixLoader

    store = MixLoader(mix=STATIC, tag=STATIC, split="validation", seq_len=8, batch_size=1).store
    return dict(Counter(str(g) for g in store._column("language").to_pylist()))


def evaluate(run: Path, mix: str, tag: str, seq_len: int) -> dict[str, float]:
    """Mean next-token loss of each language's validation tokens under the run's model.

    Every run is scored on the static release's validation split: no other release of the
    bench trains on its documents (the same seed and fraction hold out the same ones), and the
    loader opens it without weights (a scheduled release's split may lack a small language's
    documents, which its schedule weights)."""
    import torch

    from lakemix.loader import MixLoader

    train_store = MixLoader(mix=mix, tag=tag, seq_len=seq_len, batch_size=1).store
    store = MixLoader(
        mix=STATIC, tag=STATIC, split="validation", seq_len=seq_len, batch_size=1
    ).store
    vocabulary = torch.from_numpy(train_store.vocabulary().astype("int64"))
    state = torch.load(run / "checkpoint.pt", weights_only=False)["model"]
    dim = int(state["embed.weight"].shape[1])  # train_tiny's --dim
    model = tiny_model_class()(vocabulary, dim=dim, layers=2, seq_len=seq_len)
    model.load_state_dict(state)
    model.eval()
    known = torch.zeros(int(max(vocabulary.max(), int(store.vocabulary().max()))) + 1, dtype=bool)
    known[vocabulary] = True
    windows: list[tuple[str, np.ndarray]] = []
    for row in range(len(store)):
        tokens = store.tokens(row, 0, int(store.lengths[row]))
        for k in range(min(EVAL_WINDOWS, max(1, (len(tokens) - 1) // seq_len))):
            windows.append((store.language(row), tokens[k * seq_len : (k + 1) * seq_len + 1]))
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    with torch.no_grad():
        for start in range(0, len(windows), 64):
            part = windows[start : start + 64]
            ids = torch.full((len(part), seq_len + 1), -1, dtype=torch.long)
            for i, (_, w) in enumerate(part):
                ids[i, : len(w)] = torch.from_numpy(w.astype(np.int64))
            present = ids >= 0
            scored = present & known[ids.clamp(min=0)]
            inputs = torch.where(scored[:, :-1], ids[:, :-1], vocabulary[0])
            labels = torch.where(scored[:, 1:], ids[:, 1:], -100)
            batch = {
                "input_ids": inputs,
                "labels": labels,
                "segment_ids": torch.zeros_like(inputs),
                "position_ids": torch.arange(seq_len).expand_as(inputs),
            }
            losses = model(batch)
            for i, (language, _) in enumerate(part):
                mask = labels[i] >= 0
                sums[language] = sums.get(language, 0.0) + float(losses[i][mask].sum())
                counts[language] = counts.get(language, 0) + int(mask.sum())
    return {g: sums[g] / counts[g] for g in sums if counts[g]}


def spread(values: Sequence[float]) -> str:
    return f"{statistics.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def curve(bench: Bench, args: argparse.Namespace, by_size: Sequence[str]) -> None:
    """``--curve``: each language's training loss over the run, the window losses of a run
    like the reference kind (its static weights, each language's loss logged every
    ``--update-every`` steps) averaged over a part of the run and the seeds: whether a
    language's loss still falls, or has flattened (where moving its tokens to another language
    costs it little). Trained into ``runs/curve-<seed>``; with ``--evaluate-only``, read from
    there or, for a run length only the full bench trained, from the reference runs."""
    parts: dict[str, list[list[float]]] = {g: [[] for _ in range(CURVE_PARTS)] for g in by_size}
    for seed in args.seeds:
        if args.evaluate_only:
            curve_run = run_dir(bench, args, "curve", seed)
            kind = "reference" if unfinished(curve_run, "curve", args.steps) else "curve"
            run = trained(bench, args, kind, seed)
        else:
            run = train(bench, {"curve": (STATIC, STATIC)}, seed, args)["curve"]
        record = json.loads((run / "run.json").read_text())
        for step, means in record["group_loss_trajectory"]:
            part = min((int(step) - 1) * CURVE_PARTS // args.steps, CURVE_PARTS - 1)
            for g, loss in means.items():
                if g in parts and loss is not None and math.isfinite(loss):
                    parts[g][part].append(float(loss))
    bounds = [round(i * args.steps / CURVE_PARTS) for i in range(CURVE_PARTS + 1)]
    heads = [f"{a + 1}-{b}" for a, b in itertools.pairwise(bounds)]
    print(
        f"\ntraining loss per language over the run (reference: the static weights), mean of "
        f"its {args.update_every}-step windows in each part of the run, seeds {args.seeds}:"
    )
    print(f"{'language':<10} " + " ".join(f"{h:>11}" for h in heads) + f" {'last - 2nd':>11}")
    for g in reversed(by_size):
        means = [statistics.mean(v) if v else math.nan for v in parts[g]]
        cells = " ".join(f"{m:>11.3f}" for m in means)
        print(f"{g:<10} {cells} {means[-1] - means[1]:>+11.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument(
        "--home",
        type=lambda text: Path(text).resolve(),  # its commands run in its project copy
        default=OUT / "dynamic-mix",
        help="the bench's lakehouse and runs (built again when --docs changes)",
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--dim", type=int, default=DEFAULT_DIM, help="train_tiny's model width")
    parser.add_argument("--update-every", type=int, default=10, help="ODM: steps between updates")
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="score the runs of these seeds already trained (by invocations that ran side by side)",
    )
    parser.add_argument(
        "--train",
        nargs="+",
        choices=list(KINDS),
        default=list(KINDS),
        help="run kinds to train; the others are scored from their finished runs",
    )
    parser.add_argument(
        "--curve",
        action="store_true",
        help="train the reference kind only and print each language's training loss over the run",
    )
    args = parser.parse_args()
    run_tokens = args.steps * args.batch_size * args.seq_len
    bench, tokens, schedule_tag = build(args.home, args.docs, run_tokens)
    by_size = sorted(LANGUAGES, key=lambda g: tokens[g])
    low, high = by_size[:LOW], by_size[-HIGH:]
    held_out = validation_documents()
    few = {g: held_out.get(g, 0) for g in LANGUAGES if held_out.get(g, 0) < MIN_VALIDATION_DOCS}
    if few:
        raise SystemExit(
            f"corpus-{args.docs}: the validation split holds fewer than {MIN_VALIDATION_DOCS} "
            f"documents of {', '.join(f'{g} ({n})' for g, n in few.items())}: too few to score "
            "a language; give a larger --docs"
        )
    load = os.getloadavg()
    print(
        f"corpus-{args.docs}, clean tokens (cl100k) of the ten languages: "
        + ", ".join(f"{g} {tokens[g]:,}" for g in reversed(by_size))
        + f"\nruns: train_tiny.py (dim {args.dim}), {args.steps} steps x {args.batch_size} x "
        f"{args.seq_len} = {run_tokens:,} tokens each, seeds {args.seeds}; "
        f"load average {load[0]:.1f} (2 cores)",
        flush=True,
    )
    if args.curve:
        curve(bench, args, by_size)
        return
    kinds = {kind: (SCHEDULE, schedule_tag) if kind == "schedule"
             else (static_mix(kind),) * 2 if kind in STATIC_ALPHAS else (STATIC, STATIC)
             for kind in KINDS}  # fmt: skip
    losses: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for seed in args.seeds:
        start = time.perf_counter()
        fresh = {} if args.evaluate_only else {k: v for k, v in kinds.items() if k in args.train}
        # the excess policy reads its reference run's losses: that run trains first
        first = {k: v for k, v in fresh.items() if k != "excess"}
        runs = train(bench, first, seed, args) if first else {}
        if "excess" in fresh:
            runs |= train(bench, {"excess": fresh["excess"]}, seed, args)
        runs |= {k: trained(bench, args, k, seed) for k in kinds if k not in runs}
        for kind, (mix, tag) in kinds.items():
            losses[kind].append(evaluate(runs[kind], mix, tag, args.seq_len))
        load = os.getloadavg()[0]
        print(f"  seed {seed}: {time.perf_counter() - start:.0f} s (load {load:.1f})", flush=True)
    print(f"\nvalidation loss per language, mean over {len(args.seeds)} seeds (min-max):")
    print(f"{'language':<10} {'tokens':>10} " + " ".join(f"{k:>22}" for k in kinds))
    for g in reversed(by_size):
        cells = " ".join(f"{spread([r[g] for r in losses[k]]):>22}" for k in kinds)
        print(f"{g:<10} {tokens[g]:>10,} {cells}")
    summary: dict[str, dict[str, list[float]]] = {}
    for kind in kinds:
        summary[kind] = {
            "low": [statistics.mean(r[g] for g in low) for r in losses[kind]],
            "high": [statistics.mean(r[g] for g in high) for r in losses[kind]],
        }
    print(f"\nlow-resource ({', '.join(low)}) and high-resource ({', '.join(high)}) mean loss:")
    for kind in kinds:
        print(
            f"  {kind:<10} low {spread(summary[kind]['low'])}  high {spread(summary[kind]['high'])}"
        )
    base = summary["static"]
    for kind in KINDS[1:]:
        gains = [s - d for s, d in zip(base["low"], summary[kind]["low"], strict=True)]
        costs = [d - s for s, d in zip(base["high"], summary[kind]["high"], strict=True)]
        noise = max(max(v) - min(v) for v in (base["low"], summary[kind]["low"]))
        gain, cost = statistics.mean(gains), statistics.mean(costs)
        met = gain > noise and cost < gain
        verdict = (
            f"a static mix (alpha {STATIC_ALPHAS[kind]})"
            if kind in STATIC_ALPHAS
            else f"goal {'met' if met else 'not met'}"
        )
        print(
            f"  {kind} against static (same seeds): low-resource loss {-gain:+.4f} "
            f"(per seed {', '.join(f'{-x:+.4f}' for x in gains)}; seed spread {noise:.4f}), "
            f"high-resource {cost:+.4f}: {verdict}"
        )


if __name__ == "__main__":
    main()
