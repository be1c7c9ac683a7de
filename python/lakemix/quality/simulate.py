"""``lakemix quality simulate``: the review loop replayed on a labelled pool, to measure how many
labels each way of choosing documents needs.

The pool's labels stand in for the reviewers (the oracle). The documents of the held-out source
(or a tenth by text hash) are never drawn and only measured on. Every strategy starts from the
same ``start`` random labels; each round trains a model on the labels so far
(``lakemix.udf.quality_model.train``), measures it on the held-out documents and asks the
oracle for ``batch`` more, chosen by the strategy:

- ``random``: uniformly among the unlabelled;
- ``uncertainty``: the model's scores closest to 0.5 (the decision boundary);
- ``disagreement``: where the model and the hand-set rules decide differently (the rules: every
  rule of the seeds' families ``gopher_quality``, ``gopher_repetition``, ``c4`` and ``fineweb``,
  with the project's thresholds), the least certain of those first, then uncertainty;
- ``stratified``: languages in turn, at random within each.

Deterministic: the same pool, strategy and seed give the same curve.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lakemix.quality.training import Labelled, LabelsError, held_out, metrics

STRATEGIES = ("random", "uncertainty", "disagreement", "stratified")
RULE_FAMILIES = ("gopher_quality", "gopher_repetition", "c4", "fineweb")


@dataclass(frozen=True)
class Point:
    """The model after ``labels`` labels, measured on the held-out documents."""

    labels: int
    accuracy: float
    precision: float
    recall: float


def rules_keep(docs: Sequence[Labelled]) -> np.ndarray:
    """Whether the hand-set rules (``RULE_FAMILIES``, the project's seeds) keep each document."""
    import pyarrow as pa

    from lakemix.quality.project_seeds import load_project_seeds
    from lakemix.udf.normalize import normalize_texts
    from lakemix.udf.quality import quality_signals

    seeds = load_project_seeds()
    texts = normalize_texts(pa.array([d.text for d in docs], pa.large_string()))
    languages = [d.language or "en" for d in docs]
    words = {lang: seeds.stop_words[lang] for lang in set(languages) if lang in seeds.stop_words}
    signals = quality_signals(texts, pa.array(languages, pa.string()), words)
    values = {
        f.name: signals.field(f.name).cast(pa.float64()).to_numpy(zero_copy_only=False)
        for f in signals.type
    }
    return rules_keep_values(values, languages)


def rules_keep_values(values: dict[str, np.ndarray], languages: Sequence[str]) -> np.ndarray:
    """Whether the hand-set rules keep each document, from its signals (the columns of
    ``int_documents_quality_scored``) and language: every rule of ``RULE_FAMILIES`` with the
    threshold the filter model would apply (calibrated, else the language's, else '*')."""
    from lakemix.quality.calibrated_seed import read_calibrated
    from lakemix.quality.project_seeds import load_project_seeds
    from lakemix.quality.proposal import rejects

    seeds = load_project_seeds()
    calibrated = {(r.language, r.rule): r.threshold for r in read_calibrated(seeds.calibrated_path)}
    rejected = np.zeros(len(languages), bool)
    language_array = np.array(languages, dtype=object)
    for language in sorted(set(languages)):
        rows = language_array == language
        known = language in seeds.languages
        for rule in seeds.rules(language if known else "*"):
            if rule.family not in RULE_FAMILIES or rule.signal not in values:
                continue
            threshold = calibrated.get((language, rule.rule), rule.threshold)
            rejected[rows] |= rejects(values[rule.signal][rows], rule.operator, threshold)
    return ~rejected


def simulate(
    docs: Sequence[Labelled],
    *,
    strategy: str,
    holdout_source: str | None = None,
    start: int = 50,
    batch: int = 50,
    budget: int = 1000,
    seed: int = 0,
    progress: Callable[[Point], None] | None = None,
) -> list[Point]:
    """The learning curve of ``strategy`` on ``docs``: one point per round, up to ``budget``.

    Raises:
        LabelsError: An unknown strategy, bad sizes, or a pool without both labels.
    """
    import pyarrow as pa

    from lakemix.udf.quality_model.train import train

    if strategy not in STRATEGIES:
        raise LabelsError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if not 0 < start <= budget or batch < 1:
        raise LabelsError(
            f"need 0 < start <= budget and batch >= 1, got {start}, {budget}, {batch}"
        )
    held = [d for d in docs if held_out(d, holdout_source)]
    pool = [d for d in docs if not held_out(d, holdout_source)]
    if not held or len({d.label for d in pool}) < 2:
        raise LabelsError(f"{len(pool)} pool documents and {len(held)} held out: need both labels")
    rng = random.Random(f"{seed}:start")
    order = list(range(len(pool)))
    rng.shuffle(order)
    labelled = order[:start]
    if len({pool[i].label for i in labelled}) < 2:  # the first model needs both labels
        other = next(i for i in order[start:] if pool[i].label != pool[labelled[0]].label)
        labelled.append(other)
    rules = rules_keep(pool) if strategy == "disagreement" else None
    pool_texts = pa.array([d.text for d in pool], pa.large_string())
    held_texts = pa.array([d.text for d in held], pa.large_string())
    held_labels = [d.label for d in held]
    pick = random.Random(f"{seed}:{strategy}")
    points: list[Point] = []
    while True:
        chosen = [pool[i] for i in labelled]
        model = train(
            [d.text for d in chosen],
            [d.label for d in chosen],
            groups=[d.language for d in chosen],
            seed=seed,
        )
        measured = metrics(held_labels, model.score(held_texts).tolist())
        point = Point(
            len(labelled), measured["accuracy"], measured["precision"], measured["recall"]
        )
        points.append(point)
        if progress:
            progress(point)
        if len(labelled) >= min(budget, len(pool)):
            return points
        taken = set(labelled)
        rest = [i for i in range(len(pool)) if i not in taken]
        want = min(batch, budget - len(labelled), len(rest))
        scores = model.score(pool_texts) if strategy in ("uncertainty", "disagreement") else None
        labelled.extend(_choose(strategy, rest, want, pool, scores, rules, pick))


def _choose(
    strategy: str,
    rest: list[int],
    want: int,
    pool: Sequence[Labelled],
    scores: np.ndarray | None,
    rules: np.ndarray | None,
    rng: random.Random,
) -> list[int]:
    if strategy == "random":
        return rng.sample(rest, want)
    if strategy == "stratified":
        by_language: dict[str, list[int]] = defaultdict(list)
        for i in rest:
            by_language[pool[i].language].append(i)
        for members in by_language.values():
            rng.shuffle(members)
        out: list[int] = []
        languages = sorted(by_language)
        while len(out) < want:
            for language in languages:
                if by_language[language] and len(out) < want:
                    out.append(by_language[language].pop())
        return out
    assert scores is not None
    margin = {i: abs(float(scores[i]) - 0.5) for i in rest}
    if strategy == "uncertainty":
        return sorted(rest, key=lambda i: (margin[i], i))[:want]
    assert rules is not None
    disagree = [i for i in rest if (scores[i] >= 0.5) != bool(rules[i])]
    agree = [i for i in rest if (scores[i] >= 0.5) == bool(rules[i])]
    ranked = sorted(disagree, key=lambda i: (margin[i], i)) + sorted(
        agree, key=lambda i: (margin[i], i)
    )
    return ranked[:want]
