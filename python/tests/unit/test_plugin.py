"""The dbt plugin's set-up: the objects alive when dbt sets up the adapter leave the collector."""

from __future__ import annotations

import gc

from lakemix.dbt import plugin
from lakemix.settings import Settings


def test_set_up_freezes_what_is_alive_once_per_process(lakehouse: Settings) -> None:
    assert lakehouse.home  # the plugin reads its settings from the environment
    gc.unfreeze()
    plugin.freeze_long_lived.cache_clear()
    try:
        plugin.Plugin("lakemix", {"lakemix_refresh_views": False})
        frozen = gc.get_freeze_count()
        assert frozen > 0
        later = [[n] for n in range(1000)]  # alive after the set-up: left to the collector
        plugin.Plugin("lakemix", {"lakemix_refresh_views": False})
        assert gc.get_freeze_count() == frozen
        assert later
    finally:
        gc.unfreeze()
