"""Release, diff, time travel, gc and rebuild of a mix on real documents, in a project copy."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner, Result

from lakemix import catalog, duck
from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.versions import get_release, list_releases
from tests.conftest import BIN, UNREVIEWED, WEB, run


def lakemix(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def build(project: Path, *, check: bool = True) -> None:
    run(
        [str(BIN / "dbt"), "build", "--project-dir", str(project), "--profiles-dir", str(project)],
        check=check,
    )


def tags(settings: Settings, tag: str) -> list[str]:
    cat = catalog(settings)
    return [
        ".".join(ident)
        for ns in cat.list_namespaces()
        for ident in cat.list_tables(ns)
        if (ref := cat.load_table(ident).metadata.refs.get(tag)) and ref.snapshot_ref_type == "tag"
    ]


def test_release_diff_gc_and_rebuild(lakehouse: Settings, project: Path) -> None:
    ingest([WEB / "dolma_cc_en_head"], source="dolma_cc_en_head", fmt="jsonl")
    build(project)
    assert "never built" in lakemix("release", "demo_unimax", "--tag", "v1", *UNREVIEWED).output
    built = lakemix("mix", "build", "demo_unimax")
    assert built.exit_code == 0, built.output

    first = lakemix("release", "demo_unimax", "--tag", "v1", *UNREVIEWED)
    assert first.exit_code == 0, first.output
    v1 = get_release("v1")
    assert (lakehouse.home / "releases" / "v1.json").is_file()
    assert {"raw.documents", "marts.mix_demo_unimax", "marts.fct_clean_documents"} <= set(
        v1.snapshots
    )
    assert sorted(tags(lakehouse, "v1")) == sorted(v1.snapshots)
    assert "seeds/quality_thresholds.csv" in v1.config_files
    # the model that scored the pinned rows, by the digest the scoring model recorded
    from lakemix.udf.quality_model import DEFAULT_MODEL, file_digest

    assert v1.quality_model["name"] == "default"
    assert v1.quality_model["sha256"] == file_digest(DEFAULT_MODEL)
    assert v1.quality_model["trained"]["trained_by"] == "scripts/train_quality_model.py"
    assert f"quality model: default sha256 {file_digest(DEFAULT_MODEL)}" in (
        lakemix("show", "v1").output
    )
    again = lakemix("release", "demo_unimax", "--tag", "v1", *UNREVIEWED)
    assert again.exit_code == 1 and "exists already" in again.output
    # Names a version would be read as something else by: refused before anything is written.
    for reserved, why in (
        ("main", "the name of every table's branch"),
        ("Main", "the name of every table's branch"),
        ("12345", "read as a snapshot id"),
        ("2026-12-01", "read as a timestamp"),
        ("branch_x", "Spark's ref syntax"),
    ):
        refused = lakemix("release", "demo_unimax", "--tag", reserved, *UNREVIEWED)
        assert refused.exit_code == 1 and why in refused.output, refused.output
        assert tags(lakehouse, reserved) == []

    # New data and a stricter threshold, then a second release.
    ingest([WEB / "oscar2201"], source="oscar2201", fmt="jsonl")
    stale = lakemix("release", "demo_unimax", "--tag", "v2", *UNREVIEWED)
    assert stale.exit_code == 1, stale.output
    assert "raw.documents changed after the last dbt build" in stale.output
    seeds = project / "seeds" / "quality_thresholds.csv"
    stricter = seeds.read_text().replace(
        "floor_min_words,word_count,>=,50,", "floor_min_words,word_count,>=,400,"
    )
    seeds.write_text(stricter)
    build(project)
    assert lakemix("mix", "build", "demo_unimax").exit_code == 0
    assert lakemix("release", "demo_unimax", "--tag", "v2", *UNREVIEWED).exit_code == 0

    diffed = lakemix("diff", "v1", "v2")
    assert diffed.exit_code == 0, diffed.output
    assert "new data" in diffed.output and "filter: floor_min_words" in diffed.output

    # dbt snapshots keep the SCD2 history: the membership at v1's release time is v1's mix.
    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    history = conn.execute(
        "select count(*) from snapshots.mix_demo_unimax_history where dbt_valid_from <= ? "
        "and (dbt_valid_to > ? or dbt_valid_to is null)",
        [v1.released_at, v1.released_at],
    ).fetchone()
    left = conn.execute(
        "select count(*) from snapshots.mix_demo_unimax_history where dbt_valid_to is not null"
    ).fetchone()
    conn.close()
    assert history == (sum(s.documents for s in v1.stats),) and left and left[0] > 0

    # Row lineage: a document of both releases, and one the stricter threshold dropped.
    both = "select document_id from marts.mix_demo_unimax order by document_id limit 1"
    kept_id = lakemix("sql", both, "--at", "v1").output.split()[-1]
    traced = lakemix("lineage", kept_id)
    assert traced.exit_code == 0, traced.output
    assert "ingest_snapshot_id: " in traced.output and "cc_en_head-" in traced.output
    assert "  quality model:\n    quality_score: " in traced.output  # which model scored it
    assert f"    model_sha256: {file_digest(DEFAULT_MODEL)}" in traced.output
    assert "releases: v1 (demo_unimax: " in traced.output
    dropped = (
        "select document_id from marts.fct_document_rejections "
        "where list_contains(failed_rule_names, 'floor_min_words') order by 1 limit 1"
    )
    dropped_id = lakemix("sql", dropped).output.split()[-1]
    assert "floor_min_words (word_count " in lakemix("lineage", dropped_id).output

    # A failing build blocks a release, and the refusal writes nothing.
    (project / "tests" / "assert_always_fails.sql").write_text("select 1 as failure\n")
    build(project, check=False)
    refused = lakemix("release", "demo_unimax", "--tag", "v3", *UNREVIEWED)
    assert refused.exit_code == 1 and "did not pass" in refused.output
    # A mix build after it passes its own tests, but cannot stand in for the failed build.
    assert lakemix("mix", "build", "demo_unimax").exit_code == 0
    refused = lakemix("release", "demo_unimax", "--tag", "v3", *UNREVIEWED)
    assert refused.exit_code == 1, refused.output
    assert "failed (test.lakemix.assert_always_fails" in refused.output
    assert tags(lakehouse, "v3") == [] and not (lakehouse.home / "releases" / "v3.json").exists()
    assert [m.tag for m in list_releases()] == ["v1", "v2"]
    assert lakemix("versions").output.count("demo_unimax") == 2

    # gc keeps what the releases need: time travel and the rebuild of v1 still work.
    collected = lakemix("gc", "--grace", "0")
    assert collected.exit_code == 0 and "expired 0 snapshots" not in collected.output
    v1_docs = sum(s.documents for s in v1.stats)
    at_v1 = lakemix("sql", "select count(*) as n from marts.mix_demo_unimax", "--at", "v1")
    assert at_v1.output.split()[-1] == str(v1_docs)

    inline = "select count(*) as n from {{ lakemix.at('marts.mix_demo_unimax', 'v1') }}"
    where = ["--project-dir", str(project), "--profiles-dir", str(project)]
    shown = run([str(BIN / "dbt"), "show", "--inline", inline, "--output", "json", "-q", *where])
    assert orjson.loads(shown.stdout[shown.stdout.index("{") :])["show"] == [{"n": v1_docs}]

    rebuilt = lakemix("rebuild", "v1")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"checksum {v1.checksum} is identical" in rebuilt.output
    assert get_release("v2").checksum != v1.checksum

    unknown = lakemix("show", "v9")
    assert unknown.exit_code == 1 and "no release tagged 'v9' (releases: v1, v2)" in unknown.output
