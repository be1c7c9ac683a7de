"""Full-text search (the Tantivy index) from SQL, Python and the CLI, checked against the texts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakemix import duck
from lakemix.cli import main
from lakemix.search import SearchError, index_path, search
from lakemix.search.sql import connect
from lakemix.settings import Settings


def words(text: str) -> set[str]:
    """The index's words: runs of letters and digits, lower-cased."""
    return set(re.findall(r"[^\W_]+", text.lower()))


def test_hits_are_exactly_the_documents_holding_the_word(built: tuple[Settings, Path]) -> None:
    settings, _ = built
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    rows = conn.execute(
        "select document_id, is_clean, text from search.search_documents"
    ).fetchall()
    raw = dict(
        conn.execute("select document_id, file || ':' || \"offset\" from raw.documents").fetchall()
    )
    conn.close()
    holding = {r[0] for r in rows if "privacy" in words(r[2])}
    clean_holding = {r[0] for r in rows if r[1] and "privacy" in words(r[2])}
    assert holding and clean_holding != holding  # some kept, some rejected

    every = search("Privacy", include_rejected=True, limit=10_000)
    assert {h.document_id for h in every} == holding
    assert {h.document_id for h in search("privacy", limit=10_000)} == clean_holding
    scores = [h.score for h in every]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    for hit in every:  # lineage points at the raw record
        assert f"{hit.file_path}:{hit.file_offset}" == raw[hit.document_id]
        assert hit.is_clean == (not hit.failed_rule_names)

    cut = scores[len(scores) // 2]
    assert [
        h.score for h in search("privacy", include_rejected=True, min_score=cut, limit=10_000)
    ] == [s for s in scores if s >= cut]
    assert len(search("privacy", include_rejected=True, limit=2)) == 2


def test_filters_and_non_latin_words(built: tuple[Settings, Path]) -> None:
    settings, _ = built
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    language, text = conn.execute(
        "select language, text from search.search_documents "
        "where regexp_matches(text, '\\p{Cyrillic}{6,}') order by document_id limit 1"
    ).fetchone() or ("", "")
    conn.close()
    word = re.findall(r"[\u0400-\u04ff]{6,}", text)[0]
    hits = search(word.upper(), include_rejected=True, language=language, limit=10_000)
    assert hits and all(h.language == language and word.lower() in words(h.text) for h in hits)
    assert search(word, include_rejected=True, language="xx") == []


def test_chinese_words_inside_runs(built: tuple[Settings, Path]) -> None:
    settings, _ = built
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    rows = conn.execute("select document_id, text from search.search_documents").fetchall()
    conn.close()
    squeezed = {document_id: re.sub(r"[\W_]+", "", text) for document_id, text in rows}
    runs = [r for t in squeezed.values() for r in re.findall(r"[\u4e00-\u9fff]{6,}", t)]
    assert runs, "the demo corpus holds Chinese documents"
    word = sorted(runs)[len(runs) // 2][2:4]  # two characters from inside a run
    holding = {document_id for document_id, text in squeezed.items() if word in text}
    hits = search(word, include_rejected=True, limit=10_000)
    assert {h.document_id for h in hits} == holding


def test_sql_entry_point(built: tuple[Settings, Path]) -> None:
    settings, _ = built
    conn = connect(settings)
    try:
        rows = conn.execute(
            "select document_id, score, language, file_path from "
            "search.match_documents('privacy') where is_clean order by score desc, document_id"
        ).fetchall()
        (summary,) = conn.execute(
            "select index_path, document_count, (select count(*) from search.search_documents) "
            "from search.search_index"
        ).fetchall()
    finally:
        conn.close()
    hits = search("privacy", limit=10_000)
    assert [(r[0], r[2], r[3]) for r in rows] == [
        (h.document_id, h.language, h.file_path) for h in hits
    ]
    assert [r[1] for r in rows] == pytest.approx([h.score for h in hits])
    assert summary == (str(index_path(settings)), summary[2], summary[2])


def test_cli_and_errors(
    built: tuple[Settings, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    best = search("privacy", include_rejected=True, limit=1)[0]
    shown = runner.invoke(main, ["search", "privacy", "--include-rejected", "--limit", "1"])
    assert shown.exit_code == 0, shown.output
    assert best.document_id in shown.output and best.file_path in shown.output
    assert f"{best.score:7.3f}" in shown.output
    assert "privacy" in shown.output.lower()
    none = runner.invoke(main, ["search", "zzzqqqxxyy"])
    assert none.exit_code == 0 and "no document matches" in none.output
    empty = runner.invoke(main, ["search", "  "])
    assert empty.exit_code == 1 and "query is empty" in empty.output

    monkeypatch.setenv("LAKEMIX_HOME", str(tmp_path / "nothing"))
    with pytest.raises(SearchError, match="no dbt build yet"):
        search("privacy")
