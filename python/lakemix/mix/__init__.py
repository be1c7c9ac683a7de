"""Training mixes: definitions (mixes/*.yml), language weights, plans, and their materialization."""

from __future__ import annotations

from lakemix.mix.plan import LanguagePlan, MixPlan, make_plan
from lakemix.mix.spec import MixSpec, MixSpecError, load, parse

__all__ = ["LanguagePlan", "MixPlan", "MixSpec", "MixSpecError", "load", "make_plan", "parse"]
