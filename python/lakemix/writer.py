"""One writer at a time: a lock file in the lakehouse that names the command holding it.

A build, ingest, release, ingest removal or gc takes ``<home>/writer.lock`` with ``flock``
(released by the kernel when the process ends, however it ends: no stale lock after a crash or
a SIGKILL) and writes into it which command and process hold it. A second writer is refused
with that, or waits up to ``wait`` seconds. Readers (``lakemix sql``, the loader, reports)
never take it (nor open the DuckDB file dbt holds). A child of the holder (the ``dbt build``
that ``lakemix mix build`` runs) finds the lock's path in ``LAKEMIX_WRITER_LOCK`` and goes on
under its parent's lock.

The lock is a local file in the lakehouse folder, so it is per machine: it covers the writers
of one machine only. Machines sharing a bucket and a PostgreSQL catalog need one writer host;
between machines only Iceberg's commit checks hold (docs/versions.md#one-writer-at-a-time).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from lakemix.errors import LakemixError
from lakemix.settings import Settings

LOCK_NAME = "writer.lock"
ENV = "LAKEMIX_WRITER_LOCK"
WAIT_ENV = "LAKEMIX_WAIT"  # seconds a dbt build waits for the lock (dbt has no --wait option)
_held: set[str] = set()  # lock paths this process holds


class LakehouseBusyError(LakemixError, RuntimeError):
    """Another writer holds the lakehouse."""


def lock_path(settings: Settings) -> Path:
    """Where the writer lock of the lakehouse lives."""
    return settings.home / LOCK_NAME


def holder(settings: Settings) -> dict[str, object] | None:
    """Who holds the lock (command, pid, host, since), as it recorded itself, if anyone does."""
    path = lock_path(settings)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        with contextlib.suppress(ValueError, OSError):
            found: dict[str, object] = orjson.loads(path.read_bytes())
            return found
        return {"command": "another writer (starting)", "pid": "?"}
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _describe(found: dict[str, object] | None) -> str:
    if found is None:
        return "another writer"
    return (
        f"`{found.get('command')}` (PID {found.get('pid')} on {found.get('host', '?')}, "
        f"since {found.get('since', '?')})"
    )


@contextlib.contextmanager
def writer(
    command: str,
    *,
    settings: Settings | None = None,
    wait: float = 0,
    how_to_wait: str = "pass --wait SECONDS",
) -> Iterator[None]:
    """Hold the lakehouse's writer lock for the block.

    Args:
        command: What holds it, as the refused writer is told (``lakemix ingest``).
        settings: The lakehouse; from the environment when omitted.
        wait: Seconds to wait for another writer to finish; 0 refuses at once.
        how_to_wait: How the refused command is told to wait next time.

    Raises:
        LakehouseBusyError: another writer held it for longer than ``wait``; names it.
    """
    settings = settings or Settings.from_env()
    path = lock_path(settings)
    key = str(path.absolute())
    if key in _held or os.environ.get(ENV) == key:  # this process or its parent holds it
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + max(0.0, wait)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    busy = _describe(holder(settings))
                    waited = f" after waiting {wait:g} s" if wait > 0 else ""
                    raise LakehouseBusyError(
                        f"the lakehouse {settings.home} is being written by {busy}{waited}; "
                        f"run this once it finishes, or {how_to_wait} to wait for it "
                        "(readers such as lakemix sql keep working meanwhile)"
                    ) from None
                time.sleep(min(0.25, left))
        record = {
            "command": command,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, orjson.dumps(record), 0)
        _held.add(key)
        before = os.environ.get(ENV)
        os.environ[ENV] = key
        try:
            yield
        finally:
            _held.discard(key)
            if before is None:
                os.environ.pop(ENV, None)
            else:
                os.environ[ENV] = before
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the flock


def hold_for_process(command: str, *, settings: Settings | None = None) -> None:
    """Take the lock until this process ends (the dbt plugin: dbt has no hook at its end).

    Waits ``LAKEMIX_WAIT`` seconds (default 0) for another writer.

    Raises:
        LakehouseBusyError: as ``writer``.
    """
    raw = os.environ.get(WAIT_ENV, "0")
    try:
        wait = float(raw)
    except ValueError:
        raise LakehouseBusyError(f"{WAIT_ENV}={raw!r} is not a number of seconds") from None
    held = writer(command, settings=settings, wait=wait, how_to_wait=f"set {WAIT_ENV}=SECONDS")
    held.__enter__()  # left held: the kernel releases the flock when the process exits
    _keep.append(held)


_keep: list[object] = []


def command_line() -> str:
    """This process's command line, shortened, for the lock's record."""
    args = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv else ["python"]
    line = " ".join(args)
    return line if len(line) <= 120 else line[:117] + "..."


def wait_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--wait SECONDS`` option of every command that writes."""
    import click

    return click.option(
        "--wait",
        type=click.FloatRange(min=0),
        default=0,
        show_default=True,
        metavar="SECONDS",
        help="Wait this long for another writer (build, ingest, release) to finish; "
        "0: refuse at once, naming it.",
    )(function)
