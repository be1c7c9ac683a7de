"""``lakemix compare``: two tracked runs side by side, and what differs in the data they read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lakemix.settings import Settings
from lakemix.tracking.runs import ReleaseProblem, TrackedRun, get_run, release_problem

# Params that differ between any two runs and say nothing about them.
IGNORED_PARAMS = ("release.tag", "release.checksum")


@dataclass(frozen=True)
class Comparison:
    """Runs ``a`` and ``b``: their metrics, the params that differ, and their data.

    Attributes:
        metrics: ``(name, a, b)`` of every metric either run logged (None where missing).
        params: ``(name, a, b)`` of the params that differ.
        data: ``lakemix diff`` rows from a's release to b's (empty when the same release).
        problem: Why the data difference cannot be explained (a release gone), or None.
    """

    a: TrackedRun
    b: TrackedRun
    metrics: list[tuple[str, float | None, float | None]]
    params: list[tuple[str, str | None, str | None]]
    data: list[dict[str, Any]]
    problem: ReleaseProblem | None

    @property
    def same_data(self) -> bool:
        """Both runs read the same release (same checksum)."""
        return self.a.checksum == self.b.checksum


def compare(
    ref_a: str, ref_b: str, *, uri: str | None = None, settings: Settings | None = None
) -> Comparison:
    """Compare tracked runs ``ref_a`` and ``ref_b`` (``mlflow:ID`` or ``ID``).

    Raises:
        TrackingError: No tracking server, an unknown run or one lakemix did not track.
    """
    from lakemix.versions.diff import diff

    settings = settings or Settings.from_env()
    a, b = get_run(ref_a, uri=uri), get_run(ref_b, uri=uri)
    metrics = [(k, a.metrics.get(k), b.metrics.get(k)) for k in sorted({*a.metrics, *b.metrics})]
    params = [
        (k, a.params.get(k), b.params.get(k))
        for k in sorted({*a.params, *b.params})
        if a.params.get(k) != b.params.get(k) and k not in IGNORED_PARAMS
    ]
    problems = [
        release_problem(run.release, run.checksum, settings, where=run.lakehouse) for run in (a, b)
    ]
    problem = next((p for p in problems if p is not None), None)
    data: list[dict[str, Any]] = []
    if problem is None and a.checksum != b.checksum:
        data = list(diff(a.release, b.release, settings=settings))
    return Comparison(a, b, metrics, params, data, problem)
