"""What a loader needs of a dynamic mix: its groups, each document's group, the weight history.

The groups and schedule come from the release's own copy of the mix file (the manifest keeps
it), so a later edit of ``mixes/<name>.yml`` does not change a released run. A loader may be
given them too (``MixLoader(groups=..., weights=...)``), to drive a static mix's release with
weights chosen online.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from lakemix.loader.reader import TokenStore
from lakemix.loader.weights import WeightHistory, weight_vector
from lakemix.mix.schedule import Groups
from lakemix.mix.spec import MixSpec, MixSpecError, parse
from lakemix.settings import Settings
from lakemix.tables import CLEAN_DOCUMENTS

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest


@dataclass(frozen=True)
class DynamicMix:
    """The groups of a loader's documents and their weights over the run.

    Attributes:
        groups: How documents are grouped, and what happens when one runs out.
        names: The group names, sorted.
        group_of_row: The group (index into ``names``) of each stored document.
        history: The weights over the run (the schedule; changes are added online).
    """

    groups: Groups
    names: tuple[str, ...]
    group_of_row: NDArray[np.int64]
    history: WeightHistory

    def rows_of(self, group: int) -> NDArray[np.int64]:
        """The store rows of group ``group``."""
        return np.flatnonzero(self.group_of_row == group).astype(np.int64)


def released_spec(manifest: Manifest) -> MixSpec | None:
    """The mix file as the release recorded it (None if the manifest holds no copy)."""
    import yaml

    path = f"mixes/{manifest.mix}.yml"
    text = manifest.config_files.get(path)
    if text is None:
        return None
    return parse(yaml.safe_load(text), f"{path} of release {manifest.tag}")


def labels(store: TokenStore, manifest: Manifest, by: str, settings: Settings) -> list[str]:
    """The value of column ``by`` of ``marts.fct_clean_documents`` for each stored document
    (``language`` is in the store; another column is read at the release's pinned snapshot).

    Raises:
        MixSpecError: The clean mart has no such column.
    """
    if by == "language":
        return [str(v) for v in store._column("language").to_pylist()]
    from lakemix.catalog import catalog
    from lakemix.duck import connect
    from lakemix.iceberg.views import scan_sql

    clean = CLEAN_DOCUMENTS
    table = catalog(settings).load_table(clean)
    columns = [f.name for f in table.schema().fields]
    if by not in columns:
        raise MixSpecError(f"groups.by: {clean} has no column {by!r}; its columns: {columns}")
    scan = scan_sql(table, int(manifest.snapshots[clean].snapshot_id))
    conn = connect(settings=settings, extensions=("avro", "iceberg"))
    try:
        ids = store._column("document_id")
        stored = pa.table({"document_id": ids, "row": np.arange(len(ids), dtype=np.int64)})
        conn.register("stored", stored)
        rows = conn.execute(
            f'select cast(c."{by}" as varchar) from stored s left join {scan} c '
            "using (document_id) order by s.row"
        ).fetchall()
    finally:
        conn.close()
    return [str(value) for (value,) in rows]


def dynamic_mix(
    store: TokenStore,
    manifest: Manifest,
    settings: Settings,
    *,
    by: str | None = None,
    weights: Mapping[str, float] | None = None,
    where: str = "the store",
) -> DynamicMix | None:
    """The loader's dynamic mix: from the release's mix file, or ``by`` and ``weights`` given;
    None for a static mix given neither. ``where`` names the store (its split) in errors.

    Raises:
        ValueError: Weights of an unknown group, or that do not sum to 1; a schedule that
            weights a group the store has no document of (a small validation split).
    """
    spec = released_spec(manifest)
    groups = spec.groups if spec is not None else None
    if by is not None:
        groups = Groups(by=by) if groups is None or groups.by != by else groups
    if groups is None:
        if weights is not None:
            raise ValueError("weights= needs groups: pass groups='language' (or another column)")
        return None
    values = labels(store, manifest, groups.by, settings)
    names = tuple(sorted(set(values)))
    index = {name: k for k, name in enumerate(names)}
    group_of_row = np.array([index[v] for v in values], dtype=np.int64)
    schedule = spec.schedule if spec is not None and (by is None or by == groups.by) else None
    if weights is not None:
        initial = weight_vector(weights, names, "weights")
        schedule = None
    else:  # each group's share of the release's tokens
        tokens = np.bincount(group_of_row, store.lengths * store.repeats, minlength=len(names))
        initial = tokens / tokens.sum()
    if schedule is not None:
        absent = sorted(set(schedule.groups) - set(names))
        if absent:
            raise ValueError(
                f"{where} holds no documents of group(s) {', '.join(absent)}, which the release's "
                f"schedule weights (a split holds a fraction of each group's documents): pass "
                f"weights= over the groups it has ({', '.join(names)}) to stream it"
            )
        weight_vector(schedule.weights_at(0), names, "the release's schedule")
    history = WeightHistory(names, tuple(initial.tolist()), schedule)
    return DynamicMix(groups, names, group_of_row, history)
