"""Which files an ingest reads: the paths given, directories walked; and, for every entry of a
walked directory that it leaves, the reason (the summary's "not read" lines).

Read: regular files of the format (a link to one inside the given paths counts as the file).
Left without a word: hidden entries and files of other formats. Everything else is listed with
its reason: documentation files, links leading outside the given paths (unless
``follow_symlinks``), links leading nowhere or round in a loop, FIFOs, devices and sockets,
folders that cannot be listed. Nothing here raises for one entry: only the given paths
themselves are errors (``IngestInputError``, before anything is written).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from lakemix.errors import LakemixError
from lakemix.ingest import formats
from lakemix.ingest.checked import file_kind

NotRead = tuple[Path, str]
DOCUMENTATION = "documentation file"  # the note of a README or SOURCE file beside the data
WAY_OUT = "outside the given paths; --follow-symlinks reads it"


class IngestInputError(LakemixError, ValueError):
    """A path, source name or format that cannot be ingested (nothing was written)."""


def expand_paths(
    paths: Sequence[str | Path],
    fmt: str,
    skipped: list[NotRead] | None = None,
    *,
    follow_symlinks: bool = False,
) -> list[tuple[Path, str]]:
    """Files to read, with their concrete format. Directories are walked (sorted, no hidden
    files); what they hold and is not read is added to ``skipped`` with the reason (see the
    module's docstring).

    Raises:
        IngestInputError: a path does not exist or cannot be looked at, is neither a regular
            file nor a directory, a directory cannot be listed or holds no file of the format,
            or a file's format cannot be told.
    """
    if fmt not in formats.FORMATS:
        raise IngestInputError(
            f"unknown format {fmt!r}; choose one of: {', '.join(formats.FORMATS)}"
        )
    if not paths:
        raise IngestInputError("no input paths given")
    given = [Path(p) for p in paths]
    _check_given(given)
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    roots = tuple(_resolve(p) or p.absolute() for p in given)
    not_read: list[NotRead] = []
    for path in given:
        if path.is_dir():
            walked = sorted(_walk(path, roots, follow_symlinks=follow_symlinks, not_read=not_read))
            files = [p for p in walked if formats.accepts(p, fmt)]
            not_read.extend(
                (_resolve(p) or p.absolute(), DOCUMENTATION)
                for p in walked
                if formats.is_documentation(p)
            )
            if not files:
                inside = (path.absolute(),)
                unread = [f"{p} ({why})" for p, why in not_read if _is_inside(p, inside)]
                raise IngestInputError(
                    f"{path}: no files of format {fmt!r} in this directory"
                    + (f"; not read: {'; '.join(unread[:3])}" if unread else "")
                )
        elif path.is_file():
            files = [path]
        else:
            raise IngestInputError(f"{path}: {file_kind(path.stat().st_mode)}, not a regular file")
        for file in files:
            resolved = _resolve(file)
            if resolved is None:  # it went away or became a loop since it was listed
                not_read.append((file.absolute(), _unreachable(file)))
                continue
            if resolved in seen:
                continue
            seen.add(resolved)
            try:
                found.append((resolved, formats.detect_format(file, fmt)))
            except formats.UnknownFormatError as exc:
                raise IngestInputError(str(exc)) from None
    if skipped is not None:
        skipped.extend(not_read)
    return found


def _check_given(given: list[Path]) -> None:
    """Raise ``IngestInputError`` naming every given path that cannot be looked at."""
    missing, refused = [], []
    for path in given:
        try:
            path.stat()
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                missing.append(path)
            else:
                refused.append(f"{path} ({exc.strerror or exc})")
    if missing:
        broken = [
            f"{p} (a symlink that leads nowhere or to itself)" for p in missing if p.is_symlink()
        ]
        absent = [str(p) for p in missing if not p.is_symlink()]
        raise IngestInputError("no such file or directory: " + ", ".join([*absent, *broken]))
    if refused:
        raise IngestInputError("cannot look at: " + ", ".join(refused))


def _resolve(path: Path) -> Path | None:
    """The path with every link followed, or None when that cannot be done (a loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: Python 3.11's "Symlink loop"
        return None


def _is_inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _unreachable(path: Path) -> str:
    """Why a directory entry cannot be followed to a file or folder."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop"
        if exc.errno == errno.ENOENT and path.is_symlink():
            return "a symlink that leads nowhere"
        return f"cannot look at it: {exc.strerror or exc}"
    return "a symlink loop" if _resolve(path) is None else "cannot look at it"


def _walk(
    root: Path,
    roots: Sequence[Path],
    *,
    follow_symlinks: bool,
    not_read: list[NotRead],
) -> Iterator[Path]:
    """Regular files below ``root``, hidden ones left out; every other entry that is left is
    added to ``not_read`` with the reason.

    Raises:
        IngestInputError: ``root`` itself cannot be listed.
    """

    def unlisted(exc: OSError) -> None:
        if Path(exc.filename) == root:
            raise IngestInputError(f"{root}: cannot list this directory: {exc.strerror}")
        not_read.append((Path(exc.filename).absolute(), f"folder not listed: {exc.strerror}"))

    walked: set[Path] = set()
    for dirpath, dirnames, filenames in os.walk(
        root, onerror=unlisted, followlinks=follow_symlinks
    ):
        real = _resolve(Path(dirpath))
        if real is None or real in walked:  # a link loop, or a folder reached twice by links
            dirnames[:] = []
            continue
        walked.add(real)
        kept = []
        for name in dirnames:
            path = Path(dirpath) / name
            if name.startswith("."):
                continue
            if path.is_symlink() and not follow_symlinks:
                # Not walked: a link inside the roots leads to a folder walked where it lies.
                target = _resolve(path)
                if target is not None and not _is_inside(target, roots):
                    not_read.append((path.absolute(), f"link to folder {target}, {WAY_OUT}"))
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            path = Path(dirpath) / name
            if name.startswith("."):
                continue
            reason = _not_a_file(path, roots, follow_symlinks=follow_symlinks)
            if reason is None:
                yield path
            else:
                not_read.append((path.absolute(), reason))


def _not_a_file(path: Path, roots: Sequence[Path], *, follow_symlinks: bool) -> str | None:
    """Why the entry ``path`` (not a folder) is not read, or None for a file to read."""
    try:
        link = path.is_symlink()
        mode = path.stat().st_mode
    except OSError:
        return _unreachable(path)
    target = _resolve(path)
    if target is None:
        return "a symlink loop"
    if link and not follow_symlinks and not _is_inside(target, roots):
        return f"link to {target}, {WAY_OUT}"
    if not stat.S_ISREG(mode):
        return f"{file_kind(mode)}, not a regular file"
    return None
