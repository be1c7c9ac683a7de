"""lakemix report: every number in the page is checked against the tables it comes from."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from click.testing import CliRunner

from lakemix import duck
from lakemix.cli import main
from lakemix.quality import write_report
from lakemix.quality.page import DATA_ELEMENT_ID
from lakemix.settings import Settings


def embedded(html: str) -> dict[str, Any]:
    match = re.search(
        f'<script type="application/json" id="{DATA_ELEMENT_ID}">(.*?)</script>', html
    )
    assert match is not None
    return orjson.loads(match.group(1).replace("<\\/", "</"))


def query(settings: Settings, sql: str) -> list[tuple[Any, ...]]:
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_report_numbers_match_the_tables(built: tuple[Settings, Path], tmp_path: Path) -> None:
    settings, _ = built
    result = write_report(tmp_path / "report.html")
    html = result.path.read_text()
    data = embedded(html)
    assert result.size_bytes == len(html.encode()) and result.seconds > 0
    # Self-contained: nothing is fetched when the page opens.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)

    s = data["summary"]
    [(raw, quarantined, clean, tokens, by_rules, duplicates)] = query(
        settings,
        "select (select count(*) from raw.documents), (select count(*) from raw.quarantine), "
        "(select count(*) from marts.fct_clean_documents), "
        "(select sum(token_count) from marts.fct_clean_documents), "
        "(select count_if(duplicate_of_document_id is null) from marts.fct_document_rejections), "
        "(select count_if(duplicate_of_document_id is not null) "
        "from marts.fct_document_rejections)",
    )
    assert (s["raw_documents"], s["quarantined_records"], s["clean_documents"]) == (
        raw,
        quarantined,
        clean,
    )
    assert (s["clean_tokens"], s["rejected_by_rules"], s["removed_duplicates"]) == (
        tokens,
        by_rules,
        duplicates,
    )
    assert raw == clean + by_rules + duplicates > clean > 0
    for stage, count in s.items():  # shown in the summary table
        assert f'<td>{stage.replace("_", " ")}</td><td class="n">{count:,}</td>' in html

    clean_per_language = dict(
        query(settings, "select language, count(*) from marts.fct_clean_documents group by 1")
    )
    assert sum(r["raw_document_count"] for r in data["languages"]) == raw
    assert {
        r["language"]: r["clean_document_count"]
        for r in data["languages"]
        if r["clean_document_count"]
    } == clean_per_language
    # where each language's thresholds come from, and which run on fallbacks
    sources = {r["language"]: r["threshold_source"] for r in data["languages"]}
    assert sources.get("en", "fineweb") == "fineweb" and "fineweb2" in sources.values()
    fallbacks = [lang for lang, source in sources.items() if source in ("script", "global")]
    assert "Languages on fallback thresholds" in html
    for language in fallbacks:
        assert f"{language} ({sources[language]}," in html

    for row in data["rule_rejections"]:
        [(count,)] = query(
            settings,
            "select count(*) from marts.fct_document_rejections "
            f"where list_contains(failed_rule_names, '{row['rule']}')",
        )
        assert row["documents"] == count
    per_rule: dict[str, int] = {}
    for row in data["rule_language_rejections"]:
        per_rule[row["rule"]] = per_rule.get(row["rule"], 0) + row["documents"]
        assert row["rejection_rate"] == row["documents"] / row["language_documents"]
    assert per_rule == {r["rule"]: r["documents"] for r in data["rule_rejections"]}

    # The model's scores per language: every scored document once, in bin floor(score * 20).
    scored = query(
        settings,
        "select l.language, s.quality_score, f.is_kept "
        "from intermediate.int_documents_quality_scored s "
        "join intermediate.int_documents_quality_filtered f using (document_id) "
        "join intermediate.int_documents_language_scored l using (document_id)",
    )
    assert data["scores"] and "Quality model scores by language" in html
    assert sum(e["documents"] for e in data["scores"]) == len(scored)
    for entry in data["scores"][:3]:
        mine = [(float(v), kept) for lang, v, kept in scored if lang == entry["language"]]
        for which, flag in (("kept", True), ("rejected", False)):
            expected = [0] * 20
            for value in (v for v, k in mine if k is flag):
                expected[min(int(value * 20), 19)] += 1
            assert entry[which] == expected, (entry["language"], which)
        assert entry["threshold"] == 0.5  # the seed's model_min_quality_score ('*')

    thresholds = dict(
        query(
            settings,
            "select signal, list(distinct threshold order by threshold) "
            "from seeds.quality_thresholds where language = '*' group by 1",
        )
    )
    for h in data["signals"]:
        signal = h["signal"]
        source = "l" if signal == "language_score" else "s"
        [(kept, rejected)] = query(
            settings,
            f"select count_if(f.is_kept and {source}.{signal} is not null), "
            f"count_if(not f.is_kept and {source}.{signal} is not null) "
            "from intermediate.int_documents_quality_scored s "
            "join intermediate.int_documents_quality_filtered f using (document_id) "
            "join intermediate.int_documents_language_scored l using (document_id)",
        )
        assert (sum(h["kept"]), sum(h["rejected"])) == (kept, rejected), signal
        assert h["thresholds"] == thresholds.get(signal, []), signal
        assert len(h["edges"]) == len(h["kept"]) + 1
        # the mart's bins are numpy's: over the 1st..99th percentile and the thresholds near it
        values = query(
            settings,
            f"select {source}.{signal}, f.is_kept "
            "from intermediate.int_documents_quality_scored s "
            "join intermediate.int_documents_quality_filtered f using (document_id) "
            "join intermediate.int_documents_language_scored l using (document_id) "
            f"where {source}.{signal} is not null",
        )
        measured = np.array([float(v) for v, _ in values])
        kept_mask = np.array([bool(k) for _, k in values])
        lo, hi = np.percentile(measured, [1, 99])
        near = [t for t in thresholds.get(signal, []) if t <= 10 * max(abs(hi), 1.0)]
        lo, hi = min([lo, *near]), max([hi, *near])
        hi = hi if hi > lo else lo + 1.0
        edges = np.linspace(lo, hi, len(h["kept"]) + 1)
        assert h["edges"] == pytest.approx(edges.round(6).tolist(), abs=1e-5), signal
        clipped = np.clip(measured, lo, hi)
        assert h["kept"] == np.histogram(clipped[kept_mask], bins=edges)[0].tolist(), signal
        assert h["rejected"] == np.histogram(clipped[~kept_mask], bins=edges)[0].tolist(), signal

    mix = query(
        settings,
        "select language, target_share, realized_share from marts.mix_demo_unimax_languages",
    )
    shown = {
        r["language"]: (r["target_share"], r["realized_share"])
        for r in data["mixes"]["demo_unimax"]
    }
    assert shown == {language: (target, realized) for language, target, realized in mix}
    [(invocation, passed, warned)] = query(
        settings,
        "select invocation_id, sum(document_count) filter (dimension = 'pass'), "
        "sum(document_count) filter (dimension = 'warn') from meta.build_stats "
        "where metric = 'tests' group by invocation_id order by max(recorded_at) desc limit 1",
    )
    tests = data["tests"]
    assert tests["invocation_id"] == invocation and tests["counts"]["pass"] == passed > 0
    assert tests["counts"]["warn"] == warned
    latest = dict(
        query(
            settings,
            "select dimension, arg_max(note, recorded_at) from meta.build_stats "
            "where metric = 'test_status' group by 1",
        )
    )
    assert {t["test"]: t["status"] for t in tests["not_passed"]} == {
        name: status for name, status in latest.items() if status != "pass"
    }
    for t in tests["not_passed"]:  # warnings go to the report
        assert f"<td>{t['test']}</td><td>{t['status']}</td>" in html
    assert "<svg" in html


def test_report_at_a_release_and_cli(built: tuple[Settings, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "v1.html"
    made = runner.invoke(main, ["report", "--tag", "v1", "--output", str(out)])
    assert made.exit_code == 0, made.output
    assert f"wrote {out}" in made.output
    at_v1 = embedded(out.read_text())
    now = embedded(write_report(tmp_path / "now.html").path.read_text())
    assert at_v1["version"] == "v1"
    for part in ("summary", "languages", "rule_rejections", "signals", "mixes", "tests"):
        assert at_v1[part] == now[part], part  # nothing changed since v1

    unknown = runner.invoke(main, ["report", "--tag", "v9"])
    assert unknown.exit_code == 1 and "no release tagged 'v9'" in unknown.output
