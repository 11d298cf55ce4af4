"""One stand-in for a member cluster's watch cache, shared by every test that needs one.

Pages, API views and consumers read a ``WatchCache`` only through its ``StoreReads`` methods and the
synced/last_error flags. ``FilledCache`` is those same read methods over the real ``cluster_store()``
(the same indexes, slimming and aggregates), filled by hand instead of by a list-watch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clusters.kube.cache import StoreReads, cluster_store

Obj = dict[str, Any]


def fake_pod(
    name: str,
    namespace: str,
    containers: tuple[str, ...] = ("app",),
    phase: str = "Running",
    labels: dict[str, str] | None = None,
) -> Obj:
    return {
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": {"containers": [{"name": c, "image": "busybox"} for c in containers]},
        "status": {"phase": phase},
    }


class FilledCache(StoreReads):
    synced = True
    last_error: str | None = None

    def __init__(self, objects: Mapping[str, Iterable[Obj]]) -> None:
        self.store = cluster_store()
        for kind, items in objects.items():
            self.store.replace(kind, list(items))

    def wait_listed(self, kind: str, timeout: float) -> bool:
        """As a watch cache: every kind is listed while the cache says it is synced (no wait)."""
        return bool(self.synced)

    def watched(self) -> list[str]:
        """The kinds filled (a watch cache's watched kinds)."""
        return sorted(self.store.kinds())

    def put(self, kind: str, obj: Obj) -> None:
        """Add or replace one object, as a watch event would."""
        self.store.apply(kind, "ADDED", obj)
