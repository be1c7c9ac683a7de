"""What ``lakemix calibrate`` prints: the rules on the reference, and what --write changed."""

from __future__ import annotations

from lakemix.quality.calibrate import Calibration
from lakemix.quality.calibrated_seed import Change, number


def _share(x: float) -> str:
    return f"{x:.1%}"


def format_calibration(c: Calibration) -> str:
    """The table of rules (threshold now, its rejections, proposal, its rejections) and totals."""
    allowed = int(c.percentile / 100 * c.documents)
    lines = [
        f"{c.language} ({c.language_name}): {c.documents:,} reference documents from {c.reference}",
        f"percentile {c.percentile:g}: a proposal rejects at most {allowed} of them; proposals"
        " only relax (>= rules down, <= rules up)",
    ]
    if allowed == 0:
        lines.append(
            f"  (under {100 / c.percentile:.0f} documents: each proposal is the reference's most"
            " extreme value, so one unusual document sets it; a larger reference is steadier)"
        )
    if c.not_read:
        names = ", ".join(p.name for p in c.not_read[:5])
        lines.append(f"not read ({len(c.not_read)} files of other kinds): {names}")
    lines += [
        "",
        f"{'rule':<45}{'op':<3}{'threshold':>10} {'from':<5}{'rejects':>8}"
        f"{'seeded':>9}{'proposed':>10}{'rejects':>8}",
    ]
    for r in c.rules:
        seeded = number(r.calibrated) if r.calibrated is not None else "-"
        proposed = number(r.proposed) if r.is_relaxed else "="
        note = "" if r.is_enabled else "  (family off)"
        lines.append(
            f"{r.rule.rule:<45}{r.rule.operator:<3}{number(r.rule.threshold):>10}"
            f" {r.rule.source:<5}{_share(r.rejected_share):>8}{seeded:>9}{proposed:>10}"
            f"{_share(r.proposed_rejected_share):>8}{note}"
        )
    relaxed = sum(r.is_relaxed for r in c.rules)
    calibrated = sum(r.calibrated is not None for r in c.rules)
    now = ""
    if calibrated:
        now = f", {_share(c.calibrated_kept_share)} with the seed's {calibrated} calibrated ones"
    lines += [
        "",
        f"kept by every rule of the families on in dbt_project.yml: {_share(c.kept_share)} with"
        f" the configured thresholds{now}, {_share(c.proposed_kept_share)} with the"
        f" {relaxed} proposals",
    ]
    score = (
        f", {_share(c.language_score_share)} also reach min_language_score"
        f" {number(c.language_score_threshold)}"
        if c.language_score_threshold is not None
        else ""
    )
    lines.append(
        f"language: lid.176 identifies {_share(c.identified_share)} as {c.language}{score}"
        " (not calibrated: the model's confidence is not a property of the text)"
    )
    return "\n".join(lines)


def format_changes(c: Calibration, changes: list[Change]) -> str:
    """What ``--write`` changed in seeds/calibrated_thresholds.csv, and what to run next."""
    if not changes:
        return f"{c.seed_path}: no change for {c.language}"
    lines = [f"{c.seed_path}: {len(changes)} thresholds of {c.language} changed"]
    for change in changes:
        was = number(change.before) if change.before is not None else "-"
        now = number(change.after) if change.after is not None else "- (row removed)"
        lines.append(f"  {change.rule}: {was} -> {now}")
    lines.append(
        "review the rows, then: dbt seed && dbt build (or dbt build --select"
        " calibrated_thresholds+): only the filtering and what depends on it re-run, signals"
        " are not recomputed"
    )
    return "\n".join(lines)
