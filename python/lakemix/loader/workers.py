"""Stopping a loader's torchdata workers: on ``MixLoader.close()``, and at the latest at exit.

torchdata's ``ParallelMapper`` runs its workers in daemon threads (or processes) and stops them
only when its iterator is garbage collected. A loader that outlives its training loop (a trainer
stops at ``max_steps`` mid-epoch, with groups fetched ahead) keeps them building batches until
the interpreter exits. Python 3.11 ends a daemon thread that wants the GIL back during
finalization with ``pthread_exit``: in the middle of a torch operator (the batch builder calls
some; torch's bindings release the GIL while they run) that unwinds C++ frames that may not
unwind, and the process aborts ("terminate called without an active exception"). So every
loader whose workers run is stopped by an ``atexit`` hook, which runs before finalization,
unless it was closed before.

torchdata 0.11 offers no public way to stop them; this module is the one place that knows its
internals (``ParallelMapper._it._it._shutdown``, what its ``__del__`` calls).
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any, Protocol


class Closeable(Protocol):
    def close(self) -> None: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()
_hooked = False


def stop_workers(mapper: Any) -> None:
    """Stop the worker threads or processes of a torchdata ``ParallelMapper`` and wait until
    its threads have ended. A mapper that never started, or runs inline (0 workers), has
    nothing to stop.

    torchdata's own shutdown waits half a second for each; a worker ends only once the groups
    already queued for it are built (at most two a worker), which can take longer on a busy
    machine: its threads are waited for until they end.
    """
    import threading

    impl = getattr(mapper, "_it", None)
    iterator = getattr(impl, "_it", None)
    shutdown = getattr(iterator, "_shutdown", None)
    if shutdown is None:
        return
    shutdown()  # sets its stop events
    found = [getattr(iterator, "_read_thread", None), getattr(iterator, "_sort_thread", None)]
    for thread in [*found, *getattr(iterator, "_workers", ())]:
        if isinstance(thread, threading.Thread) and thread.is_alive():
            thread.join()


def close_at_exit(loader: Closeable) -> None:
    """Close ``loader`` at interpreter exit unless it is closed (or collected) before."""
    global _hooked
    if not _hooked:
        atexit.register(_close_open)
        _hooked = True
    _open.add(loader)


def forget(loader: Closeable) -> None:
    """``loader`` is closed: the exit hook has nothing to do for it."""
    _open.discard(loader)


def _close_open() -> None:
    for loader in list(_open):
        loader.close()
