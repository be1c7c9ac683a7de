"""Every entry of a walked folder is read, or left with a reason; one bad entry never raises."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from lakemix.ingest.inputs import IngestInputError, expand_paths


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """corpus/: two files, a FIFO, a symlink loop, a link to nowhere, a link to a device, a
    subfolder, hidden and other-format files."""
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    for name in ("a.jsonl", "sub/b.jsonl"):
        (corpus / name).write_bytes(orjson.dumps({"text": name}) + b"\n")
    os.mkfifo(corpus / "pipe.jsonl")
    (corpus / "loop_a.jsonl").symlink_to(corpus / "loop_b.jsonl")
    (corpus / "loop_b.jsonl").symlink_to(corpus / "loop_a.jsonl")
    (corpus / "self").symlink_to(corpus / "self")  # a folder-looking loop
    (corpus / "gone.jsonl").symlink_to(corpus / "deleted.jsonl")
    (corpus / "null.jsonl").symlink_to("/dev/null")
    (corpus / ".hidden.jsonl").write_bytes(b"{}\n")
    (corpus / "other.bin").write_bytes(b"\0")
    return corpus


def test_what_is_not_read_is_listed_with_its_reason(folder: Path) -> None:
    skipped: list[tuple[Path, str]] = []
    files = expand_paths([folder], "jsonl", skipped)
    assert [p for p, _ in files] == [folder / "a.jsonl", folder / "sub" / "b.jsonl"]
    reasons = {p.name: reason for p, reason in skipped}
    assert reasons == {
        "pipe.jsonl": "a FIFO (named pipe), not a regular file",
        "loop_a.jsonl": "a symlink loop",
        "loop_b.jsonl": "a symlink loop",
        "self": "a symlink loop",
        "gone.jsonl": "a symlink that leads nowhere",
        "null.jsonl": "link to /dev/null, outside the given paths; --follow-symlinks reads it",
    }


def test_followed_links_to_devices_are_not_read(folder: Path) -> None:
    skipped: list[tuple[Path, str]] = []
    expand_paths([folder], "jsonl", skipped, follow_symlinks=True)
    assert dict((p.name, r) for p, r in skipped)["null.jsonl"] == (
        "a character device, not a regular file"
    )


def _refuse(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.scandir(path)`` fails as it does for a folder without read permission (tests run
    as root, which reads every folder)."""
    real = os.scandir

    def scandir(top: Any = ".") -> Any:
        if Path(top) == path:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(top))
        return real(top)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_folder_that_cannot_be_listed_is_not_read(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(folder / "sub", monkeypatch)
    skipped: list[tuple[Path, str]] = []
    files = expand_paths([folder], "jsonl", skipped)
    assert [p for p, _ in files] == [folder / "a.jsonl"]
    assert (folder / "sub", "folder not listed: Permission denied") in skipped


def test_a_given_folder_that_cannot_be_listed_is_an_error(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(folder, monkeypatch)
    with pytest.raises(IngestInputError, match="cannot list this directory: Permission denied"):
        expand_paths([folder], "jsonl")


def test_a_given_fifo_is_an_error_that_says_what_it_is(folder: Path) -> None:
    with pytest.raises(IngestInputError, match=r"pipe\.jsonl: a FIFO \(named pipe\), not a"):
        expand_paths([folder / "pipe.jsonl"], "jsonl")


def test_a_folder_holding_only_a_link_out_says_why_and_the_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real.jsonl").write_bytes(b'{"text": "x"}\n')
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link.jsonl").symlink_to(tmp_path / "real.jsonl")
    monkeypatch.chdir(tmp_path)  # a relative folder, as a user types it
    with pytest.raises(IngestInputError) as raised:
        expand_paths([Path("in")], "jsonl")
    message = str(raised.value)
    assert message.startswith("in: no files of format 'jsonl' in this directory; not read: ")
    assert "link.jsonl (link to " in message and "--follow-symlinks reads it" in message
    assert expand_paths([Path("in")], "jsonl", follow_symlinks=True)
