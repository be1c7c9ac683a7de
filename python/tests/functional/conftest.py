"""Fixtures of the functional tests that read the session's demo release."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lakemix.settings import Settings
from tests.conftest import lakehouse_in


@pytest.fixture(scope="module")
def release(demo_release: Path) -> Iterator[Settings]:
    """Release v1 of the demo mix over two small real corpora (built once a session), the
    environment pointed at it for the module. Tests only read it."""
    with lakehouse_in(demo_release) as settings:
        yield settings
