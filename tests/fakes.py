"""One stand-in for a member cluster's watch cache, shared by every test that needs one.

Pages, API views and consumers read a ``WatchCache`` only through get/list/count/aggregates and the
synced/last_error flags. ``FilledCache`` answers those from the real ``cluster_store()`` (the same
indexes, slimming and aggregates), filled by hand instead of by a list-watch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clusters.kube.cache import cluster_store

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


class FilledCache:
    synced = True
    last_error: str | None = None

    def __init__(self, objects: Mapping[str, Iterable[Obj]]) -> None:
        self.store = cluster_store()
        for kind, items in objects.items():
            self.store.replace(kind, list(items))

    def put(self, kind: str, obj: Obj) -> None:
        """Add or replace one object, as a watch event would."""
        self.store.apply(kind, "ADDED", obj)

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        return self.store.get(kind, namespace, name)

    def list(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Mapping[str, str] | None = None,
        owner_uid: str | None = None,
    ) -> list[Obj]:
        return self.store.list(kind, namespace, label_selector, owner_uid)

    def count(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Mapping[str, str] | None = None,
        owner_uid: str | None = None,
    ) -> int:
        return self.store.count(kind, namespace, label_selector, owner_uid)

    def aggregates(self) -> dict[str, object]:
        return self.store.aggregates()
