"""Writers that race on the catalog: dbt threads and parallel ingests share one SQL catalog."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import lakemix
from lakemix.iceberg import ensure_namespace
from lakemix.settings import Settings


def test_concurrent_writers_create_one_namespace(lakehouse: Settings) -> None:
    catalog = lakemix.catalog()
    writers = 8
    for round_ in range(5):  # the race needs both writers past the existence check at once
        namespace = f"race{round_}"
        start = threading.Barrier(writers)

        def create(namespace: str = namespace, start: threading.Barrier = start) -> None:
            start.wait()
            ensure_namespace(catalog, namespace)

        with ThreadPoolExecutor(writers) as pool:
            for future in [pool.submit(create) for _ in range(writers)]:
                future.result()
        assert catalog.namespace_exists(namespace)
    assert sorted(n for (n,) in catalog.list_namespaces()) == [f"race{i}" for i in range(5)]
