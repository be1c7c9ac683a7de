"""The release gate: the project's quality objectives, measured on what is about to be released.

An objective of severity ``error`` that does not hold refuses the release; ``warn`` is only
recorded. Manual validation (accuracy) can be overridden with a reason, which the manifest keeps.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from lakemix.errors import LakemixError
from lakemix.objectives.config import Objectives
from lakemix.objectives.evaluate import ObjectiveResult, accuracy, evaluate
from lakemix.versions.refs import connect_at

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakemix.objectives.validation import Validation
    from lakemix.settings import Settings


class ObjectivesNotMetError(LakemixError, RuntimeError):
    """An objective of severity error does not hold: the release is refused."""


def _review_hint(mix: str, tag: str, found: Validation, result: ObjectiveResult) -> str:
    unreviewed = found.documents - found.reviewed
    command = f"lakemix review sample --mix {shlex.quote(mix)} --n {found.needed}"
    if found.needed > unreviewed:
        way = (
            f"even {unreviewed:,} more good verdicts (every unreviewed document of the mix) "
            f"cannot reach {result.target}: the mix is too small for this confidence, or too "
            "many documents were found bad (fix the filters and rebuild)"
        )
    else:
        way = (
            f"review {found.needed:,} more of its documents ({command}, then lakemix review "
            "label --csv FILE), then release again"
        )
    return (
        f"manual validation of mix {mix} does not reach {result.target}: {result.detail}. "
        f"To release {tag}: {way}; or release with --accept-unvalidated REASON"
    )


def check(
    *,
    settings: Settings,
    catalog: Catalog,
    objectives: Objectives,
    mix: str,
    tag: str,
    accept_unvalidated: str | None,
) -> dict[str, Any]:
    """Measure the objectives now; the manifest's ``objectives`` part.

    ``accepted_unvalidated`` in it is the reason given, when the accuracy objective does not
    hold (the release goes out unvalidated), else None; ``verdicts_needed`` how many more good
    verdicts the accuracy objective needs (0 when it holds or is not declared).

    Raises:
        ObjectivesNotMetError: A completeness or consistency objective of severity error fails
            (the message names the column, or the source and field), or the accuracy objective
            fails without ``accept_unvalidated`` (it says how many documents to review, and the
            command drawing them).
    """
    if accept_unvalidated is not None and not accept_unvalidated.strip():
        raise ObjectivesNotMetError("--accept-unvalidated needs a reason, got an empty one")
    conn = connect_at(None, settings=settings, catalog=catalog)
    try:
        results = evaluate(conn, objectives)
        measured = accuracy(conn, objectives, mix=mix)
    finally:
        conn.close()
    blocking = [r for r in results if r.severity == "error" and not r.passed]
    if blocking:
        lines = "\n".join(f"  {r.objective} {r.name} ({r.target}): {r.detail}" for r in blocking)
        raise ObjectivesNotMetError(
            f"release {tag} refused: {len(blocking)} quality objective(s) not met\n{lines}\n"
            "fix the data or the objective (var lakemix_quality_objectives in dbt_project.yml), "
            "or set its severity to warn"
        )
    used = None  # the reason is kept only when the mix goes out without its validation
    needed = 0
    if measured is not None:
        result, found = measured
        results.append(result)
        if not result.passed:
            if result.severity == "error" and accept_unvalidated is None:
                raise ObjectivesNotMetError(_review_hint(mix, tag, found, result))
            used, needed = accept_unvalidated, found.needed
    return {
        "declared": objectives.declared,
        "results": [r.as_dict() for r in results],
        "accepted_unvalidated": used,
        "verdicts_needed": needed,
    }
