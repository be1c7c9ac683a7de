"""Local files memory-mapped to be read at random.

A page fault on a mapped file makes the kernel read the pages around the one asked for too (its
read-around, as large as the disk's ``read_ahead_kb``: 8 MB on the machines of the benchmarks).
For a file read at random that guess is wrong, and once the file is larger than the memory
left for the page cache it is ruinous: each read pulls in megabytes and evicts what the reads
before it pulled in. 72,115 random lookups in the 12 GB text store of a 6M-document lakehouse,
in 2 GiB of memory, read 779 GB from disk in 638 s; mapped here, 0.64 GB in 13.8 s
(``bench/text_store.py``, ``docs/benchmarks.md``).

Without read-around each page a read touches is a fault of its own, waited for alone: a reader
that knows what it will touch says so first (``will_need``), and the kernel reads those pages
together.
"""

from __future__ import annotations

import ctypes
import functools
import mmap
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray


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


@functools.cache
def _madvise() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    return libc.madvise


def will_need(starts: NDArray[np.int64], stops: NDArray[np.int64]) -> None:
    """Ask the kernel to read the pages of the byte ranges ``[starts[i], stops[i])`` now, all at
    once (``MADV_WILLNEED``), before they are read. The ranges are memory addresses inside a
    mapping (``pa.Buffer.address`` plus offsets), in any order; empty ones are skipped. Advice
    only: nothing is read here and a refusal is ignored."""
    import numpy as np

    keep = stops > starts
    if not keep.any():
        return
    page = mmap.PAGESIZE
    first, last = starts[keep] // page, (stops[keep] - 1) // page
    order = np.argsort(first, kind="stable")
    first, last = first[order], np.maximum.accumulate(last[order])
    # A run of pages ends where the next range starts after the pages so far, not next to them.
    breaks = np.flatnonzero(first[1:] > last[:-1] + 1) + 1
    begin, end = first[np.append(0, breaks)], last[np.append(breaks - 1, len(first) - 1)]
    madvise = _madvise()
    for b, e in zip(begin.tolist(), end.tolist(), strict=True):
        madvise(b * page, (e - b + 1) * page, mmap.MADV_WILLNEED)
