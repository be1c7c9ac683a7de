"""Plan a mix: target tokens per language and the sampling rate of each (language, source)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from lakemix.mix import weights
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


def make_plan(spec: MixSpec, available: Mapping[tuple[str, str], float]) -> MixPlan:
    """Plan ``spec`` over available tokens per (language, source).

    Raises:
        MixSpecError: the mix names a language (or weights one) that has no data.
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
    return MixPlan(spec=spec, languages=plans, rates=rates)
