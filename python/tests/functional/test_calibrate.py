"""A calibrated threshold changes which documents are kept, and only the filtering re-runs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lakemix import catalog, duck
from lakemix.cli import main
from lakemix.ingest import ingest
from lakemix.quality.reference import pack_sentences, select_lines, sentence_joiner
from lakemix.settings import Settings
from tests.conftest import BIN, CORPORA, run

LEIPZIG = CORPORA / "langid" / "lingua_leipzig"
CALIBRATED = ("ca", "ka")  # rejected by gopher_min_alpha_word_fraction and c4_min_sentences
LANGUAGES = (*CALIBRATED, "de")
SCORED = "intermediate.int_documents_quality_scored"
FILTERED = "intermediate.int_documents_quality_filtered"


def write_documents(path: Path) -> int:
    """The odd lines of each language packed into documents (calibration reads the even ones)."""
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for lang in LANGUAGES:
            lines = (LEIPZIG / lang / "sentences.txt").read_text(encoding="utf-8").split("\n")
            texts = pack_sentences(
                select_lines(lines, "odd"), key=lang, joiner=sentence_joiner(lang)
            )
            for i, text in enumerate(texts):
                out.write(json.dumps({"id": f"{lang}/{i}", "text": text}) + "\n")
                count += 1
    return count


def dbt(project: Path, tmp: Path, *args: str) -> None:
    env = {"DBT_TARGET_PATH": str(tmp / "target"), "DBT_LOG_PATH": str(tmp / "logs")}
    dirs = ["--project-dir", str(project), "--profiles-dir", str(project)]
    run([str(BIN / "dbt"), *args, *dirs], extra_env=env)


def decisions(settings: Settings) -> dict[str, tuple[str, bool, list[str]]]:
    """document_id -> (language, is_kept, threshold sources of its failed rules)."""
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    rows = conn.execute(
        f"select document_id, language, is_kept,"
        f" list_transform(failed_rules, f -> f.threshold_source) from {FILTERED}"
    ).fetchall()
    conn.close()
    return {r[0]: (r[1], r[2], r[3] or []) for r in rows}


def snapshot(settings: Settings, name: str) -> int | None:
    snap = catalog(settings).load_table(name).current_snapshot()
    return snap.snapshot_id if snap else None


def test_calibration_keeps_more_and_recomputes_no_signal(
    lakehouse: Settings, project: Path, tmp_path: Path
) -> None:
    # The rules calibrated here belong to the families FineWeb ran, which the project's default
    # (floors and the quality model) leaves off: switch them on, as a user filtering so would.
    config = project / "dbt_project.yml"
    default = (
        "lakemix_filter_families: [language, floor, gopher_repetition, model, url, decontamination]"
    )
    assert default in config.read_text()
    config.write_text(
        config.read_text().replace(
            default,
            "lakemix_filter_families: [language, gopher_quality, gopher_repetition, c4, fineweb]",
        )
    )
    seed = project / "seeds" / "calibrated_thresholds.csv"
    seed.write_text(seed.read_text().split("\n", 1)[0] + "\n")  # no calibration yet
    documents = tmp_path / "leipzig.jsonl"
    total = write_documents(documents)
    ingest([documents], source="leipzig", fmt="jsonl")
    dbt(project, tmp_path, "seed")
    dbt(project, tmp_path, "run")
    before = decisions(lakehouse)
    assert len(before) == total
    scored, filtered = snapshot(lakehouse, SCORED), snapshot(lakehouse, FILTERED)

    for lang in CALIBRATED:
        reference = LEIPZIG / lang / "sentences.txt"
        args = ["calibrate", "--reference", str(reference), "--language", lang]
        args += ["--sentences", "--lines", "even", "--percentile", "2", "--write"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "dbt seed && dbt build" in result.output
    rows = seed.read_text().splitlines()
    assert len(rows) > 1 and {r.split(",")[0] for r in rows[1:]} == set(CALIBRATED)

    dbt(project, tmp_path, "seed")
    dbt(project, tmp_path, "build", "--select", "int_documents_quality_filtered+")
    after = decisions(lakehouse)
    assert snapshot(lakehouse, SCORED) == scored, "signals were recomputed"
    assert snapshot(lakehouse, FILTERED) != filtered

    kept_before = {i for i, d in before.items() if d[1]}
    kept_after = {i for i, d in after.items() if d[1]}
    assert kept_before <= kept_after  # calibration only relaxes
    for lang in CALIBRATED:
        gained = {i for i in kept_after - kept_before if after[i][0] == lang}
        assert gained, f"no {lang} document gained"
    assert all(after[i][1] == before[i][1] for i, d in before.items() if d[0] not in CALIBRATED)
    sources = {s for _, _, found in after.values() for s in found}
    assert sources and sources <= {"calibrated", "language", "default"}
