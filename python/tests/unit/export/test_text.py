"""The Parquet shard writes the same bytes for the same rows, however they are batched."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lakemix.export.shards import Piece
from lakemix.export.text import ROW_GROUP, SCHEMA, ParquetShard


def rows(n: int) -> pa.RecordBatch:
    columns = {
        "document_id": [f"{i:08d}" for i in range(n)],
        "text": [f"text of document {i} " * (100 + i % 50) for i in range(n)],  # pages
        "repeat_count": [1 + i % 3 for i in range(n)],
        "token_count": [10 + i % 5 for i in range(n)],
    }
    arrays = [pa.array(columns.get(f.name, [None] * n), f.type) for f in SCHEMA]
    return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)


def test_same_rows_same_bytes(tmp_path: Path) -> None:
    batch = rows(3 * ROW_GROUP + 17)
    digests = set()
    for name, cuts in (
        ("one", [0, batch.num_rows]),
        ("many", [0, 5, 700, 2100, 2101, batch.num_rows]),
    ):
        shard = ParquetShard(tmp_path / f"{name}.parquet")
        for start, stop in itertools.pairwise(cuts):
            piece = Piece(batch.slice(start, stop - start), np.zeros(stop - start, np.int64))
            shard.write(piece, 0, stop - start)
        record = shard.close()
        path = tmp_path / f"{name}.parquet"
        assert record["files"][path.name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert record["counts"]["copies"] == sum(batch.column("repeat_count").to_pylist())
        table = pq.read_table(path)
        assert table.equals(pa.Table.from_batches([batch]))
        assert pq.ParquetFile(path).metadata.num_row_groups == 4
        digests.add(record["files"][path.name]["sha256"])
    assert len(digests) == 1
