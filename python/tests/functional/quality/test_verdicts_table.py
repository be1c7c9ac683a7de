"""meta.review_verdicts: a table made before content_md5 gains the column; pulling twice records
nothing more."""

from __future__ import annotations

import pyarrow as pa

from lakemix.catalog import catalog
from lakemix.iceberg import ensure_table
from lakemix.quality.review import VERDICT_SCHEMA, Verdict, record, record_new
from lakemix.settings import Settings
from lakemix.tables import REVIEW_VERDICTS


def test_old_table_gains_content_md5_and_record_new_is_idempotent(lakehouse: Settings) -> None:
    cat = catalog(lakehouse)
    old = pa.schema([f for f in VERDICT_SCHEMA if f.name != "content_md5"])
    table = ensure_table(cat, REVIEW_VERDICTS, old)
    table.append(
        pa.Table.from_pylist(
            [
                {
                    "document_id": "a",
                    "verdict": "good",
                    "reviewer": "ana",
                    "note": "",
                    "labeled_at": None,
                }
            ],
            schema=old,
        )
    )
    assert record(cat, [Verdict("b", "bad", "ana", "", "m-b")]) == 1
    rows = cat.load_table(REVIEW_VERDICTS).scan().to_arrow().sort_by("document_id").to_pylist()
    assert [(r["document_id"], r["content_md5"]) for r in rows] == [("a", None), ("b", "m-b")]

    pulled = [Verdict("b", "bad", "ls:1", "", "m-b"), Verdict("c", "good", "ls:1", "", "m-c")]
    assert record_new(cat, pulled) == 2
    assert record_new(cat, pulled) == 0
    # A changed verdict, note or content is recorded; another reviewer's verdict is separate.
    changed = [Verdict("b", "good", "ls:1", "", "m-b"), Verdict("c", "good", "ls:2", "", "m-c")]
    assert record_new(cat, changed) == 2
    assert record_new(cat, [*pulled[1:], *changed]) == 0
