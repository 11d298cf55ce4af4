"""The host's list-watches of the projects' Secrets and ConfigMaps (the portal's), one pair per project namespace.

The operator may read them in project namespaces only (``pincompute.federation_rights``: a RoleBinding per project
namespace, no cluster-wide read), so there is no cluster-wide watch to open: a namespace's pair starts when a
workload appears there and stops when its last one is gone. Each pair fills a Store of its own (a relist replaces
its kind whole). Until both have listed, ``synced(namespace)`` is false and nothing is decided from them: an empty
store would delete the members' copies and change the pods' checksum.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from pincompute.configs import MANAGED_BY_PORTAL
from pincompute.kube.listwatch import ListWatch
from pincompute.kube.store import Store
from pincompute.labels import MANAGED_BY_LABEL
from pincompute.operator.cluster import start_watch
from pincompute.operator.kubeio import Kube, Resource

log = logging.getLogger(__name__)

CONFIG_RESOURCES = {
    "Secret": Resource("v1", "Secret", "secrets"),
    "ConfigMap": Resource("v1", "ConfigMap", "configmaps"),
}
CONFIG_SELECTOR = f"{MANAGED_BY_LABEL}={MANAGED_BY_PORTAL}"  # the projects' own, as the portal writes them
Handler = Callable[[str, dict[str, Any]], None]


class ConfigWatches:
    def __init__(self, kube: Kube, on_event: Handler) -> None:
        self.kube, self.on_event = kube, on_event
        self._lock = threading.Lock()
        self._stores: dict[str, Store] = {}
        self._watches: dict[str, dict[str, ListWatch]] = {}

    def ensure(self, namespace: str) -> None:
        with self._lock:
            if namespace in self._watches:
                return
            store = self._stores[namespace] = Store()
            self._watches[namespace] = {k: self._start(res, store, namespace) for k, res in CONFIG_RESOURCES.items()}

    def drop(self, namespace: str) -> None:
        with self._lock:
            watches = self._watches.pop(namespace, {})
            self._stores.pop(namespace, None)
        for watch in watches.values():
            watch.stop()

    def _start(self, res: Resource, store: Store, namespace: str) -> ListWatch:
        return start_watch(self.kube, store, res, self.on_event, CONFIG_SELECTOR, namespace=namespace)

    def synced(self, namespace: str) -> bool:
        with self._lock:
            watches = list(self._watches.get(namespace, {}).values())
        return bool(watches) and all(w.synced.is_set() for w in watches)

    def problem(self, namespace: str) -> str:
        """Why ``namespace``'s objects are not listed yet: the last error of a watch that has not listed (a 403 when
        the project's RoleBinding is missing), or empty while a first list is simply under way."""
        with self._lock:
            watches = list(self._watches.get(namespace, {}).values())
        return "; ".join(w.last_error for w in watches if not w.synced.is_set() and w.last_error)

    def objects(self, kind: str, namespace: str) -> list[dict[str, Any]]:
        with self._lock:
            store = self._stores.get(namespace)
        return store.list(kind, namespace) if store is not None else []

    def restart_crashed(self) -> None:
        with self._lock:
            for namespace, watches in self._watches.items():
                for kind, watch in list(watches.items()):
                    if watch.crashed:
                        log.warning("host: restarting the %s watch in %s (%s)", kind, namespace, watch.last_error)
                        watches[kind] = self._start(CONFIG_RESOURCES[kind], self._stores[namespace], namespace)

    def close(self) -> list[ListWatch]:
        """Stop every watch; the stopped ones, to join."""
        with self._lock:
            watches = [w for pair in self._watches.values() for w in pair.values()]
            self._watches.clear()
            self._stores.clear()
        for watch in watches:
            watch.stop()
        return watches
