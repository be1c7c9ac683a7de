"""Manual validation as a release gate: refused for too few verdicts and for a failing share,
accepted after labelling, overridden with a reason that the manifest keeps."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.catalog import catalog as open_catalog
from lakemix.cli import main
from lakemix.objectives.validation import measure, verdicts_needed
from lakemix.quality.review import Verdict, record
from lakemix.settings import Settings
from lakemix.versions import get_release
from lakemix.versions.refs import connect_at
from tests.conftest import copied_release
from tests.functional.quality.conftest import project_with

MIX = "demo_unimax"


@pytest.fixture(scope="module")
def house(demo_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A lakehouse of its own (this module records verdicts and releases): a relocated copy of
    the session's demo lakehouse, v1 released with the project's objectives (accuracy at
    severity error, so with --accept-unvalidated)."""
    with copied_release(demo_release, tmp_path_factory.mktemp("gate")) as settings:
        yield settings


def label(path: Path, verdicts: list[str], reviewer: str) -> None:
    """Fill in a drawn sample CSV's verdicts in order and record them with the CLI."""
    with path.open(newline="", encoding="utf-8") as source:
        rows = list(csv.DictReader(source))
    assert len(rows) == len(verdicts)
    for row, verdict in zip(rows, verdicts, strict=True):
        row["verdict"] = verdict
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    done = CliRunner().invoke(main, ["review", "label", "--csv", str(path), "--reviewer", reviewer])
    assert done.exit_code == 0, done.output


def drawn(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as source:
        return list(csv.DictReader(source))


def mix_documents(settings: Settings) -> set[str]:
    conn = connect_at(None, settings=settings)
    try:
        rows = conn.execute(f"select distinct document_id from marts.mix_{MIX}").fetchall()
    finally:
        conn.close()
    return {str(r[0]) for r in rows}


def test_release_waits_for_enough_good_verdicts(
    house: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    # The project's own objectives: accuracy at error, so v1 went out with a reason, recorded.
    v1 = get_release("v1", house).objectives
    assert v1["accepted_unvalidated"] == "test corpus: no reviewers"
    assert v1["verdicts_needed"] == 133
    accuracy = [r for r in v1["results"] if r["objective"] == "accuracy"]
    assert accuracy == [
        {
            "objective": "accuracy",
            "name": MIX,
            "target": ">= 0.98",
            "measured": None,
            "passed": False,
            "severity": "error",
            "detail": accuracy[0]["detail"],
        }
    ]
    assert "133 more good verdicts needed" in accuracy[0]["detail"]
    assert {r["name"] for r in v1["results"] if r["objective"] == "completeness"} >= {
        "fct_clean_documents.language",
        "fct_clean_documents.text",
    }

    # At 80% and 90% confidence, with severity error: 7 good verdicts are the least.
    monkeypatch.chdir(
        project_with(
            tmp_path, accuracy={"min_good_share": 0.8, "confidence": 0.9, "severity": "error"}
        )
    )
    assert verdicts_needed(0, 0, 0.8, 0.9) == 7
    refused = runner.invoke(main, ["release", MIX, "--tag", "v2"])
    assert refused.exit_code == 1
    assert "0 good of 0 reviewed" in refused.output
    assert f"lakemix review sample --mix {MIX} --n 7" in refused.output

    # The command it names draws 7 kept documents of the mix; 5 found good are not enough.
    first = tmp_path / "first.csv"
    sampled = runner.invoke(
        main, ["review", "sample", "--mix", MIX, "--n", "7", "--output", str(first)]
    )
    assert sampled.exit_code == 0, sampled.output
    first_rows = drawn(first)
    in_mix = mix_documents(house)
    assert len(first_rows) == 7 and {r["document_id"] for r in first_rows} <= in_mix
    assert {r["decision"] for r in first_rows} == {"kept"}
    label(first, ["good"] * 5 + ["bad"] * 2, "ana")
    short = runner.invoke(main, ["release", MIX, "--tag", "v2"])
    needed = verdicts_needed(5, 7, 0.8, 0.9)
    assert short.exit_code == 1 and "5 good of 7 reviewed" in short.output
    assert f"--mix {MIX} --n {needed}" in short.output and needed == 16

    # The next draw skips what was reviewed; labelled good, the mix is released.
    second = tmp_path / "second.csv"
    runner.invoke(
        main, ["review", "sample", "--mix", MIX, "--n", str(needed), "--output", str(second)]
    )
    second_rows = drawn(second)
    assert len(second_rows) == needed
    assert not {r["document_id"] for r in second_rows} & {r["document_id"] for r in first_rows}
    label(second, ["good"] * needed, "ana")
    released = runner.invoke(main, ["release", MIX, "--tag", "v2"])
    assert released.exit_code == 0, released.output
    v2 = get_release("v2", house).objectives
    (result,) = [r for r in v2["results"] if r["objective"] == "accuracy"]
    assert result["passed"] and result["measured"] >= 0.8 and v2["accepted_unvalidated"] is None
    assert "21 good of 23 reviewed" in result["detail"]

    # Verdicts on unchanged documents count for the next release; on changed text they do not.
    # A reason given for a validated mix is not recorded: it did not go out unvalidated.
    reasoned = runner.invoke(main, ["release", MIX, "--tag", "v3", "--accept-unvalidated", "x"])
    assert reasoned.exit_code == 0 and "not validated" not in reasoned.output, reasoned.output
    assert get_release("v3", house).objectives["accepted_unvalidated"] is None
    conn = connect_at(None, settings=house)
    try:
        before = measure(conn, f"marts.mix_{MIX}", min_good_share=0.8, confidence=0.9)
    finally:
        conn.close()
    unreviewed = sorted(in_mix - {r["document_id"] for r in first_rows + second_rows})[0]
    record(open_catalog(house), [Verdict(unreviewed, "good", "bo", content_md5="0" * 32)])
    conn = connect_at(None, settings=house)
    try:
        after = measure(conn, f"marts.mix_{MIX}", min_good_share=0.8, confidence=0.9)
    finally:
        conn.close()
    assert (after.reviewed, after.good, after.stale) == (before.reviewed, before.good, 1)


def test_accept_unvalidated_is_recorded(
    house: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    monkeypatch.chdir(
        project_with(tmp_path, accuracy={"min_good_share": 0.999, "severity": "error"})
    )
    refused = runner.invoke(main, ["release", MIX, "--tag", "pilot"])
    assert refused.exit_code == 1 and "--accept-unvalidated REASON" in refused.output
    # More verdicts than the mix has documents: the message says the target cannot be reached.
    assert "cannot reach >= 0.999" in refused.output
    empty = runner.invoke(main, ["release", MIX, "--tag", "pilot", "--accept-unvalidated", " "])
    assert empty.exit_code == 1 and "needs a reason" in empty.output
    accepted = runner.invoke(
        main, ["release", MIX, "--tag", "pilot", "--accept-unvalidated", "pilot run, no reviewers"]
    )
    assert accepted.exit_code == 0, accepted.output
    manifest = get_release("pilot", house)
    assert manifest.objectives["accepted_unvalidated"] == "pilot run, no reviewers"
    needed = manifest.objectives["verdicts_needed"]
    said = (
        "not validated by reviewers (--accept-unvalidated: pilot run, no reviewers); to review "
        f"it: lakemix review sample --mix {MIX} --n {needed}, then lakemix review label"
    )
    assert needed > 0 and said in accepted.output, accepted.output
    (result,) = [r for r in manifest.objectives["results"] if r["objective"] == "accuracy"]
    assert not result["passed"] and result["severity"] == "error"


def test_objectives_in_show_diff_and_report(house: Settings, tmp_path: Path) -> None:
    """After the two tests above: v1 (unreviewed, released with --accept-unvalidated), v2
    (validated), pilot (released with --accept-unvalidated)."""
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "pilot"])
    assert shown.exit_code == 0, shown.output
    assert "released with --accept-unvalidated: pilot run, no reviewers" in shown.output
    assert "fct_clean_documents.language" in shown.output and ">= 0.999" in shown.output

    diffed = runner.invoke(main, ["diff", "v1", "v2"])
    assert diffed.exit_code == 0, diffed.output
    (line,) = [row for row in diffed.output.splitlines() if row.startswith("accuracy")]
    v2 = next(
        r for r in get_release("v2", house).objectives["results"] if r["objective"] == "accuracy"
    )
    assert "- FAIL (error)" in line and f"{v2['measured']:.4g} pass" in line

    from lakemix.quality import write_report

    data = write_report(tmp_path / "v2.html", tag="v2", settings=house).data
    (accuracy,) = [o for o in data.objectives if o["objective"] == "accuracy"]
    assert accuracy["passed"] and accuracy["measured"] == v2["measured"]
    assert [h["tag"] for h in accuracy["trend"]] == ["v1", "v2"]
    (language,) = [o for o in data.objectives if o["name"] == "fct_clean_documents.language"]
    # Every build that recorded the layers (dbt build, then the mix's) recorded the null share.
    conn = connect_at(None, settings=house)
    try:
        row = conn.execute(
            "select count(*) from meta.build_stats "
            "where metric = 'rows' and dimension = 'marts.fct_clean_documents'"
        ).fetchone()
    finally:
        conn.close()
    assert row is not None and row[0] >= 1
    assert [b["measured"] for b in language["build_trend"]] == [0.0] * row[0]
    html = (tmp_path / "v2.html").read_text()
    assert html.index("<h2>Quality objectives</h2>") < html.index("<h2>Summary</h2>")

    pilot = write_report(tmp_path / "pilot.html", tag="pilot", settings=house).data
    (accuracy,) = [o for o in pilot.objectives if o["objective"] == "accuracy"]
    assert "released with --accept-unvalidated: pilot run, no reviewers" in accuracy["detail"]

    # Now: the project's objectives (cwd is the repository), measured on the current tables.
    now = write_report(tmp_path / "now.html", settings=house).data
    (accuracy,) = [o for o in now.objectives if o["objective"] == "accuracy"]
    assert accuracy["name"] == MIX and accuracy["target"] == ">= 0.98"
    assert accuracy["severity"] == "error" and not accuracy["passed"]
    assert "21 good of 23 reviewed" in accuracy["detail"]


def test_reviews_in_label_studio(
    house: Settings,
    label_studio: tuple[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Against the real server: create and extend a project, annotate, pull (twice), agreement."""
    import uuid

    from lakemix.quality import write_report
    from lakemix.quality.label_studio import LabelStudio

    url, token = label_studio
    monkeypatch.setenv("LAKEMIX_LABEL_STUDIO_URL", url)
    monkeypatch.setenv("LAKEMIX_LABEL_STUDIO_TOKEN", token)
    title = f"lakemix-test-{uuid.uuid4().hex[:8]}"
    runner = CliRunner()
    path = tmp_path / "ls.csv"
    args = ["review", "sample", "--mix", MIX, "--n", "3", "--output", str(path)]
    pushed = runner.invoke(main, [*args, "--label-studio", title])
    assert pushed.exit_code == 0 and "3 tasks added" in pushed.output, pushed.output
    again = runner.invoke(main, [*args, "--label-studio", title])
    assert again.exit_code == 0 and "0 tasks added" in again.output, again.output

    server = LabelStudio(url, token)
    project = server.project(title, create=False)
    tasks = server.export(project)
    rows = {r["document_id"]: r for r in drawn(path)}
    assert sorted(t["data"]["document_id"] for t in tasks) == sorted(rows)
    import hashlib

    for task in tasks:  # the whole text, whose MD5 the sample recorded
        assert hashlib.md5(task["data"]["text"].encode()).hexdigest() == task["data"]["content_md5"]
        assert task["data"]["content_md5"] == rows[task["data"]["document_id"]]["content_md5"]
        assert task["data"]["text"].startswith(rows[task["data"]["document_id"]]["excerpt"])
    # the quality model's verdict rides along as a pre-annotation, named by the model's digest
    from lakemix.udf.quality_model import DEFAULT_MODEL, file_digest

    for task in tasks:
        [prediction] = server.request("GET", f"/api/predictions/?task={task['id']}")
        score = float(rows[task["data"]["document_id"]]["quality_score"])
        assert prediction["model_version"] == file_digest(DEFAULT_MODEL)[:12]
        assert prediction["score"] == pytest.approx(score, abs=1e-4)
        [region] = prediction["result"]
        assert region["value"]["choices"] == ["good" if score >= 0.5 else "bad"]
    choices = ["good", "good", "bad"]
    for task, verdict in zip(sorted(tasks, key=lambda t: t["id"]), choices, strict=True):
        result = [
            {
                "from_name": "verdict",
                "to_name": "text",
                "type": "choices",
                "value": {"choices": [verdict]},
            },
        ]
        if verdict == "bad":
            result.append(
                {
                    "from_name": "disputed_rule",
                    "to_name": "text",
                    "type": "textarea",
                    "value": {"text": ["c4_min_sentences"]},
                }
            )
        server.request("POST", f"/api/tasks/{task['id']}/annotations", {"result": result})
    ordered = [t["data"]["document_id"] for t in sorted(tasks, key=lambda t: t["id"])]

    # The same documents reviewed by hand too: ana agrees on the first, not on the third.
    label_csv = tmp_path / "ana.csv"
    label_csv.write_text(
        "document_id,verdict\n" + f"{ordered[0]},good\n{ordered[2]},good\n", encoding="utf-8"
    )
    assert (
        runner.invoke(
            main, ["review", "label", "--csv", str(label_csv), "--reviewer", "ana-2"]
        ).exit_code
        == 0
    )

    pulled = runner.invoke(main, ["review", "pull", "--label-studio", title])
    assert pulled.exit_code == 0 and "recorded 3 new or changed" in pulled.output, pulled.output
    twice = runner.invoke(main, ["review", "pull", "--label-studio", title])
    assert "recorded 0 new or changed" in twice.output, twice.output

    conn = connect_at(None, settings=house)
    try:
        recorded = conn.execute(
            "select document_id, verdict, note, content_md5 from meta.review_verdicts "
            "where reviewer like 'label-studio:%' order by document_id"
        ).fetchall()
        every = conn.execute(
            "select document_id, reviewer, verdict from meta.review_verdicts order by labeled_at"
        ).fetchall()
    finally:
        conn.close()
    assert sorted(recorded) == sorted(
        (
            doc,
            verdict,
            "disputes c4_min_sentences" if verdict == "bad" else "",
            rows[doc]["content_md5"],
        )
        for doc, verdict in zip(ordered, choices, strict=True)
    )
    data = write_report(tmp_path / "r.html", settings=house).data
    # ana-2 and Label Studio's user agree on the first document and not on the third (bo's
    # verdict of the first test may fall on one of the drawn documents too).
    latest: dict[str, dict[str, str]] = {}
    for document_id, reviewer, verdict in every:
        latest.setdefault(document_id, {})[reviewer] = verdict
    shared = {d: set(v.values()) for d, v in latest.items() if len(v) >= 2}
    assert ordered[0] in shared and ordered[2] in shared and shared[ordered[2]] == {"good", "bad"}
    agreeing = sum(len(v) == 1 for v in shared.values())
    assert data.agreement == {
        "documents": len(shared),
        "agreeing": agreeing,
        "share": agreeing / len(shared),
    }
    missing = runner.invoke(main, ["review", "pull", "--label-studio", title + "-none"])
    assert missing.exit_code == 1 and "has no project titled" in missing.output
