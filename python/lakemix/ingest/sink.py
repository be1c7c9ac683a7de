"""Buffer rows in columns and write them as Parquet data files inside an Iceberg table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from pyiceberg.table import Table

ROWS_PER_GROUP = 16_384
BYTES_PER_GROUP = 32 << 20  # text held in memory before a row group is written
BYTES_PER_FILE = 512 << 20


class ParquetSink:
    """Rows in, Parquet data files under ``<table location>/data/`` out.

    Memory stays bounded: at most one row group (``BYTES_PER_GROUP`` of text) is buffered.
    The files are not part of the table until they are committed (``add_files``).
    """

    def __init__(self, table: Table, schema: pa.Schema, prefix: str) -> None:
        self._table = table
        self._schema = schema
        self._prefix = prefix
        self._columns: dict[str, list[Any]] = {name: [] for name in schema.names}
        self._buffered_bytes = 0
        self._file_bytes = 0
        self._writer: pq.ParquetWriter | None = None
        self._stream: Any = None
        self.paths: list[str] = []
        self.rows = 0

    def append(self, row: dict[str, Any], size: int) -> None:
        """Add one row; ``size`` is roughly its bytes (for flushing)."""
        for name, values in self._columns.items():
            values.append(row[name])
        self._buffered_bytes += size
        self.rows += 1
        if (
            len(self._columns[self._schema.names[0]]) >= ROWS_PER_GROUP
            or self._buffered_bytes >= BYTES_PER_GROUP
        ):
            self._flush()

    def _flush(self) -> None:
        if not self._columns[self._schema.names[0]]:
            return
        batch = pa.RecordBatch.from_pydict(self._columns, schema=self._schema)
        if self._writer is None:
            path = f"{self._table.location()}/data/{self._prefix}-{len(self.paths):05d}.parquet"
            self._stream = self._table.io.new_output(path).create(overwrite=True)
            self._writer = pq.ParquetWriter(self._stream, self._schema, compression="zstd")
            self.paths.append(path)
            self._file_bytes = 0
        self._writer.write_batch(batch)
        self._file_bytes += self._buffered_bytes
        self._columns = {name: [] for name in self._schema.names}
        self._buffered_bytes = 0
        if self._file_bytes >= BYTES_PER_FILE:
            self._close_file()

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._stream.close()
            self._writer = None

    def close(self) -> list[str]:
        """Write what is buffered and return the data files written."""
        self._flush()
        self._close_file()
        return self.paths

    def discard(self) -> None:
        """Delete the files written so far (they were never committed)."""
        self._close_file()
        for path in self.paths:
            self._table.io.delete(path)
        self.paths = []
