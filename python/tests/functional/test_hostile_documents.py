"""Documents that break naive cleaning code: every one ends clean or rejected with a reason."""

from __future__ import annotations

from pathlib import Path

import orjson

from lakemix import duck
from lakemix.ingest import ingest
from lakemix.ingest.run import document_id
from lakemix.settings import Settings
from tests.conftest import dbt

HOSTILE = {
    "empty": "",
    "single_line_5mb": "word " * 1_000_000,
    "emoji_only": "😀🎉🔥" * 200,
    "control_only": "\x01\x02\x03\x07\x1b" * 100,
    "mixed_scripts": "Hello мир 世界 مرحبا שלום नमस्ते " * 40,
    "rtl_arabic": "هذا نص عربي طويل يتحدث عن الطقس والأخبار في المدينة. " * 30,
    "rtl_hebrew": "זהו טקסט בעברית על מזג האוויר והחדשות בעיר. " * 30,
    "nul_inside": "text with a \x00 NUL byte " * 20,
}


def test_hostile_documents_end_clean_or_rejected_with_a_reason(
    lakehouse: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(
        b"".join(orjson.dumps({"id": k, "text": v}) + b"\n" for k, v in HOSTILE.items())
    )
    result = ingest([path], source="hostile")
    assert result.total("documents") == len(HOSTILE)
    dbt("build", tmp=tmp_path)

    conn = duck.connect(lakehouse.duckdb_path, settings=lakehouse, read_only=True)
    outcomes = dict(
        conn.execute(
            """
            select document_id, [] from marts.fct_clean_documents
            union all
            select document_id, failed_rule_names from marts.fct_document_rejections
            """
        ).fetchall()
    )
    by_key = {key: outcomes.get(document_id("hostile", key, "", 0)) for key in HOSTILE}
    assert all(reasons is not None for reasons in by_key.values()), by_key  # none lost
    for key in ("empty", "emoji_only", "control_only", "single_line_5mb", "nul_inside"):
        assert by_key[key], f"{key} should be rejected with a reason, got {by_key[key]}"
    assert "floor_min_words" in by_key["empty"]
