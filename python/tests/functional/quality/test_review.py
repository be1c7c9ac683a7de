"""lakemix review sample / label, and the filter precision the report derives from verdicts."""

from __future__ import annotations

import csv
from pathlib import Path

from click.testing import CliRunner

from lakemix import duck
from lakemix.cli import main
from lakemix.quality import write_report
from lakemix.quality.data import KEPT
from lakemix.settings import Settings

N = 15  # documents drawn: fewer than the strata of the fixture corpus (17 with the default filters)


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as source:
        return list(csv.DictReader(source))


def test_sample_label_and_precision(built: tuple[Settings, Path], tmp_path: Path) -> None:
    settings, _ = built
    runner = CliRunner()
    path = tmp_path / "sample.csv"
    drawn = runner.invoke(
        main, ["review", "sample", "--n", str(N), "--seed", "1", "--output", str(path)]
    )
    assert drawn.exit_code == 0, drawn.output
    rows = read(path)
    assert len(rows) == len({r["document_id"] for r in rows}) == N

    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    clean = {
        r[0] for r in conn.execute("select document_id from marts.fct_clean_documents").fetchall()
    }
    failed = dict(
        conn.execute(
            "select document_id, failed_rule_names from marts.fct_document_rejections"
        ).fetchall()
    )
    strata = conn.execute(
        "select count(*) from (select distinct language from marts.fct_clean_documents union all "
        "select distinct rule || language from (select unnest(failed_rule_names) as rule, language "
        "from marts.fct_document_rejections))"
    ).fetchone()
    conn.close()
    for row in rows:
        if row["decision"] == "kept":
            assert row["document_id"] in clean
        else:
            assert row["stratum_rule"] in failed[row["document_id"]]
    # Strata take turns: the first N documents come from N different strata (there are more).
    assert strata is not None and strata[0] > N
    assert len({(r["decision"], r["stratum_rule"], r["language"]) for r in rows}) == N
    again = tmp_path / "again.csv"
    runner.invoke(main, ["review", "sample", "--n", str(N), "--seed", "1", "--output", str(again)])
    assert again.read_text() == path.read_text()

    # Verdicts from the CSV: kept documents good, rejected ones bad except the first.
    first_rejected = next(r["document_id"] for r in rows if r["decision"] == "rejected")
    verdicts = {
        r["document_id"]: "good"
        if r["decision"] == "kept" or r["document_id"] == first_rejected
        else "bad"
        for r in rows
    }
    for row in rows:
        row["verdict"] = verdicts[row["document_id"]]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    labeled = runner.invoke(main, ["review", "label", "--csv", str(path), "--reviewer", "ana"])
    assert labeled.exit_code == 0 and f"recorded {N} verdicts by ana" in labeled.output

    data = write_report(tmp_path / "report.html").data
    expected: dict[str, list[int]] = {}
    for document_id, verdict in verdicts.items():
        for rule in failed.get(document_id, [KEPT]):
            agreed = verdict == ("good" if rule == KEPT else "bad")
            expected.setdefault(rule, [0, 0])
            expected[rule][0] += 1
            expected[rule][1] += agreed
    assert {p["rule"]: [p["reviewed"], p["agreed"]] for p in data.precision} == expected
    assert all(p["precision"] == p["agreed"] / p["reviewed"] for p in data.precision)

    # Interactive: a later verdict on the same document replaces the earlier one.
    answered = runner.invoke(
        main, ["review", "label", "--sample", str(again), "--reviewer", "bo"], input="b\ns\nq\n"
    )
    assert answered.exit_code == 0 and "recorded 1 verdicts by bo" in answered.output
    first = read(again)[0]
    data = write_report(tmp_path / "report.html").data
    rule = (failed.get(first["document_id"]) or [KEPT])[0]
    before = expected[rule][1]
    changed = verdicts[first["document_id"]] != "bad"
    after = {p["rule"]: p["agreed"] for p in data.precision}[rule]
    assert after == before + (1 if changed and rule != KEPT else -1 if changed else 0)

    bad = tmp_path / "bad.csv"
    bad.write_text("document_id,verdict\nx,maybe\n")
    refused = runner.invoke(main, ["review", "label", "--csv", str(bad)])
    assert refused.exit_code == 1 and f"{bad}:2: verdict 'maybe'" in refused.output


def test_strategies_draw_where_a_verdict_teaches_most(built: tuple[Settings, Path]) -> None:
    import pytest

    from lakemix.quality import review
    from lakemix.quality.session import open_session

    settings, _ = built
    conn = open_session(None, settings=settings)
    try:
        uncertain = review.sample(conn, n=10, strategy="uncertainty")
        margins = [abs(float(r["quality_score"]) - 0.5) for r in uncertain]
        [(nearest,)] = conn.execute(
            "select list(m order by m)[1:10] from (select abs(quality_score - 0.5) as m "
            "from intermediate.int_documents_quality_scored where quality_score is not null)"
        ).fetchall()
        assert margins == pytest.approx(nearest, abs=1e-4)  # the ten nearest the boundary

        disagreeing = review.sample(conn, n=10, strategy="disagreement")
        rules = review._rules_keep(
            conn, [r["document_id"] for r in disagreeing], [r["language"] for r in disagreeing]
        )
        flags = [
            (float(r["quality_score"]) >= 0.5) != kept
            for r, kept in zip(disagreeing, rules, strict=True)
        ]
        assert any(flags) and flags == sorted(flags, reverse=True)  # disagreements first

        first = review.sample(conn, n=10, strategy="random", seed=1)
        assert first == review.sample(conn, n=10, strategy="random", seed=1)
        assert first != review.sample(conn, n=10, strategy="random", seed=2)
        with pytest.raises(review.ReviewError, match="strategy must be one of"):
            review.sample(conn, n=1, strategy="psychic")
    finally:
        conn.close()
