"""One built lakehouse shared by the data-quality tests: two real corpora, a mix, a release."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lakemix.settings import Settings
from tests.conftest import released_lakehouse


@pytest.fixture(scope="package")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Path]]:
    """(settings, tmp): the released demo lakehouse of conftest.released_lakehouse. Tests must
    not change it."""
    tmp = tmp_path_factory.mktemp("quality")
    with released_lakehouse(tmp) as settings:
        yield settings, tmp
