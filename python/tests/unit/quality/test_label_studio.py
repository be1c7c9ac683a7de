"""Label Studio's JSON export read into verdicts: latest per annotator, cancelled ones skipped."""

from __future__ import annotations

from lakemix.quality.label_studio import verdicts_of
from lakemix.quality.review import Verdict


def annotation(verdict: str | None, who: object, at: str, **extra: object) -> dict[str, object]:
    result: list[dict[str, object]] = []
    if verdict is not None:
        result.append({"from_name": "verdict", "value": {"choices": [verdict]}})
    return {"result": result, "completed_by": who, "updated_at": at, **extra}


def test_latest_annotation_per_annotator_becomes_a_verdict() -> None:
    tasks = [
        {
            "data": {"document_id": "d1", "content_md5": "m1"},
            "annotations": [
                annotation("bad", 1, "2026-01-02T00:00:00Z"),
                annotation("good", 1, "2026-01-01T00:00:00Z"),  # older: replaced
                annotation("good", {"id": 2, "email": "ana@x"}, "2026-01-01T00:00:00Z"),
                annotation("bad", 3, "2026-01-03T00:00:00Z", was_cancelled=True),
                annotation(None, 4, "2026-01-03T00:00:00Z"),  # no choice made
            ],
        },
        {
            "data": {"document_id": "d2"},
            "annotations": [
                {
                    "completed_by": 1,
                    "updated_at": "2026-01-01T00:00:00Z",
                    "result": [
                        {"from_name": "verdict", "value": {"choices": ["bad"]}},
                        {"from_name": "disputed_rule", "value": {"text": ["c4_min_sentences"]}},
                    ],
                }
            ],
        },
        {"data": {"text": "no document id"}, "annotations": [annotation("good", 1, "x")]},
    ]
    assert sorted(verdicts_of(tasks), key=lambda v: (v.document_id, v.reviewer)) == [
        Verdict("d1", "good", "label-studio:ana@x", "", "m1"),
        Verdict("d1", "bad", "label-studio:user-1", "", "m1"),
        Verdict("d2", "bad", "label-studio:user-1", "disputes c4_min_sentences", None),
    ]
