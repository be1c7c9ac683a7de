"""Where the loader finds its rank: torch.distributed, else torchrun's environment."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import torch.distributed as dist

from lakemix.loader.ranks import RankError, check_process_group, env_ranks, find_ranks


@pytest.fixture
def no_launcher(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def group_of_one(no_launcher: pytest.MonkeyPatch) -> Iterator[None]:
    """A real (gloo) process group of one process, rank 0 of 1."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_torchrun_environment_gives_the_rank(no_launcher: pytest.MonkeyPatch) -> None:
    assert find_ranks() == (0, 1)
    no_launcher.setenv("RANK", "1")
    assert find_ranks() == (0, 1)  # RANK alone is not a launcher's
    no_launcher.setenv("WORLD_SIZE", "2")
    no_launcher.setenv("LOCAL_RANK", "1")
    assert find_ranks() == (1, 2)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"WORLD_SIZE": "2"}, "WORLD_SIZE=2 is set but RANK is not"),
        ({"WORLD_SIZE": "two", "RANK": "0"}, "not numbers: RANK='0', WORLD_SIZE='two'"),
        ({"WORLD_SIZE": "2", "RANK": "2"}, "inconsistent: RANK=2, WORLD_SIZE=2"),
        ({"WORLD_SIZE": "4", "RANK": "1", "LOCAL_RANK": "3"}, "LOCAL_RANK=3"),
    ],
)
def test_a_bad_environment_is_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(RankError, match=message):
        env_ranks(env)


def test_the_process_group_wins_and_must_agree(
    group_of_one: None, no_launcher: pytest.MonkeyPatch
) -> None:
    assert find_ranks() == (0, 1)
    check_process_group(0, 1)
    no_launcher.setenv("RANK", "1")
    no_launcher.setenv("WORLD_SIZE", "2")
    with pytest.raises(RankError, match=r"rank 0 of 1 but the environment says RANK=1"):
        find_ranks()
    # A loader that took 1 of 2 from somewhere before this group of one appeared.
    with pytest.raises(RankError, match=r"took rank 1 of 2, but torch.distributed now says"):
        check_process_group(1, 2)
