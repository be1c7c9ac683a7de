"""Where a loader finds its rank: ``torch.distributed``, else the launcher's environment.

Trainers build their data loader before or after they initialize the process group, and some
(Lightning, the Hugging Face Trainer) only under a launcher. So, as Mosaic Streaming does, a
rank comes from ``torch.distributed`` once a process group is initialized, else from the
environment that torchrun (and Lightning's and accelerate's launchers) set: ``RANK``,
``WORLD_SIZE`` and ``LOCAL_RANK``. When both are there they must agree, and a process group
that appears after a loader took its place from neither must be of that place's size:
otherwise every process would silently read the same data.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from lakemix.errors import LakemixError

ENV_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK")


class RankError(LakemixError, RuntimeError):
    """The rank of this process cannot be told, or its sources disagree."""


def env_ranks(environ: Mapping[str, str] | None = None) -> tuple[int, int] | None:
    """``(rank, world_size)`` from torchrun's environment; None when ``WORLD_SIZE`` is unset.

    Raises:
        RankError: ``WORLD_SIZE`` without ``RANK``, a value that is not a number, or a rank
            outside ``[0, WORLD_SIZE)``.
    """
    env = os.environ if environ is None else environ
    if "WORLD_SIZE" not in env:
        return None
    values = {name: env.get(name) for name in ENV_VARS}
    if values["RANK"] is None:
        raise RankError(
            f"WORLD_SIZE={values['WORLD_SIZE']} is set but RANK is not: launch with torchrun "
            "(it sets both), or pass rank= and world_size= to the loader"
        )
    try:
        rank, world_size = int(values["RANK"]), int(values["WORLD_SIZE"] or "")
        local = None if values["LOCAL_RANK"] is None else int(values["LOCAL_RANK"])
    except ValueError:
        shown = ", ".join(f"{k}={v!r}" for k, v in values.items() if v is not None)
        raise RankError(f"the launcher's environment is not numbers: {shown}") from None
    if not 0 <= rank < world_size or (local is not None and not 0 <= local <= rank):
        raise RankError(
            f"the launcher's environment is inconsistent: RANK={rank}, WORLD_SIZE={world_size}"
            f", LOCAL_RANK={local}; unset them or launch with torchrun"
        )
    return rank, world_size


def group_ranks() -> tuple[int, int] | None:
    """``(rank, world_size)`` of the initialized default process group; None without one."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None


def find_ranks() -> tuple[int, int]:
    """This process's ``(rank, world_size)``: the process group's, else torchrun's, else 0 of 1.

    Raises:
        RankError: The process group and the environment disagree, or the environment is bad.
    """
    group, env = group_ranks(), env_ranks()
    if group is not None and env is not None and group != env:
        raise RankError(
            f"torch.distributed says rank {group[0]} of {group[1]} but the environment says "
            f"RANK={env[0]} WORLD_SIZE={env[1]}: the process group was not initialized from "
            "this launcher's environment; pass rank= and world_size= to the loader explicitly"
        )
    return group or env or (0, 1)


def check_process_group(rank: int, world_size: int) -> None:
    """Check that a place found earlier still holds now that a process group may exist.

    Raises:
        RankError: A process group of another place was initialized after the loader was
            built (every rank would read the same samples).
    """
    group = group_ranks()
    if group is not None and group != (rank, world_size):
        raise RankError(
            f"the loader took rank {rank} of {world_size}, but torch.distributed now says rank "
            f"{group[0]} of {group[1]}: the process group was initialized after the loader was "
            "built, outside torchrun; build the loader after init_process_group, or pass "
            "rank= and world_size="
        )


def end_process_group(settle: float = 0.5) -> None:
    """Destroy ``torch.distributed``'s process groups once every rank is done with them; call
    it at the end of a training script (every rank). Nothing to do without a process group.

    Left to the interpreter's exit, gloo's threads can abort the process ("terminate called
    without an active exception"). Destroyed at once, a gloo group can hang its process: its
    worker threads drop the collectives they ran after the callers are woken, and one that
    drops the last reference to a tensor needs the GIL, while the group's destructor (run when
    the last holder, such as a DDP model, is freed) joins those threads holding it. So every
    rank first meets the others (a barrier), then lets the workers settle (``settle`` seconds
    with the GIL released) before the groups go.
    """
    import time

    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return
    dist.barrier()
    time.sleep(settle)
    dist.destroy_process_group()
