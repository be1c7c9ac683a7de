"""Iceberg commit conflicts: retried on a fresh table, and a loser that says what to do."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.table import Table

from lakemix import catalog
from lakemix.iceberg import commit_with_retry, ensure_table
from lakemix.iceberg.commit import CommitConflictError
from lakemix.settings import Settings

ROWS = pa.table({"n": pa.array([1], pa.int64())})


def test_a_lost_commit_is_retried_on_a_fresh_table(lakehouse: Settings) -> None:
    cat = catalog(lakehouse)
    ensure_table(cat, "meta.counter", ROWS.schema).append(ROWS)
    seen: list[int | None] = []

    def append(table: Table) -> None:
        seen.append(table.metadata.current_snapshot_id)
        if len(seen) == 1:
            cat.load_table("meta.counter").append(ROWS)  # a concurrent writer wins
            raise CommitFailedException("lost to the concurrent writer")
        table.append(ROWS)

    commit_with_retry(cat, "meta.counter", append)
    assert len(cat.load_table("meta.counter").scan().to_arrow()) == 3  # nothing lost
    assert seen[1] != seen[0]  # the retry saw the winner's snapshot


def test_a_writer_that_always_loses_says_what_to_do(lakehouse: Settings) -> None:
    cat = catalog(lakehouse)
    ensure_table(cat, "meta.counter", ROWS.schema)

    def lose(table: Table) -> None:
        raise CommitFailedException("conflict")

    with pytest.raises(CommitConflictError, match=r"meta\.counter: 3 commits in a row lost"):
        commit_with_retry(cat, "meta.counter", lose, retries=3)
    with pytest.raises(CommitConflictError, match="Run the same command again"):
        commit_with_retry(cat, "meta.counter", lose, retries=1)
