"""The Megatron writer on a hand-made token store, read back by Megatron-Core's reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from lakemix.export.megatron import MegatronShard, locate
from lakemix.export.shards import Piece, cut
from lakemix.loader.reader import TokenStore
from lakemix.loader.store import SCHEMA

DOCUMENTS = [("a", [5, 6, 7, 0], 1), ("b", [8, 0], 2), ("c", [9, 9, 9, 9, 9, 0], 1)]


@pytest.fixture
def store(tmp_path: Path) -> TokenStore:
    """Three documents in two record batches (the store's chunks), with repeats 1, 2, 1."""
    path = tmp_path / "store.arrow"
    with pa.ipc.new_file(str(path), SCHEMA.with_metadata({"eot": "0"})) as writer:
        for part in (DOCUMENTS[:1], DOCUMENTS[1:]):
            ids, tokens, repeats = zip(*part, strict=True)
            writer.write_batch(
                pa.record_batch(
                    [
                        pa.array(ids),
                        pa.array(["en"] * len(ids)),
                        pa.array(range(len(ids)), pa.uint64()),
                        pa.array(repeats, pa.int64()),
                        pa.array(tokens, pa.list_(pa.int32())),
                    ],
                    schema=SCHEMA,
                )
            )
    return TokenStore(path)


@pytest.mark.parametrize("dtype", [np.uint16, np.int32])
def test_megatron_core_reads_every_copy(store: TokenStore, tmp_path: Path, dtype: type) -> None:
    from megatron.core.datasets.indexed_dataset import IndexedDataset

    shard = MegatronShard(store, tmp_path / "train-00000", np.dtype(dtype))
    rows = np.arange(3, dtype=np.int64)
    piece = Piece(rows, np.ones(3, dtype=np.int64))
    shard.write(piece, 0, 2)
    shard.write(piece, 2, 3)
    record = shard.close()
    assert record["counts"] == {"documents": 3, "copies": 4, "tokens": 14}
    assert record["next"] == {"row": 3}
    data = IndexedDataset(str(tmp_path / "train-00000"))
    assert data.index.dtype == dtype
    assert [d.tolist() for d in data[0:4]] == [[5, 6, 7, 0], [8, 0], [8, 0], [9, 9, 9, 9, 9, 0]]
    assert data.document_indices.tolist() == [0, 1, 2, 3, 4]
    assert data.get(3, offset=1, length=2).tolist() == [9, 9]
    assert locate(tmp_path / "train-00000", document=2) == {
        "index": 2,
        "document_id": "b",
        "copy": 1,
        "token_start": 6,
        "token_count": 2,
    }
    assert locate(tmp_path / "train-00000", token=8)["document_id"] == "c"
    with pytest.raises(IndexError, match="token 14 is outside"):
        locate(tmp_path / "train-00000", token=14)
    with pytest.raises(FileNotFoundError, match="no document map"):
        locate(tmp_path / "nothing", document=0)


def test_cut_ends_a_shard_with_the_document_that_fills_it() -> None:
    sizes = np.array([3, 3, 3, 3], dtype=np.int64)
    assert cut(0, sizes, 6) == 2
    assert cut(5, sizes, 6) == 1  # the first document fills it
    assert cut(0, sizes, 100) is None
    assert cut(0, sizes, 1) == 1  # a shard holds at least one document


def test_sizes_parse_or_are_refused() -> None:
    import click

    from lakemix.export.commands import parse_size

    assert parse_size("256MiB") == 256 << 20
    assert parse_size("1.5GB") == 1_500_000_000
    assert parse_size("40000") == parse_size("40kB") == 40_000
    for bad in ("big", "0MB", "-1", "12 parsecs"):
        with pytest.raises(click.BadParameter, match="is not a size"):
            parse_size(bad)
