from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakemix.udf.quality import jit


class _Cache:
    def __init__(self, path: Path) -> None:
        self.cache_path = str(path)
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1


class _Kernel:
    def __init__(self, path: Path) -> None:
        self._cache = _Cache(path)


@pytest.fixture
def kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    fakes = [_Kernel(tmp_path), _Kernel(tmp_path)]
    monkeypatch.setattr(jit, "_KERNELS", fakes)
    return fakes


def test_refresh_flushes_every_kernel_when_the_sources_changed(
    kernels: list[Any], tmp_path: Path
) -> None:
    (tmp_path / jit._STAMP).write_text("digest of other sources")
    jit.refresh_cache.__wrapped__()
    assert [k._cache.flushes for k in kernels] == [1, 1]
    jit.refresh_cache.__wrapped__()  # the stamp now matches: nothing more to flush
    assert [k._cache.flushes for k in kernels] == [1, 1]


def test_refresh_flushes_a_cache_without_a_stamp(kernels: list[Any], tmp_path: Path) -> None:
    jit.refresh_cache.__wrapped__()
    assert [k._cache.flushes for k in kernels] == [1, 1]
    assert len((tmp_path / jit._STAMP).read_text()) == 64


def test_every_kernel_of_the_package_is_registered() -> None:
    import lakemix.udf.quality  # noqa: F401 -- imports every module of the package

    names = {kernel.py_func.__module__ for kernel in jit._KERNELS}
    modules = {"chars", "chinese", "hashing", "signals", "words"}
    assert names == {f"lakemix.udf.quality.{m}" for m in modules}
