"""Commit to an Iceberg table, retrying when a concurrent writer committed first."""

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


class CommitConflictError(LakemixError, RuntimeError):
    """Every retry of a commit lost to a concurrent writer."""


def commit_with_retry(
    catalog: Catalog,
    identifier: str,
    attempt: Callable[[Table], T],
    *,
    retries: int = 8,
) -> T:
    """Run ``attempt`` on a freshly loaded table until its commit is not in conflict.

    ``attempt`` must decide what to commit from the table it is given (so that a retry sees
    what the winner of the conflict committed) and commit it.

    Raises:
        CommitConflictError: after ``retries`` conflicts, naming the table and what to do.
    """
    from pyiceberg.exceptions import CommitFailedException

    for n in range(retries):
        table = catalog.load_table(identifier)
        try:
            return attempt(table)
        except CommitFailedException:
            time.sleep(min(2.0, 0.05 * 2**n) * (0.5 + random.random()))
    raise CommitConflictError(
        f"{identifier}: {retries} commits in a row lost to concurrent writers; "
        "nothing was committed by this run. "
        "Run the same command again once the other writers finish."
    )
