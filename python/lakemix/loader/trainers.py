"""What every trainer integration shares: the state of the batch last trained on, every rank's.

A trainer fetches batches before it trains on them (Lightning always one ahead, to know the
epoch's end; others a whole gradient accumulation). Saving the loader's own state then skips
those batches at every resume. ``TrainedBatches`` is the loader as such a trainer sees it: it
keeps the place after every batch it hands out, in order; the trainer's hook says when the
oldest one is trained on; the state saved is the place after that batch. A trainer that keeps
the loader state of rank 0 only in its checkpoint gets every rank's from ``gather_states``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakemix.loader.mix_loader import MixLoader, Position
from lakemix.loader.runs import write_run_record

if TYPE_CHECKING:
    from lakemix.tracking import RunTracker


class TrainedBatches:
    """The batches of a ``MixLoader``, and the state after the last one a trainer trained on.

    Give this to the trainer instead of the loader; call ``trained()`` once per batch, in
    order, when the trainer starts (or ends) its step on it. It has no ``state_dict`` on
    purpose: a trainer that saves the state of its data loader itself (Lightning) would save
    rank 0's only, and load it into every rank; the integration saves every rank's.

    Args:
        loader: The loader whose batches to hand out.
    """

    def __init__(self, loader: MixLoader) -> None:
        self.loader = loader
        # The place after each batch handed out and not yet trained on, oldest first.
        self._handed: deque[Position] = deque()
        self._trained = loader.position()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The rest of the epoch; batches fetched before and never trained on come again."""
        if self._handed:  # a trainer dropped an iterator that had fetched ahead: go back
            self.loader.load_state_dict(self.trained_state())
            self._handed.clear()
        return self._batches()

    def _batches(self) -> Iterator[dict[str, Any]]:
        for batch in self.loader:
            self._handed.append(self.loader.position())
            yield batch

    def trained(self) -> None:
        """The oldest batch handed out and not yet marked is (being) trained on.

        Raises:
            RuntimeError: No batch is waiting: the trainer reads another loader, or marks a
                batch twice.
        """
        if not self._handed:
            raise RuntimeError(
                "a batch was marked as trained but none of this loader's is waiting: give the "
                "trainer the integration's batches (not the MixLoader itself), and mark each "
                "batch once"
            )
        self._trained = self._handed.popleft()

    @property
    def waiting(self) -> int:
        """Batches handed out and not yet trained on (what the trainer fetched ahead)."""
        return len(self._handed)

    def trained_state(self) -> dict[str, Any]:
        """This rank's loader state after the last batch trained on."""
        return self.loader.state_dict(at=self._trained)

    def close(self) -> None:
        """Training ended: stop the loader's workers (``MixLoader.close``). Iterated again, the
        batches continue after the last one trained on (those fetched ahead come again)."""
        self.loader.close()
        if self._handed:
            self.load(self.trained_state())

    def load(self, state: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        """Continue from a state (this rank's, or every rank's: ``MixLoader.load_state_dict``)."""
        self.loader.load_state_dict(state)
        self._handed.clear()
        self._trained = self.loader.position()


def gather_states(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every rank's loader state, in rank order, on every rank (``state`` is this rank's).

    A collective under ``torch.distributed``: every rank must call it. Without a process group
    it is the list of this one state.
    """
    from lakemix.loader.ranks import group_ranks

    group = group_ranks()
    if group is None or group[1] == 1:
        return [dict(state)]
    import torch.distributed as dist

    states: list[Any] = [None] * group[1]
    dist.all_gather_object(states, dict(state))
    return sorted(states, key=lambda s: int(s["rank"]))


def record_run(
    loader: MixLoader,
    directory: str | Path,
    states: Sequence[Mapping[str, Any]],
    extra: Mapping[str, Any] | None = None,
    *,
    tracker: RunTracker | None = None,
) -> Path | None:
    """Write the run record (``run.json``) into ``directory`` on rank 0; None on other ranks.

    Args:
        loader: The run's loader (its release and token store).
        directory: The folder ``lakemix lineage --run`` will be given.
        states: Every rank's loader state (``gather_states``).
        extra: More fields (steps, trainer, checkpoint, ...).
        tracker: The run's MLflow tracker (``lakemix.loader.tracked.start_tracking``): the
            record names its MLflow run (or why tracking is off) and is logged as an artifact.
    """
    if loader.rank != 0:
        return None
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    extra = dict(extra or {})
    if tracker is not None:
        extra["tracking"] = tracker.link()
    path = write_run_record(
        folder,
        manifest=loader.manifest,
        states=states,
        store=loader.store,
        extra=extra,
        dynamic=loader.dynamic_record(states),
    )
    if tracker is not None:
        tracker.checkpoint(path, step=int(extra.get("steps", 0)))
    return path
