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
