"""numba compilation for the quality kernels, and a disk cache that follows their sources.

numba caches a compiled function beside its module and checks only that module's source: a
kernel that calls kernels of other modules (``signals`` calls ``words``) would keep running the
old callee after an edit there. ``refresh_cache`` flushes every kernel of this package when any
of its modules changed since they were cached; the first use of the kernels calls it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_KERNELS: list[Any] = []
_STAMP = "lakemix-quality-sources.sha256"


def jit(fn: _Fn) -> _Fn:
    """numba's nopython compilation, cached on disk; nothing is compiled before the first call."""
    kernel = numba.njit(cache=True, nogil=True)(fn)
    _KERNELS.append(kernel)
    return cast(_Fn, kernel)


def inline(fn: _Fn) -> _Fn:
    """As ``jit``, inlined into the (hot) callers by numba."""
    kernel = numba.njit(cache=True, nogil=True, inline="always")(fn)
    _KERNELS.append(kernel)
    return cast(_Fn, kernel)


@functools.cache
def refresh_cache() -> None:
    """Flush the cached kernels of this package if any of its sources changed (once a process).

    The digest of the package's ``.py`` files is kept in numba's cache folder; a missing or
    different digest flushes every kernel's cache index, so numba compiles them anew.
    """
    digest = sources_digest()
    folders = {Path(kernel._cache.cache_path) for kernel in _KERNELS if kernel._cache.cache_path}
    stale = [folder for folder in folders if _stamp(folder) != digest]
    if not stale:
        return
    for kernel in _KERNELS:
        kernel._cache.flush()
    for folder in stale:
        with contextlib.suppress(OSError):  # read-only: numba cannot cache there either
            (folder / _STAMP).write_text(digest)


@functools.cache
def sources_digest() -> str:
    """SHA-256 of this package's ``.py`` files: what a cache of their results depends on."""
    sources = sorted(Path(__file__).parent.glob("*.py"))
    return hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()


def cache_folder() -> Path | None:
    """numba's cache folder for this package's kernels (None before any kernel exists)."""
    for kernel in _KERNELS:
        if kernel._cache.cache_path:
            return Path(kernel._cache.cache_path)
    return None


def _stamp(folder: Path) -> str | None:
    try:
        return (folder / _STAMP).read_text()
    except OSError:
        return None
