"""MixLoader: a released mix as a deterministic, resumable, sharded stream of packed batches."""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lakemix.loader.boundaries import check_extra_fields
from lakemix.loader.drivers import NOT_A_DATASET, TrainerIntegrationError, check_driver
from lakemix.loader.ranks import check_process_group, find_ranks
from lakemix.loader.reader import TokenStore
from lakemix.loader.resume import check_ranks
from lakemix.loader.schedule import Cursor, Schedule
from lakemix.loader.workers import close_at_exit, forget, stop_workers
from lakemix.settings import Settings

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from lakemix.versions.manifest import Manifest


STATE_FORMAT = 1
SPLITS = ("train", "validation")
PLACE = ("epoch", "schedule", "cursor")  # a state's place in a static mix
DYNAMIC_PLACE = ("step", "origin", "draws", "items", "open")  # in a dynamic one


@dataclass(frozen=True)
class Position:
    """A rank's place after a batch (``MixLoader.position()``); ``state_dict(at=...)`` turns
    it into a state. Holds the planner's own dict, shared, never edited: no copy is made."""

    place: Mapping[str, Any]


def resolve_release(
    mix: str, tag: str | None, settings: Settings, built: Manifest | None = None
) -> Manifest:
    """The manifest of release ``tag`` of ``mix`` (the newest release of the mix when None);
    ``built``: the tag's manifest beside its token store, when the caller has read it.

    Raises:
        lakemix.versions.ReleaseError: No such tag, or no release of that mix.
        ValueError: The tag is a release of another mix.
    """
    from lakemix.loader.store import built_manifest
    from lakemix.versions import ReleaseError, get_release, list_releases

    if tag is None:
        mine = [m for m in list_releases(settings) if m.mix == mix]
        if not mine:
            mixes = sorted({m.mix for m in list_releases(settings)})
            raise ReleaseError(
                f"no release of mix {mix!r} (released mixes: {', '.join(mixes) or 'none'}); "
                f"run `lakemix release {mix} --tag TAG` first"
            )
        return mine[-1]
    manifest = built or built_manifest(tag, settings) or get_release(tag, settings)
    if manifest.mix != mix:
        raise ValueError(f"release {tag!r} is of mix {manifest.mix!r}, not {mix!r}")
    return manifest


class MixLoader:
    """Batches of packed token sequences from one split of a released mix.

    Iterating gives the rest of the current epoch (a whole one from its start); iterating again
    gives the next. Each epoch is every (document,
    copy) of the split exactly once, in an order shuffled by ``(seed, epoch)``, split across
    ranks so that each goes to exactly one. See docs/loader.md.

    Args:
        mix: The mix name (``mixes/<mix>.yml``).
        tag: The release tag; the mix's newest release when None.
        split: ``train`` or ``validation``.
        seq_len: Tokens per sequence (inputs; each sequence reads ``seq_len + 1``).
        batch_size: Sequences per batch.
        rank, world_size: This process's place. When None: ``torch.distributed``'s once a
            process group is initialized, else torchrun's ``RANK`` and ``WORLD_SIZE``, else
            0 of 1 (``lakemix.loader.ranks``).
        num_workers: Worker threads or processes that build batches (0: in the caller).
        seed: Seed of the shuffle.
        worker_method: ``thread`` or ``process``.
        extra_fields: Per-token tensors to add to each batch, any of ``attention_mask``,
            ``segment_ids``, ``position_ids`` (``lakemix.loader.boundaries`` derives them from
            ``cu_seqlens`` too). A batch always has ``input_ids``, ``labels`` (a view of the
            inputs' memory one token on: ``.clone()`` before editing either in place),
            ``cu_seqlens`` and ``document_ids``. A dynamic mix's batches may carry
            ``group_ids`` too (the group of each input token, to split the loss by group).
        groups: Read the release as a dynamic mix grouped by this column of the clean mart
            (a mix file with ``groups:`` is one already). Its batches never end: a group that
            runs out starts over; ``set_weights`` changes the weights (docs/loader.md).
        weights: The weights to start with (default: the mix file's schedule, else each
            group's share of the release's tokens).
        settings: The lakehouse; from the environment when None.

    Raises:
        ReleaseError: Unknown tag, or no release of the mix.
        ValueError: Bad option, or an empty split.
    """

    def __init__(
        self,
        *,
        mix: str,
        tag: str | None = None,
        split: str = "train",
        seq_len: int,
        batch_size: int,
        rank: int | None = None,
        world_size: int | None = None,
        num_workers: int = 0,
        seed: int = 0,
        worker_method: Literal["thread", "process"] = "thread",
        extra_fields: Sequence[str] = (),
        groups: str | None = None,
        weights: Mapping[str, float] | None = None,
        settings: Settings | None = None,
    ) -> None:
        from lakemix.loader.store import Preload, build_store, built_manifest, preload_hint

        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
        if seq_len < 2:
            raise ValueError(f"seq_len must be at least 2, got {seq_len}")
        if batch_size < 1 or num_workers < 0:
            raise ValueError(
                f"batch_size must be >= 1 and num_workers >= 0, got {batch_size}, {num_workers}"
            )
        if worker_method not in ("thread", "process"):
            raise ValueError(f"worker_method must be 'thread' or 'process', got {worker_method!r}")
        self.extra_fields = check_extra_fields(extra_fields)
        # A place found (not given) is checked again when iterating: a process group that
        # appears later with another size would otherwise duplicate data silently.
        self._found = rank is None or world_size is None
        if rank is None or world_size is None:
            found = find_ranks()
            rank = found[0] if rank is None else rank
            world_size = found[1] if world_size is None else world_size
        if not 0 <= rank < world_size:
            raise ValueError(f"rank must be in [0, world_size), got rank {rank} of {world_size}")
        self.settings = settings = settings or Settings.from_env()
        # Unless a store of the release exists, the catalog is read (pyiceberg's import alone
        # takes 0.5 s) and the store likely built: what the build needs loads meanwhile.
        built = built_manifest(tag, settings) if tag is not None else None
        preload = Preload(settings, preload_hint(tag, settings)) if built is None else None
        try:
            self.manifest = resolve_release(mix, tag, settings, built)
            self.store_path: Path = build_store(self.manifest, split, settings, preload=preload)
        finally:
            if preload is not None:
                preload.close()
        self.mix, self.tag, self.split = mix, self.manifest.tag, split
        self.seq_len, self.batch_size, self.seed = seq_len, batch_size, seed
        self.rank, self.world_size = rank, world_size
        self.num_workers, self.worker_method = num_workers, worker_method
        self.store = TokenStore(self.store_path)
        self.samples_per_epoch = int(self.store.repeats.sum())
        where = f"split {split!r} of release {self.tag} ({mix})"
        if self.samples_per_epoch == 0:
            raise ValueError(f"{where} has no samples (its splits: {self._splits()})")
        if self.samples_per_epoch < world_size:
            raise ValueError(
                f"{where} has {self.samples_per_epoch} samples, fewer than the {world_size} ranks"
            )
        from lakemix.loader.dynamic_mix import dynamic_mix

        self.dynamic = dynamic_mix(
            self.store, self.manifest, settings, by=groups, weights=weights, where=where
        )
        if self.dynamic is None and "group_ids" in self.extra_fields:
            raise ValueError("extra field group_ids needs a dynamic mix: pass groups='language'")
        if self.dynamic is not None:
            self.history = self.dynamic.history
            # each group's first epoch after an elastic resume; groups warned of (max_epochs)
            self._firsts: list[Any] | None = None
            # every rank's state where an elastic resume took over (lineage reads it)
            self._before: list[dict[str, Any]] | None = None
            self._orders: list[Any] | None = None  # each group's shuffled epochs
            # (firsts, the group streams, their Lookahead): kept while set_weights rebuilds the
            # planner, so a change of weights looks up no group's rows again
            self._built_streams: tuple[Any, list[Any], Any] | None = None
            # the step of the last set_weights, and (every, at) of the changes expected next
            self._changed: int | None = None
            self._cadence: tuple[int, int] | None = None
            self._warned: set[int] = set()
            self._check_groups()
        self._start: dict[str, Any] | None = None
        self._state: dict[str, Any] | None = None
        self._pool: Any = None  # the Materializers' memory blocks (materialize.Blocks)
        # The torchdata stream runs on across epochs (workers live on); each __iter__ call
        # yields one epoch of it, and keeps the first batch of the next one here.
        self._stream: Iterator[tuple[dict[str, Any], dict[str, Any]]] | None = None
        self._ahead: tuple[dict[str, Any], dict[str, Any]] | None = None
        self._mapper: Any = None  # the stream's torchdata ParallelMapper (its workers)

    def _splits(self) -> str:
        counts: dict[str, int] = {}
        for row in self.manifest.stats:
            counts[row.split] = counts.get(row.split, 0) + row.samples
        return ", ".join(f"{k} {v} samples" for k, v in sorted(counts.items())) or "none"

    def _check_groups(self) -> None:
        assert self.dynamic is not None
        for k, name in enumerate(self.dynamic.names):
            samples = int(self.store.repeats[self.dynamic.rows_of(k)].sum())
            if samples < self.world_size:
                raise ValueError(
                    f"group {name!r} has {samples} samples in split {self.split!r} of release "
                    f"{self.tag}, fewer than the {self.world_size} ranks: group by another column"
                )

    def token_bytes(self) -> NDArray[np.int32]:
        """Bytes of text of each token id of the release's tokenizer (index: the id; 0 for
        end-of-text): ``labels`` looked up in it give each predicted token's bytes, to report a
        group's loss per byte rather than per token."""
        from lakemix.loader.store import token_byte_lengths, tokenizer_of

        return token_byte_lengths(tokenizer_of(self.manifest))

    @property
    def group_names(self) -> tuple[str, ...]:
        """The groups of a dynamic mix, in the order of ``group_ids`` (empty for a static mix)."""
        return () if self.dynamic is None else self.dynamic.names

    def _planner(self) -> Any:
        from lakemix.loader.planner import BatchPlanner

        if self.dynamic is None:
            return BatchPlanner(
                keys=self.store.keys,
                repeats=self.store.repeats,
                lengths=self.store.lengths,
                seq_len=self.seq_len,
                batch_size=self.batch_size,
                rank=self.rank,
                world_size=self.world_size,
                seed=self.seed,
                start=self._start,
            )
        from lakemix.loader.dynamic import DynamicPlanner

        streams, look = self._group_streams()
        return DynamicPlanner(
            streams=streams,
            lookahead=look,
            lengths=self.store.lengths,
            history=self.history,
            seq_len=self.seq_len,
            batch_size=self.batch_size,
            rank=self.rank,
            world_size=self.world_size,
            seed=self.seed,
            max_epochs=self.dynamic.groups.max_epochs,
            cap=self.dynamic.groups.when_exhausted == "cap",
            start=self._start,
            warned=self._warned,
            cadence=self._cadence,
        )

    def _group_streams(self) -> tuple[list[Any], Any]:
        """Each group's stream and the windows of their rows (``Lookahead``), built again only
        when the groups' first epochs change (an elastic resume), not when the weights do."""
        from lakemix.loader.dynamic import stream_first
        from lakemix.loader.groups import GroupStream
        from lakemix.loader.lookahead import Lookahead

        assert self.dynamic is not None
        firsts = self._firsts or [None] * len(self.dynamic.names)
        if self._built_streams is None or self._built_streams[0] != firsts:
            streams = [
                GroupStream(
                    orders.rows,
                    self.store.keys,
                    self.store.repeats,
                    rank=self.rank,
                    world_size=self.world_size,
                    seed=self.seed,
                    first=stream_first(firsts[k]),
                    orders=orders,
                )
                for k, orders in enumerate(self._group_orders())
            ]
            self._built_streams = (list(firsts), streams, Lookahead(streams))
        return self._built_streams[1], self._built_streams[2]

    def _group_orders(self) -> list[Any]:
        """Each group's shuffled epochs: built once, kept while ``set_weights`` rebuilds the
        planner (a change of weights then costs no shuffle of the epochs being read)."""
        from lakemix.loader.groups import GroupOrders

        assert self.dynamic is not None
        if self._orders is None:
            self._orders = [
                GroupOrders(self.dynamic.rows_of(k), self.store.keys, self.store.repeats, self.seed)
                for k in range(len(self.dynamic.names))
            ]
        return self._orders

    def _build(self) -> Any:
        from torchdata.nodes import Loader, Mapper, ParallelMapper, Unbatcher

        from lakemix.loader.materialize import (
            BLOCKS,
            GROUP_BATCHES,
            GROUP_TOKENS,
            Blocks,
            Materializer,
            unpack,
        )
        from lakemix.loader.planner import Grouper

        planner = self._planner()
        # torchdata's ParallelMapper has up to two groups a worker in flight
        blocks = BLOCKS + 2 * self.num_workers
        if self._pool is None:  # kept across rebuilds (set_weights): fresh memory page-faults
            self._pool = Blocks(blocks)
        materialize = Materializer(
            self.store_path,
            opened=self.store,  # a process worker opens its own
            seq_len=self.seq_len,
            pad_id=self.store.eot,
            extra_fields=self.extra_fields,
            blocks=blocks,
            pool=self._pool,
        )
        # Consecutive plans are built together (numpy's per-call costs, and with workers the
        # hand-over, are paid once a group); the batches come out one by one, in order.
        group = min(GROUP_BATCHES, max(1, GROUP_TOKENS // (self.batch_size * self.seq_len)))
        cut = None
        if self.dynamic is not None and self._cadence is not None:
            every, at = self._cadence  # a group ends where the weights are expected to change

            def cut(plan: Any) -> bool:
                return (int(plan.state["step"]) - at) % every == 0

        # Workers hand over whole groups; they are cut into batches in this process.
        mapped = self._mapper = ParallelMapper(
            Grouper(planner, group, cut),
            materialize.build,
            num_workers=self.num_workers,
            method=self.worker_method,
        )
        return Loader(Unbatcher(Mapper(mapped, unpack)), restart_on_stop_iteration=False)

    def __len__(self) -> int:
        """Refused: an epoch's length is known once it is read; a ``len`` is asked by code that
        takes the loader for a dataset (a Trainer's ``train_dataset``, a ``DataLoader``).

        Raises:
            TrainerIntegrationError: Always (a ``TypeError``, as for an object without length).
        """
        raise TrainerIntegrationError(NOT_A_DATASET)

    def __bool__(self) -> bool:
        return True  # not ``len(self) > 0``

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The rest of the current epoch (all of the next one once it is done); a dynamic
        mix's batches without end.

        Raises:
            TrainerIntegrationError: Lightning's or the Hugging Face Trainer asks for the first
                batch itself (it would resume wrong): the message names the integration.
        """
        check_driver(sys._getframe(1))  # the frame that asks for the first batch
        if self._found:
            check_process_group(self.rank, self.world_size)
        ahead = self._next()
        epoch = ahead[1].get("epoch")
        while ahead[1].get("epoch") == epoch:
            batch, self._state = ahead
            self._ahead = None
            yield batch
            ahead = self._next()

    def _next(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The next batch and the state after it (a stream dropped by ``set_weights`` or
        ``load_state_dict`` is built again from where it stopped)."""
        if self._stream is None:
            self._stream = iter(self._build())
            self._start = None
            if self.num_workers:
                close_at_exit(self)
        if self._ahead is None:
            self._ahead = next(self._stream)
        return self._ahead

    def close(self) -> None:
        """Stop the worker threads or processes (they build batches ahead until then).

        Nothing is lost: iterating again continues after the last batch handed out, with new
        workers. Trainer integrations close the loader when training ends; a loader still
        open at interpreter exit is closed then (``lakemix.loader.workers``).
        """
        forget(self)
        mapper, self._mapper = self._mapper, None  # also a stream dropped by set_weights
        if self._stream is not None:
            self._start, self._state = dict(self.position().place), None
            self._stream = self._ahead = None
        stop_workers(mapper)

    def position(self) -> Position:
        """Where this rank is now, as a token for ``state_dict(at=...)``: cheap (no copy), so a
        trainer that fetches ahead can take one after every batch and save the state of the
        batch it last trained on."""
        position = self._state or self._start
        if position is None and self.dynamic is not None:
            position = {
                "step": 0,
                "origin": [0, 0],
                "draws": 0,
                "items": [0] * len(self.dynamic.names),
                "open": [-1, 0],
            }
        if position is None:
            position = {
                "epoch": 0,
                "schedule": Schedule(self.samples_per_epoch, self.world_size).to_dict(),
                "cursor": [0, 0],
            }
        return Position(position)

    @property
    def step(self) -> int:
        """Batches this rank has handed out in a dynamic mix's run (the next batch's step)."""
        if self.dynamic is None:
            raise ValueError("step counts the batches of a dynamic mix; this mix is static")
        return int(self.position().place["step"])

    def weights(self, step: int | None = None) -> dict[str, float]:
        """The group weights in force at ``step`` (the next batch's when None)."""
        planner = self._clock()
        at = planner.tokens_at(self.step if step is None else step)
        return dict(zip(self.group_names, self.history.at(at).tolist(), strict=True))

    def _clock(self) -> Any:
        from lakemix.loader.dynamic import Clock

        origin = self.position().place["origin"]
        return Clock(
            (int(origin[0]), int(origin[1])), self.seq_len * self.batch_size, self.world_size
        )

    def set_weights(self, weights: Mapping[str, float], at_step: int | None = None) -> None:
        """Use ``weights`` (group: weight, summing to 1) from batch ``at_step`` on (the next
        batch when None): every rank must set the same weights at the same step (decide
        them from all-reduced losses). Batches fetched ahead from that step on are planned
        again; the change is kept in the state and the run record.

        Raises:
            ValueError: A static mix, an unknown group, a bad sum, or a step already handed out.
        """
        from lakemix.loader.weights import Change, weight_vector

        if self.dynamic is None:
            raise ValueError(
                f"mix {self.mix} is static: declare groups in its mix file or pass groups= to "
                "the loader to change weights"
            )
        step = self.step if at_step is None else int(at_step)
        if step < self.step:
            raise ValueError(
                f"step {step} was handed out already (the next batch is step {self.step}); "
                "set weights for a later step"
            )
        vector = weight_vector(weights, self.group_names)
        tokens = self._clock().tokens_at(step)
        self.history = self.history.with_change(Change(step, tokens, tuple(vector.tolist())))
        if self._changed is not None and step > self._changed:  # plan for the same cadence
            self._cadence = (step - self._changed, step)
        self._changed = step
        # Plans from `step` on may be made with the old weights: plan again from here.
        self._start, self._state = dict(self.position().place), None
        self._stream = self._ahead = None

    def dynamic_record(self, states: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        """What a run record says of a dynamic mix (None for a static one): its groups and the
        weights over the run, up to the step of ``states``."""
        if self.dynamic is None:
            return None
        from lakemix.loader.dynamic import Clock, Clocks

        step = max(int(s["step"]) for s in states)
        clocks, before = [self._clock()], self._before
        while before:  # the world sizes before each elastic resume, latest first
            origin, world = before[0]["origin"], int(before[0]["world_size"])
            tokens = self.seq_len * self.batch_size
            clocks.insert(0, Clock((int(origin[0]), int(origin[1])), tokens, world))
            before = before[0].get("before")
        clock = Clocks(clocks)
        return {
            "groups_by": self.dynamic.groups.by,
            "group_names": list(self.dynamic.names),
            "group_of_row": self.dynamic.group_of_row,
            "weights_trajectory": self.history.trajectory(clock.tokens_at, clock.steps_until, step),
            "run_tokens": clock.tokens_at(step),
        }

    def state_dict(self, at: Position | None = None) -> dict[str, Any]:
        """Where this rank is: pass it to ``load_state_dict`` to continue exactly from here.

        For an elastic resume (another world size), gather every rank's state (e.g. with
        ``torch.distributed.all_gather_object``) and pass the list to ``load_state_dict``.

        Args:
            at: A ``position()`` taken earlier: the state as it was then (now when None).
        """
        position = (at or self.position()).place
        dynamic = {}
        if self.dynamic is not None:
            dynamic = {
                "weights": self.history.to_dict(),
                "firsts": self._firsts,
                "before": self._before,
            }
        return copy.deepcopy(
            {
                **dynamic,
                "format": STATE_FORMAT,
                "mix": self.mix,
                "tag": self.tag,
                "split": self.split,
                "seed": self.seed,
                "rank": self.rank,
                "world_size": self.world_size,
                **position,  # its schedule is shared with the planner's other states: a deep copy
            }
        )

    def load_state_dict(self, state: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        """Continue from a state: this rank's own, or the states of every rank of a run.

        Args:
            state: ``state_dict()`` of this rank (same world size: an exact resume), or a list
                of the ``state_dict()`` of every rank of a run: at the same world size each rank
                continues its own (exact); at another, an elastic resume (every sample no rank
                had started is read exactly once by the new ranks; a sample a rank was in the
                middle of continues from its next token).

        Raises:
            ValueError: A state of another release, split or seed, or an incomplete set of
                ranks.
        """
        states = [state] if isinstance(state, Mapping) else list(state)
        if not states:
            raise ValueError("no state to load")
        for s in states:
            self._check(s)
        first = states[0]
        keys = PLACE if self.dynamic is None else DYNAMIC_PLACE
        if len(states) == 1 and first["world_size"] == self.world_size:
            if first["rank"] != self.rank:
                raise ValueError(
                    f"the state is rank {first['rank']}'s; this is rank {self.rank} (pass the "
                    "states of every rank, as a list, when a checkpoint holds them all)"
                )
            position = {k: first[k] for k in keys}
        elif first["world_size"] == self.world_size:
            # Every rank's state, at the same world size: this rank continues its own (exact).
            if self.dynamic is None:
                merge_states(states, self.world_size)  # checks that they are one run's, complete
            else:
                check_ranks(states)
            mine = next(s for s in states if s["rank"] == self.rank)
            position = {k: mine[k] for k in keys}
        elif self.dynamic is None:
            position = merge_states(states, self.world_size)
        else:
            from lakemix.loader.resume import merge_dynamic

            position, self._firsts = merge_dynamic(self, states)
            self._before = sorted((dict(s) for s in states), key=lambda s: int(s["rank"]))
        if self.dynamic is not None:
            if len(states) == 1 or first["world_size"] == self.world_size:
                self._firsts, self._before = first.get("firsts"), first.get("before")
            self.history = self.dynamic.history.changes_from(first["weights"])
        self._start, self._state = position, None
        self._stream = self._ahead = None

    def _check(self, state: Mapping[str, Any]) -> None:
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"not a MixLoader state (format {state.get('format')!r})")
        mine = {"mix": self.mix, "tag": self.tag, "split": self.split, "seed": self.seed}
        theirs = {k: state.get(k) for k in mine}
        if theirs != mine:
            raise ValueError(
                f"the state is of {theirs}, this loader reads {mine}: a checkpoint of another "
                "run; resume with a loader of that release, mix, split and seed, or start anew"
            )


def merge_states(states: Sequence[Mapping[str, Any]], world_size: int) -> dict[str, Any]:
    """The position (epoch, schedule, cursor at 0) that the rest of a run's epoch starts from.

    Args:
        states: ``MixLoader.state_dict()`` of every rank of one run, in any order.
        world_size: The number of ranks that will read the rest.
    """
    epochs = {int(s["epoch"]) for s in states}
    sizes = {int(s["world_size"]) for s in states}
    if len(epochs) != 1 or len(sizes) != 1:
        raise ValueError(f"the states are of several epochs or runs: {epochs}, {sizes}")
    ranks = sorted(int(s["rank"]) for s in states)
    size = sizes.pop()
    if ranks != list(range(size)):
        raise ValueError(f"need the state of every rank 0..{size - 1}, got ranks {ranks}")
    by_rank = {int(s["rank"]): s for s in states}
    schedules = {repr(by_rank[r]["schedule"]) for r in ranks}
    if len(schedules) != 1:
        raise ValueError("the ranks' states disagree on the schedule: not one run's states")
    schedule = Schedule.from_dict(by_rank[0]["schedule"])
    cursors = [Cursor(*(int(v) for v in by_rank[r]["cursor"])) for r in ranks]
    return {
        "epoch": epochs.pop(),
        "schedule": schedule.remaining(cursors, world_size).to_dict(),
        "cursor": [0, 0],
    }
