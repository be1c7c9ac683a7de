"""Plan a mix: target tokens per language and the sampling rate of each (language, source)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from lakemix.mix import weights
from lakemix.mix.schedule import ScheduleError, check_against_groups
from lakemix.mix.spec import MixSpec, MixSpecError, SourceRule

_UNLISTED = SourceRule()  # a source the mix does not name: weight 1, no cap


@dataclass(frozen=True)
class LanguagePlan:
    """One language of a mix plan.

    ``target_share`` is what the strategy asks for; ``feasible_share`` what source caps allow
    (equal unless ``note`` says why not); ``epochs`` is sampled tokens over available tokens.
    """

    language: str
    available_tokens: float
    target_share: float
    feasible_share: float
    sampled_tokens: float
    epochs: float
    note: str = ""


@dataclass(frozen=True)
class MixPlan:
    """Per-language plan, and expected repeats per (weighted) token of each (language, source)."""

    spec: MixSpec
    languages: list[LanguagePlan]
    rates: dict[tuple[str, str], float]


def make_plan(
    spec: MixSpec,
    available: Mapping[tuple[str, str], float],
    *,
    group_tokens: Mapping[str, float] | None = None,
) -> MixPlan:
    """Plan ``spec`` over available tokens per (language, source).

    A dynamic mix's schedule is checked against the tokens the plan samples per group (groups by
    ``language`` or ``source_id``), or ``group_tokens`` (the clean tokens per value of another
    column: ``lakehouse.column_tokens``).

    Raises:
        MixSpecError: the mix names a language (or weights one) that has no data; its schedule
            names a group without data or asks a group for more than its tokens allow.
    """
    per_language: dict[str, float] = defaultdict(float)
    for (lang, _source), tokens in available.items():
        per_language[lang] += tokens
    wanted = spec.languages or tuple(sorted(spec.weights)) or tuple(sorted(per_language))
    missing = [lang for lang in wanted if per_language.get(lang, 0) <= 0]
    if missing:
        raise MixSpecError(
            f"mix {spec.name}: no clean data for language(s) {', '.join(missing)}; "
            "remove them from the mix or ingest data for them"
        )
    pool = {lang: per_language[lang] for lang in wanted}
    if spec.strategy == "temperature":
        assert spec.alpha is not None
        targets = weights.shares_to_tokens(weights.temperature(pool, spec.alpha), spec.token_budget)
    elif spec.strategy == "unimax":
        assert spec.max_epochs is not None
        targets = weights.unimax(pool, spec.token_budget, spec.max_epochs)
    else:
        targets = weights.shares_to_tokens(spec.weights, spec.token_budget)
    target_total = sum(targets.values())

    rates: dict[tuple[str, str], float] = {}
    for lang in wanted:
        weighted = {
            source: tokens * spec.sources.get(source, _UNLISTED).weight
            for (language, source), tokens in available.items()
            if language == lang
        }
        scale = targets[lang] / sum(weighted.values()) if sum(weighted.values()) > 0 else 0.0
        for source in weighted:
            rates[(lang, source)] = scale * spec.sources.get(source, _UNLISTED).weight

    notes: dict[str, str] = {}
    for source, rule in spec.sources.items():  # caps scale a source down everywhere
        if rule.max_tokens is None:
            continue
        sampled = sum(rates[k] * available[k] for k in rates if k[1] == source)
        if sampled > rule.max_tokens:
            factor = rule.max_tokens / sampled
            for key in [k for k in rates if k[1] == source]:
                rates[key] *= factor
                notes[key[0]] = f"source {source} capped at {rule.max_tokens:,} tokens"

    sampled_by_language = {
        lang: sum(rates[k] * available[k] for k in rates if k[0] == lang) for lang in wanted
    }
    sampled_total = sum(sampled_by_language.values()) or 1.0
    plans = [
        LanguagePlan(
            language=lang,
            available_tokens=pool[lang],
            target_share=targets[lang] / target_total if target_total else 0.0,
            feasible_share=sampled_by_language[lang] / sampled_total,
            sampled_tokens=sampled_by_language[lang],
            epochs=sampled_by_language[lang] / pool[lang],
            note=notes.get(lang, ""),
        )
        for lang in sorted(wanted, key=lambda lang: (-round(sampled_by_language[lang], 6), lang))
    ]
    plan = MixPlan(spec=spec, languages=plans, rates=rates)
    check_schedule(plan, available, group_tokens)
    return plan


def sampled_by_group(
    plan: MixPlan, available: Mapping[tuple[str, str], float], by: str
) -> dict[str, float]:
    """Tokens the plan samples per language (``by="language"``) or per source (``source_id``)."""
    index = {"language": 0, "source_id": 1}[by]
    out: dict[str, float] = defaultdict(float)
    for key, rate in plan.rates.items():
        out[key[index]] += rate * available[key]
    return dict(out)


def check_schedule(
    plan: MixPlan,
    available: Mapping[tuple[str, str], float],
    group_tokens: Mapping[str, float] | None,
) -> None:
    """Check a dynamic mix's schedule against what each group holds (see ``make_plan``)."""
    spec = plan.spec
    if spec.schedule is None or spec.groups is None:
        return
    if spec.groups.by in ("language", "source_id"):
        tokens = sampled_by_group(plan, available, spec.groups.by)
    elif group_tokens is None:
        raise MixSpecError(
            f"mix {spec.name}: groups by {spec.groups.by!r}: pass the tokens per group "
            "(lakehouse.column_tokens) to check its schedule"
        )
    else:
        tokens = dict(group_tokens)
    try:
        check_against_groups(spec.schedule, spec.groups, tokens, spec.token_budget, spec.name)
    except ScheduleError as exc:
        raise MixSpecError(f"mix {exc}") from None
