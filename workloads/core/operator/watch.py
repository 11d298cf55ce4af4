"""List-then-watch informers: a local store per (cluster, resource) kept current by a watch.

Reconciles read owned objects from these stores instead of issuing a LIST per reconcile, which is
what lets one process handle thousands of custom resources. Indexes by controller owner uid and by
workload label make the per-reconcile lookup O(objects of that workload).
"""

from __future__ import annotations

import logging
import random
import threading
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from workloads.core.errors import CoreError
from workloads.core.labels import WORKLOAD_LABEL
from workloads.core.operator.kubeio import Kube, Resource

log = logging.getLogger(__name__)
ObjKey = tuple[str, str]  # (namespace, name)
Handler = Callable[[str, dict[str, Any]], None]


def _key(obj: Mapping[str, Any]) -> ObjKey:
    metadata = obj.get("metadata") or {}
    return (str(metadata.get("namespace") or ""), str(metadata.get("name")))


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("uid"))
    return None


def _rv(obj: Mapping[str, Any]) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


class Store:
    """Thread-safe dict of one resource's objects with owner-uid and workload indexes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._objects: dict[ObjKey, dict[str, Any]] = {}
        self._by_owner: dict[str, set[ObjKey]] = defaultdict(set)
        self._by_workload: dict[tuple[str, str], set[ObjKey]] = defaultdict(set)
        self.synced = threading.Event()

    def _unindex(self, key: ObjKey, obj: Mapping[str, Any]) -> None:
        uid = controller_uid(obj)
        if uid:
            self._by_owner[uid].discard(key)
            if not self._by_owner[uid]:
                del self._by_owner[uid]
        workload = ((obj.get("metadata") or {}).get("labels") or {}).get(WORKLOAD_LABEL)
        if workload:
            wkey = (key[0], workload)
            self._by_workload[wkey].discard(key)
            if not self._by_workload[wkey]:
                del self._by_workload[wkey]

    def upsert(self, obj: dict[str, Any], *, newer_only: bool = False) -> None:
        """Insert or replace; ``newer_only`` for write results racing the watch (never go back in time)."""
        key = _key(obj)
        with self._lock:
            old = self._objects.get(key)
            if old is not None:
                if newer_only and _rv(old) >= _rv(obj):
                    return
                self._unindex(key, old)
            self._objects[key] = obj
            uid = controller_uid(obj)
            if uid:
                self._by_owner[uid].add(key)
            workload = ((obj.get("metadata") or {}).get("labels") or {}).get(WORKLOAD_LABEL)
            if workload:
                self._by_workload[(key[0], workload)].add(key)

    def delete(self, obj: Mapping[str, Any]) -> None:
        key = _key(obj)
        with self._lock:
            old = self._objects.pop(key, None)
            if old is not None:
                self._unindex(key, old)

    def replace(self, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Swap in a fresh list (after a relist); returns the objects that disappeared."""
        with self._lock:
            fresh = {_key(o): o for o in objects}
            gone = [o for k, o in self._objects.items() if k not in fresh]
            self._objects, self._by_owner, self._by_workload = {}, defaultdict(set), defaultdict(set)
        for obj in objects:
            self.upsert(obj)
        return gone

    def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            return self._objects.get((namespace, name))

    def owned_by(self, uid: str) -> list[dict[str, Any]]:
        with self._lock:
            return [self._objects[k] for k in self._by_owner.get(uid, ())]

    def of_workload(self, namespace: str, workload: str) -> list[dict[str, Any]]:
        with self._lock:
            return [self._objects[k] for k in self._by_workload.get((namespace, workload), ())]

    def items(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._objects.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._objects)


class Informer:
    """One resource on one cluster: list, watch from the list's resourceVersion, relist on 410.

    Connection trouble reconnects with exponential backoff (0.2 s doubling to 30 s, full jitter); a
    410 Gone or an ERROR event relists. ``handler(event_type, obj)`` runs on the informer thread.
    """

    def __init__(self, kube: Kube, res: Resource, handler: Handler, stop: threading.Event, *,
                 selector: str | None = None) -> None:
        self.kube, self.res, self.handler, self.stop, self.selector = kube, res, handler, stop, selector
        self.store = Store()
        self.relists = 0
        self._thread = threading.Thread(target=self._run, name=f"watch-{kube.name}-{res.plural}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        rv: str | None = None
        while not self.stop.is_set():
            try:
                if rv is None:
                    rv = self._relist()
                rv = self._watch(rv)
                failures = 0
            except CoreError as exc:
                failures += 1
                delay = random.random() * min(30.0, 0.2 * 2 ** min(failures, 10))  # noqa: S311 (jitter)
                log.warning("watch %s/%s failed (%s); retrying in %.1fs", self.kube.name, self.res.plural,
                            exc, delay)
                self.stop.wait(delay)

    def _relist(self) -> str:
        page = self.kube.list(self.res, selector=self.selector)
        items = page.get("items") or []
        api_version, kind = self.res.api_version, self.res.kind
        for item in items:  # list items carry no apiVersion/kind; the rest of the operator needs them
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
        gone = self.store.replace(items)
        self.relists += 1
        self.store.synced.set()
        for obj in gone:
            self.handler("DELETED", obj)
        for obj in items:
            self.handler("ADDED", obj)
        return str((page.get("metadata") or {}).get("resourceVersion") or "")

    def _watch(self, rv: str) -> str | None:
        """Returns the resourceVersion to resume from, or None to relist."""
        resp = self.kube.open_watch(self.res, rv, selector=self.selector)
        for event in self.kube.iter_watch(resp):
            if self.stop.is_set():
                resp.close()
                return rv
            kind, obj = event.get("type"), event.get("object") or {}
            if kind == "ERROR":
                log.info("watch %s/%s: %s; relisting", self.kube.name, self.res.plural, obj.get("message"))
                return None
            rv = str((obj.get("metadata") or {}).get("resourceVersion") or rv)
            if kind == "BOOKMARK":
                continue
            if kind == "DELETED":
                self.store.delete(obj)
            else:
                self.store.upsert(obj)
            self.handler(str(kind), obj)
        return rv
