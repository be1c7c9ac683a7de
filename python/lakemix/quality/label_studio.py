"""Reviews in Label Studio: push a drawn sample into a project, pull its annotations back.

Plain HTTP (urllib) against Label Studio's REST API with a legacy token (`Authorization: Token`,
see ../shared/REFERENCE.md): POST /api/projects, POST /api/projects/ID/import, GET
/api/projects/ID/export?exportType=JSON. A task's data carries the document id and the MD5 of
its text, so a pulled annotation becomes a verdict on exactly what the reviewer saw.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from lakemix.errors import LakemixError
from lakemix.quality.review import VERDICTS, Verdict

# Good/bad, the rule the reviewer disputes (free text: a document fails a varying set of rules),
# and what lakemix decided, beside the text.
LABEL_CONFIG = """<View>
  <Header value="$source_id | $language | $decision"/>
  <Text name="failed" value="$failed_rule_names"/>
  <Text name="text" value="$text"/>
  <Choices name="verdict" toName="text" choice="single" required="true">
    <Choice value="good"/>
    <Choice value="bad"/>
  </Choices>
  <TextArea name="disputed_rule" toName="text" maxSubmissions="1"
    placeholder="the rule you dispute, if any"/>
</View>"""
REVIEWER_PREFIX = "label-studio:"


class LabelStudioError(LakemixError, RuntimeError):
    """Label Studio is unreachable, refused the token, or answered something unexpected."""


@dataclass(frozen=True)
class LabelStudio:
    """A Label Studio server: its base URL and an API token."""

    url: str
    token: str
    timeout: float = 60.0

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One API call; the decoded JSON answer.

        Raises:
            LabelStudioError: Unreachable, 401/403 (the token), or another error status.
        """
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url.rstrip("/") + path,
            data=data,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                payload = answer.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode(errors="replace")
            hint = (
                " (check the token; the server needs LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true)"
                if exc.code in (401, 403)
                else ""
            )
            raise LabelStudioError(
                f"Label Studio {method} {path} answered {exc.code}{hint}: {detail}"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            raise LabelStudioError(
                f"cannot reach Label Studio at {self.url}: {exc} (start it: "
                "scripts/services.d/40-label-studio.sh)"
            ) from None
        return json.loads(payload) if payload else None

    def project(self, title: str, *, create: bool = True) -> int:
        """The id of the project titled ``title``, created with lakemix's config if missing.

        Raises:
            LabelStudioError: No such project and ``create`` is false.
        """
        answer = self.request("GET", "/api/projects?" + urllib.parse.urlencode({"title": title}))
        projects = answer["results"] if isinstance(answer, dict) else answer
        for project in projects:
            if project.get("title") == title:
                return int(project["id"])
        if not create:
            raise LabelStudioError(
                f"Label Studio at {self.url} has no project titled {title!r}: create it with "
                f"lakemix review sample --label-studio {title!r}"
            )
        created = self.request(
            "POST", "/api/projects", {"title": title, "label_config": LABEL_CONFIG}
        )
        return int(created["id"])

    def export(self, project: int) -> list[dict[str, Any]]:
        """Every task of the project with its annotations (JSON export)."""
        answer = self.request(
            "GET", f"/api/projects/{project}/export?exportType=JSON&download_all_tasks=true"
        )
        return list(answer or [])

    def push(
        self,
        project: int,
        rows: list[dict[str, str]],
        texts: dict[str, str],
        *,
        model_version: str | None = None,
    ) -> int:
        """Import the sample rows not in the project yet (by document id), each with the whole
        text the reviewer judges (``texts``, by document id); returns how many. A row with a
        ``quality_score`` carries the model's verdict as a prediction (Label Studio shows it as
        a pre-annotation: ``good`` at 0.5 and above), tagged ``model_version``."""
        present = {str(t["data"].get("document_id")) for t in self.export(project)}
        fresh = [r for r in rows if r["document_id"] not in present]
        skipped = ("verdict", "note", "excerpt")
        if fresh:
            self.request(
                "POST",
                f"/api/projects/{project}/import",
                [
                    {
                        "data": {
                            **{k: v for k, v in r.items() if k not in skipped},
                            "text": texts[r["document_id"]],
                        },
                        **_prediction(r.get("quality_score"), model_version),
                    }
                    for r in fresh
                ],
            )
        return len(fresh)


def _prediction(score: str | None, model_version: str | None) -> dict[str, Any]:
    """Label Studio's ``predictions`` of a task from the quality model's score (none without)."""
    if not score:
        return {}
    value = float(score)
    return {
        "predictions": [
            {
                "model_version": model_version or "lakemix-quality-model",
                "score": value,
                "result": [
                    {
                        "from_name": "verdict",
                        "to_name": "text",
                        "type": "choices",
                        "value": {"choices": ["good" if value >= 0.5 else "bad"]},
                    }
                ],
            }
        ]
    }


def _reviewer(completed_by: Any) -> str:
    if isinstance(completed_by, dict):
        who = completed_by.get("email") or completed_by.get("id")
    else:
        who = f"user-{completed_by}"
    return f"{REVIEWER_PREFIX}{who}"


def verdicts_of(tasks: list[dict[str, Any]]) -> list[Verdict]:
    """One verdict per (task, annotator): the annotator's latest, not cancelled annotation."""
    latest: dict[tuple[str, str], tuple[str, Verdict]] = {}
    for task in tasks:
        data = task.get("data") or {}
        document_id = str(data.get("document_id") or "")
        if not document_id:
            continue
        for annotation in task.get("annotations") or []:
            if annotation.get("was_cancelled"):
                continue
            verdict, disputed = None, ""
            for region in annotation.get("result") or []:
                value = region.get("value") or {}
                if region.get("from_name") == "verdict":
                    chosen = value.get("choices") or []
                    verdict = chosen[0] if chosen else None
                elif region.get("from_name") == "disputed_rule":
                    disputed = " ".join(value.get("text") or []).strip()
            if verdict not in VERDICTS:
                continue
            reviewer = _reviewer(annotation.get("completed_by"))
            stamp = str(annotation.get("updated_at") or annotation.get("created_at") or "")
            key = (document_id, reviewer)
            if key not in latest or stamp >= latest[key][0]:
                note = f"disputes {disputed}" if disputed else ""
                md5 = str(data.get("content_md5") or "") or None
                latest[key] = (stamp, Verdict(document_id, str(verdict), reviewer, note, md5))
    return [v for _, v in latest.values()]
