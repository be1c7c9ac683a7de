"""Commit to an Iceberg table, retrying when a concurrent writer committed first.

pyiceberg retries a commit that lost a race by itself: up to the table property
``commit.retry.num-retries`` (default 4) times it rebuilds the snapshot on the winner's
metadata and commits again, without calling back into the caller (see
/work/shared/REFERENCE.md, pyiceberg 0.12). A commit whose content was decided from the table
(ingest's ledger, an incremental model's watermark) would be replayed onto a table that
already holds what the winner committed: the rows twice. Every table lakemix commits to
through ``commit_with_retry`` therefore has that property at 0, so a lost race raises
``CommitFailedException`` and ``commit_with_retry`` re-runs the caller's decision on the
fresh table instead.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lakemix.errors import LakemixError

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

T = TypeVar("T")

# pyiceberg's TableProperties.COMMIT_NUM_RETRIES; "0": a lost race raises instead of replaying.
REPLAY_PROPERTY = "commit.retry.num-retries"
NO_REPLAY = {REPLAY_PROPERTY: "0"}


class CommitConflictError(LakemixError, RuntimeError):
    """Every retry of a commit lost to a concurrent writer."""


def replays(table: Table) -> bool:
    """Whether pyiceberg would replay a lost commit on ``table`` without asking lakemix."""
    return table.metadata.properties.get(REPLAY_PROPERTY) != "0"


def forbid_replay(table: Table) -> Table:
    """Set ``commit.retry.num-retries=0`` on ``table`` (a metadata-only commit) unless set.

    Raises:
        CommitFailedException: a concurrent writer committed meanwhile (retry on a fresh table).
    """
    if not replays(table):
        return table
    with table.transaction() as tx:
        tx.set_properties(NO_REPLAY)
    return table


def commit_with_retry(
    catalog: Catalog,
    identifier: str,
    attempt: Callable[[Table], T],
    *,
    retries: int = 8,
) -> T:
    """Run ``attempt`` on a freshly loaded table until its commit is not in conflict.

    ``attempt`` must decide what to commit from the table it is given (so that a retry sees
    what the winner of the conflict committed) and commit it. pyiceberg's own replay of a lost
    commit is switched off on the table first (``forbid_replay``): it would commit the old
    decision onto the new table.

    Raises:
        CommitConflictError: after ``retries`` conflicts, naming the table and what to do.
    """
    from pyiceberg.exceptions import CommitFailedException

    for n in range(retries):
        table = catalog.load_table(identifier)
        try:
            return attempt(forbid_replay(table))
        except CommitFailedException:
            time.sleep(min(2.0, 0.05 * 2**n) * (0.5 + random.random()))
    raise CommitConflictError(
        f"{identifier}: {retries} commits in a row lost to concurrent writers; "
        "nothing was committed by this run. "
        "Run the same command again once the other writers finish."
    )
