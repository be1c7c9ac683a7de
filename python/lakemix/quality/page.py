"""The report as one self-contained HTML page (inline SVG and CSS, nothing loaded)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from html import escape
from typing import Any

import orjson

from lakemix.objectives.evaluate import outcome, summary
from lakemix.quality import svg
from lakemix.quality.data import ReportData
from lakemix.tables import BUILD_STATS, RULE_REJECTIONS

DATA_ELEMENT_ID = "lakemix-report-data"
TOP_LANGUAGES = 25
CSS = """
body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px}
td.n{text-align:right}.grid{display:flex;flex-wrap:wrap;gap:1em}.grid div{flex:0 0 auto}
h3{margin:.3em 0;font-size:1em}.warn{color:#a60}.fail{color:#c00}
"""


class Markup(str):
    """A cell already rendered as HTML (an inline chart): not escaped."""

    __slots__ = ()


def _cell(value: object) -> str:
    if isinstance(value, Markup):
        return f"<td>{value}</td>"
    if isinstance(value, bool) or value is None:
        return f"<td>{escape(str(value))}</td>"
    if isinstance(value, int):
        return f'<td class="n">{value:,}</td>'
    if isinstance(value, float):
        return f'<td class="n">{value:.4f}</td>'
    return f"<td>{escape(str(value))}</td>"


def html_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _trend(history: list[dict[str, Any]], builds: list[dict[str, Any]]) -> str:
    """A sparkline of the last ten builds' values and one of the releases', each with its last
    value; every value in the chart's tooltip. '-' when neither measured anything."""
    parts = []
    for label, points in (
        ("builds", [("", b["measured"]) for b in builds[-10:]]),
        ("releases", [(h["tag"], h["measured"]) for h in history]),
    ):
        values = [v for _, v in points]
        if not any(v is not None for v in values):
            continue
        tip = ", ".join(
            f"{name + ' ' if name else ''}{'-' if v is None else format(v, '.4g')}"
            for name, v in points
        )
        last = next(v for v in reversed(values) if v is not None)
        parts.append(
            f"{label} {svg.sparkline(values, title=f'{label}: {tip}')} {format(last, '.4g')}"
        )
    return Markup("<br>".join(parts)) if parts else "-"


def _objectives(data: ReportData) -> str:
    if not data.objectives:
        return (
            "<p>No objective declared (var lakemix_quality_objectives in dbt_project.yml, "
            "docs/quality.md#objectives).</p>"
        )
    rows = [
        (
            o["objective"],
            o["name"],
            o["target"],
            o["measured"],
            outcome(o),
            _trend(o["trend"], o.get("build_trend", [])),
            o["detail"],
        )
        for o in data.objectives
    ]
    note = (
        f"<p>{len(rows)} objectives: {escape(summary(data.objectives))}. A 'not measured' "
        "objective had nothing to measure (it neither passes nor blocks). Trend, oldest first: "
        "the value each "
        "release recorded, and the value of each of the last ten builds that measured it "
        f"({BUILD_STATS}; accuracy once verdicts exist; '-' not measured).</p>"
    )
    return note + html_table(
        ("objective", "name", "target", "measured", "result", "trend", "detail"), rows
    )


def _summary(data: ReportData) -> str:
    return html_table(
        ("stage", "documents"), [(k.replace("_", " "), v) for k, v in data.summary.items()]
    )


def _languages(data: ReportData) -> str:
    top = data.languages[:TOP_LANGUAGES]
    chart = svg.bar_chart(
        [r["language"] for r in top],
        {
            "raw": [r["raw_document_count"] for r in top],
            "clean": [r["clean_document_count"] for r in top],
        },
        value_label="documents",
    )
    table = html_table(
        (
            "language",
            "raw",
            "rejected by rules",
            "duplicates",
            "clean",
            "clean tokens",
            "thresholds",
        ),
        [
            (
                r["language"],
                r["raw_document_count"],
                r["rejected_by_rules_count"],
                r["removed_duplicate_count"],
                r["clean_document_count"],
                r["clean_token_count"],
                r.get("fineweb2_config") or r.get("threshold_source", "-"),
            )
            for r in data.languages
        ],
    )
    fallbacks = [r for r in data.languages if r.get("threshold_source") in ("script", "global")]
    listed = ", ".join(
        f"{r['language']} ({r['threshold_source']}, {r['raw_document_count']} documents)"
        for r in fallbacks
    )
    note = (
        f"<p>Languages on fallback thresholds (their script's, or the global '*' rows): "
        f"{escape(listed) or 'none'}.</p>"
        if data.languages and "threshold_source" in data.languages[0]
        else ""
    )
    return (
        f"{chart}{note}<details><summary>all {len(data.languages)} languages</summary>"
        f"{table}</details>"
    )


def _rejections(data: ReportData) -> str:
    rules = [r["rule"] for r in data.rule_rejections]
    if not rules:
        return (
            "<p>No rule rejected a document, or this release was built before lakemix kept "
            f"the rejections per rule and language ({RULE_REJECTIONS}).</p>"
        )
    chart = svg.bar_chart(
        rules, {"documents": [r["documents"] for r in data.rule_rejections]}, value_label="docs"
    )
    languages = [r["language"] for r in data.languages[:12]]
    cells = {(r["rule"], r["language"]): r for r in data.rule_language_rejections}
    rows = [
        (
            rule,
            *(_share(cells[rule, lang]) if (rule, lang) in cells else "" for lang in languages),
        )
        for rule in rules
    ]
    table = html_table(("rule", *languages), rows)
    note = (
        "<p>Documents failing each rule (a document can fail several), and per language "
        "(share of the language's documents):</p>"
    )
    return chart + note + table


def _share(cell: dict[str, Any]) -> str:
    return f"{cell['documents']} ({100 * cell['rejection_rate']:.0f}%)"


def _signals(data: ReportData) -> str:
    figures = []
    for s in data.signals:
        chart = svg.histogram(
            s["edges"], {"kept": s["kept"], "rejected": s["rejected"]}, thresholds=s["thresholds"]
        )
        limits = ", ".join(f"{t:g}" for t in s["thresholds"]) or "none"
        figures.append(
            f"<div><h3>{escape(s['signal'])}</h3>{chart}<br><small>{s['documents']:,} documents; "
            f"default thresholds: {escape(limits)} (dashed)</small></div>"
        )
    return '<div class="grid">' + "".join(figures) + "</div>"


SCORE_LANGUAGES = 12  # small multiples drawn; the page's JSON holds every language


def _scores(data: ReportData) -> str:
    if not data.scores:
        return "<p>No quality scores (a lakehouse built before the quality model).</p>"
    edges = [i / len(data.scores[0]["kept"]) for i in range(len(data.scores[0]["kept"]) + 1)]
    figures = []
    for s in data.scores[:SCORE_LANGUAGES]:
        limit = [s["threshold"]] if s["threshold"] is not None else []
        chart = svg.histogram(
            edges, {"kept": s["kept"], "rejected": s["rejected"]}, thresholds=limit
        )
        kept = sum(s["kept"])
        figures.append(
            f"<div><h3>{escape(s['language'])}</h3>{chart}<br><small>{s['documents']:,} "
            f"documents, {kept:,} kept; model threshold "
            f"{escape(', '.join(f'{t:g}' for t in limit) or 'none')} (dashed)</small></div>"
        )
    more = len(data.scores) - SCORE_LANGUAGES
    tail = f"<p>{more} more languages in the page's data.</p>" if more > 0 else ""
    return '<div class="grid">' + "".join(figures) + "</div>" + tail


def _learning(data: ReportData) -> str:
    if not data.trainings:
        return (
            "<p>No model trained in this lakehouse yet (`lakemix quality train`): the builds "
            "score with the model the var lakemix_quality_model names.</p>"
        )
    rows = data.trainings
    chart = svg.line_chart(
        [(float(r["fitted_documents"]), float(r["accuracy"])) for r in rows],
        x_label="labelled documents fit on",
        y_label="held-out accuracy",
    )
    cells = [
        (
            r["trained_at"],
            r["sha256"],
            r["fitted_documents"],
            f"{r['held_out_documents']:,} ({r['held_out_by']})",
            f"{r['accuracy']:.3f}",
            f"{r['precision']:.3f}",
            f"{r['recall']:.3f}",
        )
        for r in rows
    ]
    header = ("trained", "model", "labels", "held out", "accuracy", "precision", "recall")
    return chart + html_table(header, cells)


def _clusters(data: ReportData) -> str:
    if not data.duplicate_clusters:
        return "<p>No duplicate clusters.</p>"
    rows = data.duplicate_clusters
    chart = svg.bar_chart(
        [str(r["cluster_size"]) for r in rows],
        {"clusters": [r["clusters"] for r in rows]},
        value_label="clusters",
    )
    return chart + html_table(
        ("cluster size", "clusters"), [(r["cluster_size"], r["clusters"]) for r in rows]
    )


def _mixes(data: ReportData) -> str:
    if not data.mixes:
        return "<p>No mix built.</p>"
    parts = []
    for name, rows in data.mixes.items():
        top = rows[:TOP_LANGUAGES]
        chart = svg.bar_chart(
            [r["language"] for r in top],
            {
                "target": [r["target_share"] for r in top],
                "realized": [r["realized_share"] for r in top],
            },
            value_label="share",
        )
        table = html_table(
            ("language", "target share", "realized share"),
            [(r["language"], r["target_share"], r["realized_share"]) for r in rows],
        )
        parts.append(
            f"<h3>mix {escape(name)}</h3>{chart}<details><summary>all {len(rows)} "
            f"languages</summary>{table}</details>"
        )
    return "".join(parts)


def _tests(data: ReportData) -> str:
    if not data.tests:
        return f"<p>No build statistics yet ({BUILD_STATS} is written by every dbt build).</p>"
    counts = ", ".join(f"{k}: {v}" for k, v in data.tests["counts"].items())
    head = (
        f"<p>Last dbt build {escape(data.tests['invocation_id'])} at "
        f"{escape(data.tests['recorded_at'])}: {escape(counts)}. Below, every test whose latest "
        "recorded status is not pass (warnings do not block a release; failures and errors do)."
        "</p>"
    )
    rows = [
        (t["test"], t["status"], t["failures"], t["recorded_at"]) for t in data.tests["not_passed"]
    ]
    if not rows:
        return head + "<p>Every test passed when it last ran.</p>"
    return head + html_table(("test", "status", "failing rows", "build"), rows)


def _precision(data: ReportData) -> str:
    if not data.precision:
        return "<p>No reviewer verdicts yet (lakemix review sample, then lakemix review label).</p>"
    rows = [(p["rule"], p["reviewed"], p["agreed"], p["precision"]) for p in data.precision]
    note = (
        "<p>Of the reviewed documents each filter rejected, the share reviewers call bad; for "
        "kept documents, the share they call good.</p>"
    )
    agreed = data.agreement
    if agreed:
        note += (
            f"<p>Reviewer agreement: {agreed['agreeing']:,} of {agreed['documents']:,} documents "
            f"judged by two or more reviewers got the same verdict from all "
            f"({agreed['share']:.1%}).</p>"
        )
    return note + html_table(("filter", "reviewed", "reviewer agreed", "precision"), rows)


def render(data: ReportData) -> str:
    """The HTML page for ``data``."""
    payload = orjson.dumps(asdict(data)).decode().replace("</", "<\\/")
    sections = (
        ("Quality objectives", _objectives(data)),
        ("Summary", _summary(data)),
        ("Languages before and after cleaning", _languages(data)),
        ("Rejections by rule and language", _rejections(data)),
        ("Quality signals and their thresholds", _signals(data)),
        ("Quality model scores by language", _scores(data)),
        ("Quality model: labels against held-out accuracy", _learning(data)),
        ("Duplicate cluster sizes", _clusters(data)),
        ("Target and realized mix shares", _mixes(data)),
        ("Tests (warnings and failures)", _tests(data)),
        ("Filter precision against reviewer verdicts", _precision(data)),
    )
    body = "".join(f"<h2>{escape(title)}</h2>{content}" for title, content in sections)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>lakemix quality report ({escape(data.version)})</title><style>{CSS}</style>"
        f"</head><body><h1>lakemix quality report: {escape(data.version)}</h1>{body}"
        f'<script type="application/json" id="{DATA_ELEMENT_ID}">{payload}</script>'
        "</body></html>\n"
    )
