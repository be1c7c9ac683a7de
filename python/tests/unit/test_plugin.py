"""The dbt plugin's set-up: the objects alive when dbt sets up the adapter leave the collector."""

from __future__ import annotations

import gc

import pytest

from lakemix.dbt import plugin


@pytest.mark.usefixtures("lakehouse")  # the plugin reads its settings from the environment
def test_set_up_freezes_what_is_alive_once_per_process() -> None:
    gc.unfreeze()
    plugin.freeze_long_lived.cache_clear()
    try:
        plugin.Plugin("lakemix", {"lakemix_refresh_views": False})
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # Objects made after the first set-up (these, and the second plugin's) stay collectable.
        made_later = [[n] for n in range(1000)]
        plugin.Plugin("lakemix", {"lakemix_refresh_views": False})
        # A frozen object freed since (its last reference dropped) leaves the count, so the
        # count may fall; a second freeze would add the thousand lists above.
        assert gc.get_freeze_count() <= frozen, f"{len(made_later)} later objects were frozen"
    finally:
        gc.unfreeze()
