"""Language shares of a mix: temperature, UniMax or explicit weights (../shared/REFERENCE.md)."""

from __future__ import annotations

from collections.abc import Mapping


def temperature(available: Mapping[str, float], alpha: float) -> dict[str, float]:
    """q_l = p_l ** alpha / sum_k p_k ** alpha with p_l = n_l / sum(n) (XLM-R, mT5: alpha 0.3)."""
    total = sum(available.values())
    powered = {lang: (n / total) ** alpha for lang, n in available.items() if n > 0}
    norm = sum(powered.values())
    return {lang: value / norm for lang, value in powered.items()}


def unimax(available: Mapping[str, float], budget: float, max_epochs: float) -> dict[str, float]:
    """Tokens per language by UniMax (Chung et al., 2023).

    Languages in ascending order of size each get ``min(remaining budget / remaining
    languages, max_epochs * size)``: the head shares the budget equally, the tail is capped at
    ``max_epochs`` passes. The tokens sum to less than ``budget`` when every language is capped.
    """
    tokens: dict[str, float] = {}
    remaining = float(budget)
    ordered = sorted((n, lang) for lang, n in available.items() if n > 0)
    for index, (size, lang) in enumerate(ordered):
        share = min(remaining / (len(ordered) - index), max_epochs * size)
        tokens[lang] = share
        remaining -= share
    return tokens


def shares_to_tokens(shares: Mapping[str, float], budget: float) -> dict[str, float]:
    """Target tokens per language from shares that sum to 1."""
    return {lang: share * budget for lang, share in shares.items()}
