"""Mix definitions: one YAML file per mix under ``mixes/``, with errors that name the field."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakemix.errors import LakemixError
from lakemix.mix.schedule import (
    Groups,
    ScheduleError,
    WeightSchedule,
    parse_groups,
    parse_schedule,
)

NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")
LANGUAGE = re.compile(r"[a-z]{2,3}(_[A-Za-z]{4})?|und")
STRATEGIES = ("temperature", "unimax", "explicit")
KEYS = {
    "name",
    "description",
    "token_budget",
    "languages",
    "strategy",
    "sources",
    "min_quality",
    "upsample_by_cluster_size",
    "validation_fraction",
    "seed",
    "tokenizer",
    "groups",
    "schedule",
}
TOKENIZERS = ("cl100k", "o200k", "llama3", "qwen3")


class MixSpecError(LakemixError, ValueError):
    """A mix file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class SourceRule:
    """Relative weight of a source inside each language, and an optional token cap."""

    weight: float = 1.0
    max_tokens: int | None = None


@dataclass(frozen=True)
class MixSpec:
    """A validated mix definition (see ``mixes/*.yml``)."""

    name: str
    token_budget: int
    strategy: str
    seed: int
    languages: tuple[str, ...] | None = None  # None: every language with data
    alpha: float | None = None  # temperature: q_l ~ p_l ** alpha
    max_epochs: float | None = None  # unimax: at most this many passes over a language
    weights: dict[str, float] = field(default_factory=dict)  # explicit
    sources: dict[str, SourceRule] = field(default_factory=dict)
    min_language_score: float | None = None
    min_quality_score: float | None = None  # keep documents the quality model scores this high
    quality_top_fraction: float | None = None  # or the best-scored share of each language
    upsample_max_factor: int | None = None
    validation_fraction: float = 0.0
    tokenizer: str = "cl100k"
    description: str = ""
    groups: Groups | None = None  # a dynamic mix: its groups (schedule.py)
    schedule: WeightSchedule | None = None  # and their weights over the run

    @property
    def is_dynamic(self) -> bool:
        """Whether the mix declares groups (whose weights the loader may change)."""
        return self.groups is not None


def _fail(where: str, name: str, message: str) -> MixSpecError:
    return MixSpecError(f"{where}: {name}: {message}")


def _number(where: str, name: str, value: Any, *, low: float, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(where, name, f"must be a number, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise _fail(where, name, f"must be {bounds}, got {value!r}")
    return float(value)


def parse(raw: Any, where: str) -> MixSpec:
    """Validate the parsed YAML of one mix file.

    Raises:
        MixSpecError: the first problem found, naming ``where`` and the field.
    """
    if not isinstance(raw, dict):
        raise MixSpecError(
            f"{where}: a mix file must be a mapping of fields, got {type(raw).__name__}"
        )
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise _fail(where, unknown[0], f"unknown field; known fields: {', '.join(sorted(KEYS))}")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise _fail(
            where,
            "name",
            f"must be lower-case letters, digits and '_' (a table name), got {name!r}",
        )
    budget = raw.get("token_budget")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise _fail(
            where, "token_budget", f"must be a positive whole number of tokens, got {budget!r}"
        )
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _fail(where, "seed", f"must be a whole number >= 0, got {seed!r}")

    languages = raw.get("languages", "all")
    parsed_languages: tuple[str, ...] | None = None
    if languages != "all":
        if not isinstance(languages, list) or not languages:
            raise _fail(
                where, "languages", f"must be 'all' or a non-empty list of codes, got {languages!r}"
            )
        for code in languages:
            if not isinstance(code, str) or not LANGUAGE.fullmatch(code):
                raise _fail(where, "languages", f"{code!r} is not an ISO 639 code")
        if len(set(languages)) != len(languages):
            raise _fail(where, "languages", "lists a language twice")
        parsed_languages = tuple(languages)

    strategy = raw.get("strategy")
    if not isinstance(strategy, dict) or strategy.get("kind") not in STRATEGIES:
        raise _fail(where, "strategy.kind", f"must be one of {', '.join(STRATEGIES)}")
    kind = strategy["kind"]
    extra = set(strategy) - {
        "kind",
        {"temperature": "alpha", "unimax": "max_epochs", "explicit": "weights"}[kind],
    }
    if extra:
        raise _fail(where, f"strategy.{sorted(extra)[0]}", f"not a setting of the {kind} strategy")
    alpha = max_epochs = None
    weights: dict[str, float] = {}
    if kind == "temperature":
        alpha = _number(where, "strategy.alpha", strategy.get("alpha"), low=0.0, high=1.0)
    elif kind == "unimax":
        max_epochs = _number(where, "strategy.max_epochs", strategy.get("max_epochs"), low=1e-9)
    else:
        given = strategy.get("weights")
        if not isinstance(given, dict) or not given:
            raise _fail(where, "strategy.weights", "must map language codes to weights")
        for code, w in given.items():
            if not isinstance(code, str) or not LANGUAGE.fullmatch(code):
                raise _fail(where, "strategy.weights", f"{code!r} is not an ISO 639 code")
            weights[code] = _number(where, f"strategy.weights.{code}", w, low=0.0)
        total = sum(weights.values())
        if total <= 0:
            raise _fail(where, "strategy.weights", f"must sum to a positive number, got {total}")
        weights = {k: v / total for k, v in weights.items()}
        if parsed_languages is not None and set(weights) != set(parsed_languages):
            raise _fail(where, "strategy.weights", "must name exactly the languages in 'languages'")

    sources: dict[str, SourceRule] = {}
    for source, rule in (raw.get("sources") or {}).items():
        if not isinstance(rule, dict) or set(rule) - {"weight", "max_tokens"}:
            raise _fail(
                where, f"sources.{source}", "must be a mapping with weight and/or max_tokens"
            )
        cap = rule.get("max_tokens")
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
            raise _fail(
                where, f"sources.{source}.max_tokens", f"must be a whole number >= 0, got {cap!r}"
            )
        sources[str(source)] = SourceRule(
            weight=_number(where, f"sources.{source}.weight", rule.get("weight", 1.0), low=0.0),
            max_tokens=cap,
        )

    quality = raw.get("min_quality") or {}
    known = {"language_score", "quality_score", "quality_top_fraction"}
    if not isinstance(quality, dict) or set(quality) - known:
        raise _fail(where, "min_quality", f"supports {', '.join(sorted(known))}, got {quality!r}")
    if {"quality_score", "quality_top_fraction"} <= set(quality):
        raise _fail(
            where,
            "min_quality",
            "give quality_score (a threshold) or quality_top_fraction (the best share of each "
            "language), not both",
        )
    score = quality.get("language_score")
    model_score = quality.get("quality_score")
    top = quality.get("quality_top_fraction")
    upsample = raw.get("upsample_by_cluster_size")
    factor = None
    if upsample not in (None, False):
        if not isinstance(upsample, dict) or set(upsample) != {"max_factor"}:
            raise _fail(where, "upsample_by_cluster_size", "must be false or {max_factor: N}")
        factor = int(
            _number(where, "upsample_by_cluster_size.max_factor", upsample["max_factor"], low=1)
        )
    tokenizer = raw.get("tokenizer", "cl100k")
    if tokenizer not in TOKENIZERS:
        raise _fail(
            where, "tokenizer", f"must be one of {', '.join(TOKENIZERS)}, got {tokenizer!r}"
        )
    groups, schedule = _dynamic(raw, where)
    return MixSpec(
        name=name,
        token_budget=budget,
        strategy=kind,
        seed=seed,
        languages=parsed_languages,
        alpha=alpha,
        max_epochs=max_epochs,
        weights=weights,
        sources=sources,
        min_language_score=None
        if score is None
        else _number(where, "min_quality.language_score", score, low=0.0, high=1.0),
        min_quality_score=None
        if model_score is None
        else _number(where, "min_quality.quality_score", model_score, low=0.0, high=1.0),
        quality_top_fraction=None
        if top is None
        else _number(where, "min_quality.quality_top_fraction", top, low=1e-9, high=1.0),
        upsample_max_factor=factor,
        validation_fraction=_number(
            where, "validation_fraction", raw.get("validation_fraction", 0.0), low=0.0, high=0.5
        ),
        tokenizer=tokenizer,
        description=str(raw.get("description", "")),
        groups=groups,
        schedule=schedule,
    )


def _dynamic(raw: dict[str, Any], where: str) -> tuple[Groups | None, WeightSchedule | None]:
    """The ``groups`` and ``schedule`` of a dynamic mix (a schedule groups by language unless
    ``groups`` says otherwise)."""
    try:
        groups = None if raw.get("groups") is None else parse_groups(raw["groups"], where)
        schedule = None if raw.get("schedule") is None else parse_schedule(raw["schedule"], where)
    except ScheduleError as exc:
        raise MixSpecError(str(exc)) from None
    if schedule is not None and groups is None:
        groups = Groups()
    return groups, schedule


def load(name: str, directory: Path) -> MixSpec:
    """Read and validate ``<directory>/<name>.yml``.

    Raises:
        MixSpecError: no such mix (listing the ones there are), or an invalid file.
    """
    import yaml

    path = directory / f"{name}.yml"
    if not NAME.fullmatch(name) or not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.yml"))
        raise MixSpecError(
            f"no mix named {name!r} in {directory}; known mixes: {', '.join(known) or 'none'}"
        )
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise MixSpecError(f"{path}: not valid YAML: {exc}") from None
    spec = parse(raw, str(path))
    if spec.name != name:
        raise _fail(str(path), "name", f"must equal the file name ({name!r}), got {spec.name!r}")
    return spec
