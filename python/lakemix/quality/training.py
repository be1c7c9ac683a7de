"""``lakemix quality train``: a quality model from labelled documents, judged on held-out ones.

Labels are JSON Lines, one document a line: ``text``, ``label`` (``keep``/``drop``, 1/0 or
true/false), and optionally ``language`` (each language weighs alike in the loss) and ``source``
(where the document comes from). The rule of the project is to fit on one source and report on
another: with ``holdout_source`` the documents of that source are held out; without it, a tenth
of the documents (chosen by a hash of the text) is, and the report says that those figures come
from the sources the model was fit on. The model written is the one the figures describe: fit
without the held-out documents. Its file records the labels' SHA-256, the counts and the
held-out figures; its name is the first 12 hex digits of its own SHA-256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakemix import tables
from lakemix.errors import LakemixError

_KEEP = {"keep": 1, "1": 1, "true": 1, "drop": 0, "0": 0, "false": 0}


class LabelsError(LakemixError, ValueError):
    """A labels file that cannot be trained on: names the file, the line and what is wrong."""


@dataclass(frozen=True)
class Labelled:
    """One labelled document."""

    text: str
    label: int
    language: str
    source: str


@dataclass(frozen=True)
class TrainResult:
    """What ``train_from_labels`` wrote and measured."""

    path: Path
    digest: str
    fitted: int
    held_out: int
    held_out_by: str
    metrics: dict[str, float]
    labels_sha256: str = ""


def read_labels(paths: Iterable[Path]) -> tuple[list[Labelled], str]:
    """The labelled documents of ``paths`` and the SHA-256 of their bytes, in order.

    Raises:
        LabelsError: A file is missing, a line is no JSON object, or has no text or label.
    """
    out: list[Labelled] = []
    digest = hashlib.sha256()
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise LabelsError(f"{path}: cannot read the labels ({error.strerror})") from None
        digest.update(data)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if line.strip():
                out.append(_record(line, f"{path}:{number}"))
    if not out:
        raise LabelsError(f"no labelled documents in {', '.join(map(str, paths))}")
    return out, digest.hexdigest()


def lakehouse_labels(
    conn: Any,
    *,
    reviews: bool = False,
    keep_sources: Sequence[str] = (),
    drop_sources: Sequence[str] = (),
) -> tuple[list[Labelled], str]:
    """Labelled documents from the lakehouse open on ``conn`` (``open_session``), and a digest
    of what was read: with ``reviews``, every reviewed document under its reviewers' majority
    verdict (latest per reviewer; a tie is left out), ``good`` as keep, its source the review
    (``review``) so that ``--holdout-source review`` judges a model on the verdicts; and every
    document of the ingested sources declared reference (keep) or junk (drop). Texts are the
    normalized ones the model scores (``int_documents_language_scored``).

    Raises:
        LabelsError: A source declared both ways, or one the lakehouse has not ingested.
    """
    both = sorted(set(keep_sources) & set(drop_sources))
    if both:
        raise LabelsError(f"source(s) {both} declared both reference and junk")
    declared = [*keep_sources, *drop_sources]
    if declared:
        known = {
            str(r[0])
            for r in conn.execute(
                f"select distinct source_id from {tables.LANGUAGE_SCORED}"
            ).fetchall()
        }
        missing = sorted(set(declared) - known)
        if missing:
            raise LabelsError(f"no ingested source {missing}; sources: {sorted(known)}")
    out: list[Labelled] = []
    digest = hashlib.sha256()
    if declared:
        rows = conn.execute(
            f"select document_id, text, language, source_id from {tables.LANGUAGE_SCORED} "
            "where source_id in (select unnest(cast(? as varchar[]))) order by document_id",
            [declared],
        ).fetchall()
        for document_id, text, language, source in rows:
            label = 1 if source in keep_sources else 0
            out.append(Labelled(text=text or "", label=label, language=language, source=source))
            digest.update(f"{document_id}:{label}\n".encode())
    if reviews:
        schema, name = tables.split(tables.REVIEW_VERDICTS)
        present = conn.execute(
            "select count(*) from information_schema.tables where table_schema = ? "
            "and table_name = ?",
            [schema, name],
        ).fetchone()
        if not present or not present[0]:
            raise LabelsError(
                "no review verdicts yet: `lakemix review sample --strategy uncertainty`, then "
                "`lakemix review label`"
            )
        rows = conn.execute(
            f"""
            with latest as (
                select document_id, reviewer, verdict from {tables.REVIEW_VERDICTS}
                qualify row_number() over (
                    partition by document_id, reviewer order by labeled_at desc
                ) = 1
            ),
            majority as (
                select document_id, count_if(verdict = 'good') - count_if(verdict = 'bad') as lead
                from latest group by document_id having lead != 0
            )
            select m.document_id, d.text, d.language, m.lead > 0
            from majority as m
            inner join {tables.LANGUAGE_SCORED} as d using (document_id)
            order by m.document_id
            """
        ).fetchall()
        for document_id, text, language, good in rows:
            out.append(
                Labelled(text=text or "", label=int(good), language=language, source="review")
            )
            digest.update(f"review:{document_id}:{int(good)}\n".encode())
    return out, digest.hexdigest()


def _record(line: str, where: str) -> Labelled:
    try:
        record = json.loads(line)
    except ValueError as error:
        raise LabelsError(f"{where}: not JSON ({error})") from None
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        raise LabelsError(f"{where}: needs an object with a string field text")
    label = _KEEP.get(str(record.get("label")).lower())
    if label is None:
        raise LabelsError(
            f"{where}: label must be keep or drop (or 1/0, true/false), got {record.get('label')!r}"
        )
    return Labelled(
        text=record["text"],
        label=label,
        language=str(record.get("language") or ""),
        source=str(record.get("source") or ""),
    )


def held_out(doc: Labelled, holdout_source: str | None) -> bool:
    """Whether ``doc`` is held out: of ``holdout_source``, or without one, about one in ten."""
    if holdout_source is not None:
        return doc.source == holdout_source
    return hashlib.sha256(doc.text.encode()).digest()[0] < 26  # about one in ten


def metrics(labels: list[int], scores: list[float], threshold: float = 0.5) -> dict[str, float]:
    """Accuracy, and precision and recall of keep, at ``threshold``."""
    keep = [s >= threshold for s in scores]
    tp = sum(1 for k, y in zip(keep, labels, strict=True) if k and y == 1)
    kept, positives = sum(keep), sum(labels)
    correct = sum(1 for k, y in zip(keep, labels, strict=True) if k == (y == 1))
    return {
        "accuracy": correct / len(labels) if labels else 0.0,
        "precision": tp / kept if kept else 0.0,
        "recall": tp / positives if positives else 0.0,
    }


def train_from_labels(
    paths: list[Path],
    *,
    out_folder: Path,
    holdout_source: str | None = None,
    seed: int = 0,
    out: Path | None = None,
    extra: tuple[list[Labelled], str] | None = None,
) -> TrainResult:
    """Train on the labels of ``paths`` (and ``extra``: documents and their digest, from
    ``lakehouse_labels``) without the held-out documents, measure on them, write the model.

    Raises:
        LabelsError: Bad labels, a held-out source that no document has, or nothing left to fit
            on or to measure.
    """
    import pyarrow as pa

    from lakemix.udf.quality_model.train import train

    docs, labels_digest = read_labels(paths) if paths else ([], "")
    if extra is not None:
        docs = docs + extra[0]
        labels_digest = hashlib.sha256(f"{labels_digest}:{extra[1]}".encode()).hexdigest()
    if not docs:
        raise LabelsError("no labelled documents: give --labels, --reviews or a declared source")
    held = [d for d in docs if held_out(d, holdout_source)]
    fit = [d for d in docs if not held_out(d, holdout_source)]
    if holdout_source is not None and not held:
        sources = sorted({d.source for d in docs})
        raise LabelsError(f"no document has source {holdout_source!r}; sources: {sources}")
    if not held or len({d.label for d in fit}) < 2:
        raise LabelsError(
            f"{len(fit)} documents to fit on and {len(held)} to measure on: fitting needs keep "
            "and drop labels, measuring at least one document"
        )
    held_out_by = f"source {holdout_source}" if holdout_source else "a tenth, same sources"
    info: dict[str, Any] = {
        "trained_by": "lakemix quality train",
        "labels_sha256": labels_digest,
        "held_out_by": held_out_by,
    }
    model = train(
        [d.text for d in fit],
        [d.label for d in fit],
        groups=[d.language for d in fit],
        seed=seed,
        info=info,
    )
    scores = model.score(pa.array([d.text for d in held], pa.large_string())).tolist()
    measured = metrics([d.label for d in held], scores)
    model.info["held_out"] = {"documents": len(held), **measured}
    digest = model.digest
    path = out or out_folder / f"{digest[:12]}.lqm"
    model.save(path)
    return TrainResult(path, digest, len(fit), len(held), held_out_by, measured, labels_digest)


TRAININGS_SCHEMA = (
    ("trained_at", "timestamp"),
    ("sha256", "string"),
    ("path", "string"),
    ("labels_sha256", "string"),
    ("fitted_documents", "int64"),
    ("held_out_documents", "int64"),
    ("held_out_by", "string"),
    ("accuracy", "float64"),
    ("precision", "float64"),
    ("recall", "float64"),
)


def record_training(catalog: Any, result: TrainResult) -> None:
    """Append one ``lakemix quality train`` to ``meta.quality_models``: the model, the labels
    it was fit on and its held-out figures, so the report draws labels against accuracy (the
    learning curve) across the trainings of a lakehouse."""
    from datetime import UTC, datetime

    import pyarrow as pa

    from lakemix.iceberg import commit_with_retry, ensure_table

    types = {"timestamp": pa.timestamp("us", tz="UTC"), "string": pa.string()}
    types |= {"int64": pa.int64(), "float64": pa.float64()}
    schema = pa.schema([(name, types[kind]) for name, kind in TRAININGS_SCHEMA])
    row = {
        "trained_at": datetime.now(UTC),
        "sha256": result.digest,
        "path": str(result.path.resolve()),
        "labels_sha256": result.labels_sha256,
        "fitted_documents": result.fitted,
        "held_out_documents": result.held_out,
        "held_out_by": result.held_out_by,
        **{k: float(result.metrics[k]) for k in ("accuracy", "precision", "recall")},
    }
    rows = pa.Table.from_pylist([row], schema=schema)
    ensure_table(catalog, tables.QUALITY_MODELS, schema)
    commit_with_retry(catalog, tables.QUALITY_MODELS, lambda table: table.append(rows))
