"""Run records: what a training run read, written beside its checkpoint, and read back.

A run record (``run.json``) names the release (tag, mix, checksum, the snapshot id of every
table) and holds the loader state of every rank. The state says exactly which samples of the
current epoch were started, so the documents a run consumed can be listed at any later time.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from lakemix.errors import LakemixError
from lakemix.loader.order import epoch_order
from lakemix.loader.reader import TokenStore
from lakemix.loader.schedule import Schedule
from lakemix.settings import Settings

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

RUN_RECORD = "run.json"


class RunRecordError(LakemixError, ValueError):
    """A folder without a readable run record."""


def started(states: Sequence[Mapping[str, Any]], total: int) -> tuple[int, np.ndarray]:
    """``(epoch, mask)``: the current epoch of a run and which of its positions were started.

    Args:
        states: The ``MixLoader.state_dict()`` of every rank of the run.
        total: Samples in an epoch.
    """
    from lakemix.loader.mix_loader import merge_states

    rest = merge_states(states, 1)
    schedule = Schedule.from_dict(rest["schedule"])
    if schedule.total != total:
        raise RunRecordError(f"the states are of an epoch of {schedule.total} samples, not {total}")
    mask = np.ones(total, dtype=bool)
    mask[schedule.tail :] = False
    for position, start in schedule.pending:
        if start == 0:
            mask[position] = False
    return int(rest["epoch"]), mask


def write_run_record(
    directory: str | Path,
    *,
    manifest: Manifest,
    states: Sequence[Mapping[str, Any]],
    store: TokenStore,
    extra: Mapping[str, Any] | None = None,
    dynamic: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``run.json`` in ``directory`` (atomically) and return its path.

    Args:
        directory: The checkpoint folder.
        manifest: The release manifest (``MixLoader.manifest``).
        states: The loader state of every rank.
        store: The loader's token store (``MixLoader.store``), to count samples and tokens.
        extra: More fields (steps, checkpoint file, ...).
        dynamic: A dynamic mix's ``groups_by``, ``group_names``, ``group_of_row``,
            ``weights_trajectory`` and ``run_tokens`` (``MixLoader.dynamic_record()``): the
            record then says the epochs read of each group and the weights over the run.
    """
    total = int(store.repeats.sum())
    first = states[0]
    if dynamic is not None:
        from lakemix.loader.resume import copies_read

        copies, epochs = copies_read(
            store.keys, store.repeats, dynamic["group_of_row"], states, int(first["seed"])
        )
        seen = int(copies.sum())
        more: dict[str, Any] = {
            "groups_by": dynamic["groups_by"],
            "group_epochs": dict(zip(dynamic["group_names"], epochs, strict=True)),
            "weights_trajectory": dynamic["weights_trajectory"],
            "run_tokens": dynamic.get("run_tokens"),
        }
    else:
        epoch, mask = started(states, total)
        seen, more = epoch * total + int(mask.sum()), {}
    record = {
        "written_at": datetime.now(UTC).isoformat(),
        "tag": manifest.tag,
        "mix": manifest.mix,
        "checksum": manifest.checksum,
        "split": first["split"],
        "seed": first["seed"],
        "snapshots": {k: v.snapshot_id for k, v in manifest.snapshots.items()},
        "samples_seen": seen,
        "loader": sorted((dict(s) for s in states), key=lambda s: int(s["rank"])),
        **more,
        **(extra or {}),
    }
    path = Path(directory) / RUN_RECORD
    partial = path.with_name(f".{RUN_RECORD}.partial")
    partial.write_bytes(orjson.dumps(record, option=orjson.OPT_INDENT_2))
    os.replace(partial, path)
    return path


def read_run_record(directory: str | Path) -> dict[str, Any]:
    """The run record in ``directory``."""
    path = Path(directory) / RUN_RECORD
    if not path.is_file():
        raise RunRecordError(f"no run record at {path}: pass the folder a training run wrote")
    try:
        record: dict[str, Any] = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise RunRecordError(f"{path} is not a run record: {exc}") from None
    return record


def run_documents(
    directory: str | Path, settings: Settings | None = None
) -> tuple[dict[str, Any], list[tuple[str, str, int]]]:
    """The documents a run consumed: ``(record, [(document_id, language, copies), ...])``.

    A copy counts once the run started it (a document cut at a checkpoint counts). Sorted by
    document id.
    """
    from lakemix.loader.mix_loader import resolve_release
    from lakemix.loader.store import build_store

    settings = settings or Settings.from_env()
    record = read_run_record(directory)
    manifest = resolve_release(record["mix"], record["tag"], settings)
    if manifest.checksum != record["checksum"]:
        raise RunRecordError(
            f"release {record['tag']} has checksum {manifest.checksum}, the run read "
            f"{record['checksum']}: not the release this run read"
        )
    store = TokenStore(build_store(manifest, record["split"], settings))
    if "groups_by" in record:  # a dynamic mix: each group's stream
        from lakemix.loader.dynamic_mix import dynamic_mix
        from lakemix.loader.resume import copies_read

        mix = dynamic_mix(store, manifest, settings, by=record["groups_by"])
        assert mix is not None
        copies, _ = copies_read(
            store.keys, store.repeats, mix.group_of_row, record["loader"], int(record["seed"])
        )
    else:
        total = int(store.repeats.sum())
        epoch, mask = started(record["loader"], total)
        copies = store.repeats * epoch
        order = epoch_order(store.keys, store.repeats, seed=int(record["seed"]), epoch=epoch)
        np.add.at(copies, order.rows[mask], 1)
    counts = Counter({row: int(n) for row, n in enumerate(copies.tolist()) if n})
    rows = [(store.document_id(r), store.language(r), n) for r, n in counts.items()]
    return record, sorted(rows)


def format_run(
    directory: str | Path, settings: Settings | None = None, *, label: str | None = None
) -> str:
    """``lakemix lineage --run DIR``: the run's release, then one line per consumed document.

    ``label`` names the run in the first line (its folder when None).
    """
    record, documents = run_documents(directory, settings)
    copies = sum(n for _, _, n in documents)
    ranks = len(record["loader"])
    lines = [
        f"run {label or directory}: release {record['tag']} ({record['mix']}, checksum "
        f"{record['checksum']}), split {record['split']}, seed {record['seed']}, "
        f"{ranks} rank{'s' if ranks > 1 else ''}",
        f"samples seen: {record['samples_seen']} ({copies} document copies started, "
        f"{len(documents)} documents)",
        *(f"snapshot {name}: {sid}" for name, sid in sorted(record["snapshots"].items())),
        *_dynamic_lines(record),
        "",
        f"{'document_id':<40}  {'language':<8}  copies",
        *(f"{d:<40}  {lang:<8}  {n}" for d, lang, n in documents),
    ]
    return "\n".join(lines)


def _dynamic_lines(record: Mapping[str, Any]) -> list[str]:
    """A dynamic run's groups: epochs read of each, and the weights where they changed."""
    if "groups_by" not in record:
        return []
    epochs = ", ".join(f"{g} {e:.2f}" for g, e in sorted(record["group_epochs"].items()))
    lines = [f"groups by {record['groups_by']}, epochs read: {epochs}"]
    for row in record["weights_trajectory"]:
        shown = ", ".join(f"{g} {w:.3f}" for g, w in row["weights"].items() if w > 0)
        lines.append(f"weights from step {row['step']} ({row['tokens']} tokens): {shown}")
    return lines
