"""Consistency across sources as a release gate, and every objective's trend over builds, on
crafted data through the real pipeline: dolma_cc_en_head's English pages as two sources, one
with the pages' URLs and one without them (so their URL shares are 1 and 0)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix.catalog import catalog as open_catalog
from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.objectives.validation import wilson_lower_bound
from lakemix.quality.review import Verdict, record
from lakemix.settings import Settings
from lakemix.versions import get_release, list_releases
from tests.conftest import BIN, UNREVIEWED, WEB, lakehouse_in, run
from tests.functional.quality.conftest import project_with, query, set_objectives

MIX = "demo_unimax"
# Few documents per source (the crafted sources keep a handful each); only the URL share is
# compared, at the project's default 1%.
CONSISTENCY = {"min_documents": 2, "fields": {"url_share": {}}}
ACCURACY = {"min_good_share": 0.8, "confidence": 0.9, "severity": "error"}  # 7 good verdicts


def write_source(folder: Path, records: list[dict[str, object]], *, urls: bool) -> Path:
    """``records`` as one JSON Lines file in ``folder``, without ``metadata.url`` unless
    ``urls`` (the page URL is the only URL field dolma's records carry)."""
    folder.mkdir(parents=True)
    lines = []
    for page in records:
        if not urls:
            metadata = dict(page["metadata"])  # type: ignore[call-overload]
            metadata.pop("url")
            page = {**page, "metadata": metadata}
        lines.append(json.dumps(page))
    (folder / "part.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def pages() -> list[dict[str, object]]:
    return [
        json.loads(line)
        for path in sorted((WEB / "dolma_cc_en_head").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def dbt_build(project: Path) -> None:
    run([str(BIN / "dbt"), "build", "--project-dir", str(project), "--profiles-dir", str(project)])


def lakemix(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Path]]:
    """(settings, project): even pages as source ``linked``, the first half of the odd ones as
    ``bare`` (no URL), built with a project whose consistency objective judges sources of two
    documents; mix built. The rest of the odd pages lie in ``tmp/bare_later``."""
    tmp = tmp_path_factory.mktemp("objective_builds")
    records = pages()
    odd = records[1::2]
    linked = write_source(tmp / "linked", records[0::2], urls=True)
    bare = write_source(tmp / "bare", odd[: len(odd) // 2], urls=False)
    write_source(tmp / "bare_later", odd[len(odd) // 2 :], urls=False)
    project = project_with(tmp, consistency=CONSISTENCY, accuracy=ACCURACY)
    with lakehouse_in(tmp) as settings, pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        ingest([linked], source="linked", fmt="jsonl")
        ingest([bare], source="bare", fmt="jsonl")
        dbt_build(project)
        code, output = lakemix("mix", "build", MIX)
        assert code == 0, output
        yield settings, project


def url_shares(settings: Settings) -> dict[str, float]:
    rows = query(
        settings,
        "select source_id, avg(case when url is not null and url <> '' then 1 else 0 end) "
        "from marts.fct_clean_documents where language = 'en' group by all",
    )
    return {str(source): float(share) for source, share in rows}


def test_a_source_beyond_the_consistency_threshold_refuses_the_release(
    crafted: tuple[Settings, Path],
) -> None:
    settings, project = crafted
    shares = url_shares(settings)
    assert shares == {"linked": 1.0, "bare": 0.0}, shares  # both sources kept documents
    refused_code, refused = lakemix("release", MIX, "--tag", "r1", *UNREVIEWED)
    assert refused_code == 1, refused
    assert "release r1 refused: 1 quality objective(s) not met" in refused
    assert "consistency url_share (<= 0.01 (rate))" in refused
    assert "source bare, language en: url_share 0 against" in refused
    assert "lakemix_quality_objectives" in refused
    assert list_releases(settings) == []

    # Relaxed, the same data is released, and the manifest keeps what was measured.
    relaxed = {**CONSISTENCY, "fields": {"url_share": {"max_deviation": 0.9}}}
    set_objectives(project, consistency=relaxed)
    code, output = lakemix("release", MIX, "--tag", "r1", *UNREVIEWED)
    assert code == 0, output
    (result,) = [
        r for r in get_release("r1", settings).objectives["results"] if r["name"] == "url_share"
    ]
    assert result["passed"] and result["target"] == "<= 0.9 (rate)"
    assert 0.01 < result["measured"] <= 0.9


def test_every_objective_has_a_trend_over_builds(
    crafted: tuple[Settings, Path], tmp_path: Path
) -> None:
    settings, project = crafted
    from lakemix.quality import write_report

    # Seven documents of the mix found good, more bare pages, then a build and the mix's.
    sql = f"select distinct document_id from marts.mix_{MIX} order by 1 limit 7"
    documents = [str(r[0]) for r in query(settings, sql)]
    assert len(documents) == 7
    record(open_catalog(settings), [Verdict(d, "good", "ana") for d in documents])
    ingest([project.parent / "bare_later"], source="bare", fmt="jsonl")
    dbt_build(project)
    code, output = lakemix("mix", "build", MIX)
    assert code == 0, output

    recorded = query(
        settings,
        "select invocation_id, metric, value, note, document_count from meta.build_stats "
        "where metric in ('missing_fraction', 'consistency_deviation', 'accuracy_lower_bound') "
        "and dimension in ('fct_clean_documents.language', 'url_share', ?) order by recorded_at",
        [MIX],
    )
    builds: dict[str, dict[str, tuple[float, str, int | None]]] = {}
    for invocation, metric, value, note, documents in recorded:
        builds.setdefault(str(invocation), {})[str(metric)] = (value, note, documents)
    # dbt build and the mix's build, twice: each measured completeness and consistency; the
    # two after the verdicts measured accuracy too.
    assert len(builds) == 4, builds
    assert [sorted(b) for b in builds.values()] == [
        ["consistency_deviation", "missing_fraction"],
        ["consistency_deviation", "missing_fraction"],
        ["accuracy_lower_bound", "consistency_deviation", "missing_fraction"],
        ["accuracy_lower_bound", "consistency_deviation", "missing_fraction"],
    ]
    # The build after the verdicts read the mix they were given on: 7 reviewed, all good.
    bound = wilson_lower_bound(7, 7, 0.9)
    accuracy_rows = [b["accuracy_lower_bound"] for b in list(builds.values())[2:]]
    assert accuracy_rows[0] == (bound, "pass", 7)
    value, _note, reviewed = accuracy_rows[1]
    assert reviewed and value == wilson_lower_bound(reviewed, reviewed, 0.9)

    report = write_report(tmp_path / "now.html", settings=settings).data
    rows = {(o["objective"], o["name"]): o for o in report.objectives}
    consistency = rows["consistency", "url_share"]
    trend = [b["measured"] for b in consistency["build_trend"]]
    assert trend == [b["consistency_deviation"][0] for b in builds.values()]
    # More bare pages moved the pooled share, so the deviation changed between the builds,
    # and the last build's value is today's.
    assert trend[0] != trend[-1] and trend[-1] == pytest.approx(consistency["measured"])
    accuracy = rows["accuracy", MIX]
    assert [b["measured"] for b in accuracy["build_trend"]] == [bound, value]
    assert accuracy["measured"] == pytest.approx(value) and accuracy["passed"]
    completeness = rows["completeness", "fct_clean_documents.language"]
    assert [b["measured"] for b in completeness["build_trend"]] == [0.0] * 4
    html = (tmp_path / "now.html").read_text()
    # A sparkline per trend, its values in the tooltip and the last one beside it.
    assert "<title>builds: " + ", ".join(format(v, ".4g") for v in trend) + "</title>" in html
    assert f"</svg> {format(trend[-1], '.4g')}" in html
