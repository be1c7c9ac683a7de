from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lakemix.mix import MixSpecError, load, make_plan, parse

BASE: dict[str, Any] = {
    "name": "m",
    "token_budget": 1000,
    "strategy": {"kind": "temperature", "alpha": 0.3},
    "seed": 1,
}


def spec(**changes: Any) -> Any:
    return parse({**BASE, **changes}, "mixes/m.yml")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, "colour: unknown field"),
        ({"name": "Bad Name"}, "name: must be lower-case"),
        ({"token_budget": -5}, "token_budget: must be a positive"),
        ({"strategy": {"kind": "magic"}}, "strategy.kind: must be one of"),
        ({"strategy": {"kind": "temperature", "alpha": 3}}, "strategy.alpha: must be [0.0, 1.0]"),
        (
            {"strategy": {"kind": "unimax", "alpha": 0.3}},
            "strategy.alpha: not a setting of the unimax",
        ),
        (
            {"strategy": {"kind": "explicit", "weights": {"en": -1}}},
            "strategy.weights.en: must be >= 0",
        ),
        (
            {"strategy": {"kind": "explicit", "weights": {"en": 0}}},
            "strategy.weights: must sum to a positive",
        ),
        ({"languages": ["en", "xx_bad"]}, "languages: 'xx_bad' is not an ISO 639 code"),
        ({"sources": {"web": {"weight": -2}}}, "sources.web.weight: must be >= 0"),
        ({"validation_fraction": 0.9}, "validation_fraction: must be [0.0, 0.5]"),
        ({"tokenizer": "gpt2"}, "tokenizer: must be one of"),
        ({"min_quality": {"perplexity": 3}}, "min_quality: supports language_score, quality_score"),
        ({"min_quality": {"quality_score": 1.5}}, "min_quality.quality_score: must be [0.0, 1.0]"),
        (
            {"min_quality": {"quality_top_fraction": 0}},
            "min_quality.quality_top_fraction: must be [1e-09, 1.0]",
        ),
        (
            {"min_quality": {"quality_score": 0.5, "quality_top_fraction": 0.1}},
            "min_quality: give quality_score (a threshold) or quality_top_fraction",
        ),
    ],
)
def test_bad_mix_files_name_the_field(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(MixSpecError, match=re.escape(f"mixes/m.yml: {message}")):
        spec(**changes)


def test_quality_selection_is_parsed() -> None:
    assert spec(min_quality={"quality_score": 0.7}).min_quality_score == 0.7
    top = spec(min_quality={"quality_top_fraction": 0.1, "language_score": 0.8})
    assert (top.quality_top_fraction, top.min_language_score, top.min_quality_score) == (
        0.1,
        0.8,
        None,
    )


def test_unknown_mix_lists_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text("name: a\n")
    with pytest.raises(MixSpecError, match=r"no mix named 'b'.*known mixes: a"):
        load("b", tmp_path)


def test_project_mixes_are_valid() -> None:
    root = Path(__file__).resolve().parents[4] / "mixes"
    for path in root.glob("*.yml"):
        assert load(path.stem, root).name == path.stem


AVAILABLE = {("en", "web"): 9_000.0, ("en", "news"): 1_000.0, ("sw", "web"): 100.0}


def test_plan_realizes_temperature_shares() -> None:
    plan = make_plan(spec(), AVAILABLE)
    by_lang = {p.language: p for p in plan.languages}
    assert sum(p.target_share for p in plan.languages) == pytest.approx(1)
    for p in plan.languages:
        assert p.feasible_share == pytest.approx(p.target_share)
        assert p.sampled_tokens == pytest.approx(p.target_share * 1000)
    assert by_lang["sw"].epochs > 1  # the tail is upsampled
    # within a language, sources get the same rate unless weighted
    assert plan.rates[("en", "web")] == pytest.approx(plan.rates[("en", "news")])


def test_source_weights_and_caps() -> None:
    weighted = make_plan(spec(sources={"news": {"weight": 3}}), AVAILABLE)
    assert weighted.rates[("en", "news")] == pytest.approx(3 * weighted.rates[("en", "web")])
    capped = make_plan(spec(sources={"web": {"max_tokens": 50}}), AVAILABLE)
    web = sum(capped.rates[k] * AVAILABLE[k] for k in capped.rates if k[1] == "web")
    assert web == pytest.approx(50)
    assert any("capped" in p.note for p in capped.languages)
    assert sum(p.feasible_share for p in capped.languages) == pytest.approx(1)


def test_language_without_data_is_an_error() -> None:
    with pytest.raises(MixSpecError, match=r"no clean data for language.*fr"):
        make_plan(spec(languages=["en", "fr"]), AVAILABLE)


def test_unimax_plan_respects_epochs() -> None:
    plan = make_plan(spec(strategy={"kind": "unimax", "max_epochs": 2}), AVAILABLE)
    assert all(p.epochs <= 2 + 1e-9 for p in plan.languages)
