"""Files mapped to be read at random: the kernel is told so (no read-around), the bytes are the
file's, and Arrow reads out of the mapping."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from lakemix.mapped import random_access


def advice_flags(path: Path) -> list[list[str]]:
    """The ``VmFlags`` of each mapping of ``path`` in this process (``rr``: random reads)."""
    flags, current = [], None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping's header
            current = fields[5] if len(fields) > 5 else None
        elif fields[0] == "VmFlags:" and current == str(path):
            flags.append(fields[1:])
    return flags


def test_a_file_is_mapped_for_random_reads(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 4096)
    buffer = random_access(path)
    assert buffer.to_pybytes() == path.read_bytes()
    flags = advice_flags(path)
    assert flags and all("rr" in f for f in flags)
    del buffer
    assert not advice_flags(path)  # unmapped with its last reference


def test_arrow_reads_an_ipc_file_out_of_the_mapping(tmp_path: Path) -> None:
    path = tmp_path / "texts.arrow"
    table = pa.table({"text": pa.array(["a", "bc", None, "dé"], pa.large_string())})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    read = pa.ipc.open_file(pa.BufferReader(random_access(path))).read_all()
    assert read.equals(table)
    assert advice_flags(path)  # the columns point into the mapping: it is kept


def test_an_empty_file_is_an_empty_buffer(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.touch()
    assert random_access(path).size == 0


def resident(buffer: pa.Buffer) -> list[bool]:
    """Whether each page of ``buffer`` (a whole mapping) is in memory (mincore)."""
    import ctypes
    import mmap

    pages = (buffer.size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    vector = (ctypes.c_ubyte * pages)()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    assert libc.mincore(buffer.address, buffer.size, vector) == 0, ctypes.get_errno()
    return [bool(v & 1) for v in vector]


def test_will_need_reads_the_pages_of_the_ranges_and_no_others(tmp_path: Path) -> None:
    import mmap
    import os
    import time

    import numpy as np

    from lakemix.mapped import will_need

    page = mmap.PAGESIZE
    path = tmp_path / "data.bin"
    path.write_bytes(os.urandom(64 * page))
    fd = os.open(path, os.O_RDONLY)
    os.fdatasync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    buffer = random_access(path)
    assert not any(resident(buffer))  # dropped from the page cache
    base = buffer.address
    # Out of order, overlapping, one empty: pages 3-4, 10, 11 (touching 10) and 40.
    starts = np.array([40 * page + 5, 3 * page + 1, 10 * page, 10 * page + 9, 50 * page])
    stops = np.array([40 * page + 6, 5 * page, 11 * page + 1, 10 * page + 20, 50 * page])
    will_need(base + starts, base + stops)
    wanted = {3, 4, 10, 11, 40}
    deadline = time.monotonic() + 10
    while not all(resident(buffer)[p] for p in wanted) and time.monotonic() < deadline:
        time.sleep(0.01)
    pages = resident(buffer)
    assert {p for p, r in enumerate(pages) if r} == wanted
