"""What every export format provides: pieces of rows to write, and shards to write them to."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Piece:
    """Consecutive documents of the export, in its order.

    Attributes:
        data: The documents (a format's own kind: a record batch, store rows, ...).
        sizes: Bytes each document adds to its shard (what ``--shard-size`` counts).
    """

    data: Any
    sizes: NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.sizes)


class Shard(Protocol):
    """One shard being written under temporary names."""

    def write(self, piece: Piece, start: int, stop: int) -> None:
        """Append documents ``start:stop`` of ``piece``."""

    def close(self) -> dict[str, Any]:
        """Publish the files; return the shard's record: ``files`` (name: bytes and SHA-256),
        ``counts`` (documents, ...) and ``next`` (where the following shard starts)."""


class Format(Protocol):
    """An export format over one release split."""

    name: str

    def pieces(self, resume_at: dict[str, Any] | None) -> Iterator[Piece]:
        """The documents, in a fixed order, from the start or from ``resume_at`` (a shard's
        ``next``)."""

    def open_shard(self, stem: str) -> Shard:
        """A new shard whose files are named ``<stem>.<extension>``."""

    def options(self) -> dict[str, Any]:
        """What, besides release, split and format, a resumed export must share."""

    def card(self) -> str:
        """The part of the README that says how to read the files."""


def cut(filled: int, sizes: NDArray[np.int64], limit: int) -> int | None:
    """How many of ``sizes`` fit in a shard holding ``filled`` bytes of at most ``limit``: the
    document that reaches the limit is the shard's last (a shard holds at least one). None
    when all of them fit without reaching it."""
    reached = np.flatnonzero(filled + np.cumsum(sizes) >= limit)
    return int(reached[0]) + 1 if len(reached) else None
