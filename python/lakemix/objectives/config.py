"""Data-quality objectives, declared once in `dbt_project.yml` (var `lakemix_quality_objectives`).

Three kinds, each with a threshold and a severity (``error`` blocks ``lakemix release``, ``warn``
is only measured and recorded):

- completeness: the share of nulls of each listed mart column, at most ``max_missing_fraction``
  (default 0.5%);
- consistency: for each listed field, each source's value against all sources of the same
  language, at most ``max_deviation`` apart (default 1%; docs/quality.md defines the measure);
- accuracy: the Wilson lower bound on the share of kept documents of the mix that reviewers
  call good, at or above ``min_good_share`` (default 98%) at ``confidence`` (default 95%).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from lakemix.errors import LakemixError

VAR = "lakemix_quality_objectives"
DEFAULT_MAX_MISSING = 0.005
DEFAULT_MAX_DEVIATION = 0.01
DEFAULT_MIN_GOOD_SHARE = 0.98
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MIN_DOCUMENTS = 30
SEVERITIES = ("error", "warn")
Kind = Literal["rate", "mean", "distribution"]
KINDS: tuple[Kind, ...] = ("rate", "mean", "distribution")
# Built-in consistency fields: per-document value (SQL over marts.fct_clean_documents, or over
# the documents that passed the rules for duplicate_rate) and how sources are compared.
BUILTIN_FIELDS: dict[str, tuple[Kind, str]] = {
    "url_share": ("rate", "url is not null and url <> ''"),
    "pii_share": (
        "rate",
        "coalesce(pii_email_count, 0) + coalesce(pii_ip_address_count, 0)"
        " + coalesce(pii_phone_number_count, 0) + coalesce(pii_credit_card_count, 0) > 0",
    ),
    "duplicate_rate": ("rate", "is_duplicate"),
    "tokens_per_character": ("mean", "token_count / nullif(character_count, 0)"),
    "language_score": ("distribution", "language_score"),
}


class ObjectiveConfigError(LakemixError, ValueError):
    """A malformed ``lakemix_quality_objectives`` block."""


@dataclass(frozen=True)
class CompletenessObjective:
    """Columns per mart model whose null share must stay at most ``max_missing_fraction``."""

    columns: dict[str, tuple[str, ...]]
    max_missing_fraction: float = DEFAULT_MAX_MISSING
    severity: str = "error"


@dataclass(frozen=True)
class ConsistencyField:
    """One field compared across sources: its kind, per-document SQL and threshold."""

    name: str
    kind: Kind
    expression: str
    max_deviation: float


@dataclass(frozen=True)
class ConsistencyObjective:
    """Fields whose per-source value may deviate at most their ``max_deviation``."""

    fields: tuple[ConsistencyField, ...]
    min_documents: int = DEFAULT_MIN_DOCUMENTS
    severity: str = "error"


@dataclass(frozen=True)
class AccuracyObjective:
    """Wilson lower bound on the good share of reviewed kept documents, at ``confidence``."""

    min_good_share: float = DEFAULT_MIN_GOOD_SHARE
    confidence: float = DEFAULT_CONFIDENCE
    severity: str = "error"


@dataclass(frozen=True)
class Objectives:
    """The declared objectives; a kind not declared is ``None`` (not measured)."""

    completeness: CompletenessObjective | None = None
    consistency: ConsistencyObjective | None = None
    accuracy: AccuracyObjective | None = None
    declared: dict[str, Any] = field(default_factory=dict)


def _where(path: str) -> str:
    return f"{VAR}.{path}"


def _mapping(value: Any, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ObjectiveConfigError(
            f"{_where(path)} must be a mapping, got {value!r}: see docs/quality.md#objectives"
        )
    return value


def _keys(block: dict[str, Any], allowed: set[str], path: str) -> None:
    unknown = sorted(set(block) - allowed)
    if unknown:
        raise ObjectiveConfigError(
            f"{_where(path)}: unknown key(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(allowed))}"
        )


def _fraction(
    block: dict[str, Any], key: str, default: float, path: str, *, below_one: bool = False
) -> float:
    value = block.get(key, default)
    upper_ok = value < 1 if below_one else value <= 1
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (value > 0 and upper_ok)
    ):
        bound = "(0, 1)" if below_one else "(0, 1]"
        raise ObjectiveConfigError(
            f"{_where(path + '.' + key)} must be a fraction in {bound} (0.01 = 1%), got {value!r}"
        )
    return float(value)


def _severity(block: dict[str, Any], path: str) -> str:
    value = block.get("severity", "error")
    if value not in SEVERITIES:
        raise ObjectiveConfigError(
            f"{_where(path + '.severity')} must be error or warn, got {value!r}"
        )
    return str(value)


def _completeness(block: dict[str, Any]) -> CompletenessObjective:
    _keys(block, {"max_missing_fraction", "columns", "severity"}, "completeness")
    columns = _mapping(block.get("columns"), "completeness.columns")
    if not columns:
        raise ObjectiveConfigError(
            f"{_where('completeness.columns')} lists no column: give mart model -> columns, "
            "e.g. {fct_clean_documents: [language, script]}"
        )
    parsed: dict[str, tuple[str, ...]] = {}
    for model, names in columns.items():
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ObjectiveConfigError(
                f"{_where('completeness.columns.' + str(model))} must be a list of column names, "
                f"got {names!r}"
            )
        parsed[str(model)] = tuple(names)
    return CompletenessObjective(
        columns=parsed,
        max_missing_fraction=_fraction(
            block, "max_missing_fraction", DEFAULT_MAX_MISSING, "completeness"
        ),
        severity=_severity(block, "completeness"),
    )


def _field(name: str, spec: Any, default: float) -> ConsistencyField:
    path = f"consistency.fields.{name}"
    spec = _mapping(spec, path)
    _keys(spec, {"max_deviation", "kind", "column"}, path)
    if "column" in spec:
        kind, column = spec.get("kind"), spec["column"]
        if kind not in KINDS or not isinstance(column, str) or not column.isidentifier():
            raise ObjectiveConfigError(
                f"{_where(path)}: a custom field needs kind ({', '.join(KINDS)}) and column "
                f"(a column of fct_clean_documents), got kind={kind!r} column={column!r}"
            )
        expression = column
    elif name in BUILTIN_FIELDS:
        if "kind" in spec:
            raise ObjectiveConfigError(f"{_where(path)}: a built-in field's kind is fixed")
        kind, expression = BUILTIN_FIELDS[name]
    else:
        raise ObjectiveConfigError(
            f"{_where(path)}: unknown field {name!r}; built-in: "
            f"{', '.join(sorted(BUILTIN_FIELDS))}, or give kind and column"
        )
    return ConsistencyField(
        name=name,
        kind=kind,
        expression=expression,
        max_deviation=_fraction(spec, "max_deviation", default, path),
    )


def _consistency(block: dict[str, Any]) -> ConsistencyObjective:
    _keys(block, {"max_deviation", "min_documents", "fields", "severity"}, "consistency")
    default = _fraction(block, "max_deviation", DEFAULT_MAX_DEVIATION, "consistency")
    fields = _mapping(block.get("fields"), "consistency.fields")
    if not fields:
        raise ObjectiveConfigError(
            f"{_where('consistency.fields')} lists no field; built-in: "
            f"{', '.join(sorted(BUILTIN_FIELDS))}"
        )
    minimum = block.get("min_documents", DEFAULT_MIN_DOCUMENTS)
    if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
        raise ObjectiveConfigError(
            f"{_where('consistency.min_documents')} must be a whole number >= 1, got {minimum!r}"
        )
    return ConsistencyObjective(
        fields=tuple(_field(str(n), s, default) for n, s in fields.items()),
        min_documents=minimum,
        severity=_severity(block, "consistency"),
    )


def _accuracy(block: dict[str, Any]) -> AccuracyObjective:
    _keys(block, {"min_good_share", "confidence", "severity"}, "accuracy")
    return AccuracyObjective(
        min_good_share=_fraction(
            block, "min_good_share", DEFAULT_MIN_GOOD_SHARE, "accuracy", below_one=True
        ),
        confidence=_fraction(block, "confidence", DEFAULT_CONFIDENCE, "accuracy", below_one=True),
        severity=_severity(block, "accuracy"),
    )


def parse_objectives(variables: dict[str, Any]) -> Objectives:
    """The objectives declared in a project's vars (none declared: nothing is measured).

    Raises:
        ObjectiveConfigError: An unknown key or field, a threshold that is not a fraction, a
            bad severity; the message names the setting.
    """
    declared = _mapping(variables.get(VAR), "")
    _keys(declared, {"completeness", "consistency", "accuracy"}, "")
    parts: dict[str, Any] = {}
    if "completeness" in declared:
        parts["completeness"] = _completeness(_mapping(declared["completeness"], "completeness"))
    if "consistency" in declared:
        parts["consistency"] = _consistency(_mapping(declared["consistency"], "consistency"))
    if "accuracy" in declared:
        parts["accuracy"] = _accuracy(_mapping(declared["accuracy"], "accuracy"))
    return Objectives(**parts, declared=declared)
