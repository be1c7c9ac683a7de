"""Local files memory-mapped to be read at random.

A page fault on a mapped file makes the kernel read the pages around the one asked for too (its
read-around, as large as the disk's ``read_ahead_kb``: 8 MB on the machines of the benchmarks).
For a file read at random that guess is wrong, and once the file is larger than the memory
left for the page cache it is ruinous: each read pulls in megabytes and evicts what the reads
before it pulled in. Looking up the 72,115 texts of a day's new pairs in the 12 GB text store
of a 5.5M-document lakehouse, in 2 GiB of memory, read 458 GB from disk in 317 s; mapped with
``MADV_RANDOM`` it read 0.63 GB in 10.9 s (``docs/benchmarks.md``).
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


def random_access(path: Path) -> pa.Buffer:
    """The whole file at ``path``, mapped read-only with ``MADV_RANDOM`` (a fault reads the
    page it needs, not its neighbours). The mapping lives as long as the buffer and whatever
    Arrow reads out of it without copying (``pa.ipc.open_file(pa.BufferReader(buffer))``).

    Raises:
        FileNotFoundError: No file at ``path``.
    """
    import pyarrow as pa

    with path.open("rb") as f:
        if not path.stat().st_size:
            return pa.py_buffer(b"")
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    mapped.madvise(mmap.MADV_RANDOM)
    return pa.py_buffer(mapped)
