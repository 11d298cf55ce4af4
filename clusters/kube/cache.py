"""Watch-based cache of one member cluster, and the process-wide registry of them.

Read pages and read APIs ask the cache; they never LIST an apiserver per request.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TypedDict, TypeVar, Unpack, cast

from kubernetes.client.exceptions import ApiException

from pincompute.errors import TemporaryError
from pincompute.kube import rawapi
from pincompute.kube.listwatch import ListWatch, ListWatchStats
from pincompute.kube.rawapi import Obj
from pincompute.kube.retry import TRANSPORT_ERRORS, describe
from pincompute.kube.store import DEFAULT_INDEXED_LABELS, Aggregator, Store, Where

from .aggregates import ClusterAggregates, NodeAggregates, PodAggregates
from .breaker import CircuitOpen
from .client import ClientPool, ClusterHealth, ClusterTarget
from .compact import PodCompactor
from .heap import FREEZER
from .resources import DEFAULT_RESOURCES, ResourceSpec
from .slim import slim

T = TypeVar("T")
DISCOVERY_ERRORS: tuple[type[BaseException], ...] = (CircuitOpen, *TRANSPORT_ERRORS, ValueError)
AGGREGATORS: dict[str, Callable[[], Aggregator]] = {"pods": PodAggregates, "nodes": NodeAggregates}
# A relist's page. Measured at 100k pods on a loaded 2-core control plane (bench/read_path.py): 500 a page
# listed ~340-630 pods/s, so a cold cache took 3-5 min and its continue token could expire mid-list (410: the
# list starts over); 5000 a page listed ~1,850 pods/s. A page of 5000 slim pods is ~17 MB of JSON.
LIST_PAGE_SIZE = 5000
# A relist page's read timeout: at that scale a page took over 10 s (the pool's request timeout) on the loaded
# machine; three such attempts made the whole list start over, again and again. The apiserver's own limit is 60 s.
LIST_READ_TIMEOUT = 60.0


def cluster_store(indexed_labels: frozenset[str] | None = DEFAULT_INDEXED_LABELS) -> Store:
    """The portal's store for one cluster: slimmed objects, compact pods (``compact.PodCompactor``), pod and
    node aggregates, sorted keys for ``page``."""
    return Store(
        slimmer=slim,
        slimmers={"pods": PodCompactor()},
        indexed_labels=indexed_labels,
        aggregators=AGGREGATORS,
        ordered=True,
    )


class CacheOptions(TypedDict, total=False):
    indexed_labels: frozenset[str] | None
    discovery_interval: float
    watch_timeout: int
    page_size: int


class BreakerGate:
    """The list-watch's gate for one cluster: the pool's retry around its circuit breaker."""

    def __init__(self, pool: ClientPool, cluster: str) -> None:
        self.pool, self.cluster = pool, cluster

    def __call__(self, fn: Callable[[], T], *, attempts: int, sleep: Callable[[float], object]) -> T:
        try:
            return self.pool.run(self.cluster, fn, attempts=attempts, sleep=sleep)
        except CircuitOpen as exc:
            raise TemporaryError(describe(exc), delay=exc.retry_in) from exc


class StoreReads:
    """The read API every page, API view and consumer uses on a cluster cache: answered from ``self.store``.

    See store.py for the read-only contract on returned objects."""

    store: Store

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

    def keys(self, kind: str, namespace: str | None = None) -> builtins.list[tuple[str, str]]:
        return self.store.keys(kind, namespace)

    def matching_keys(self, kind: str, needle: str, *, prefix: bool = False) -> builtins.list[tuple[str, str]]:
        return self.store.matching_keys(kind, needle, prefix=prefix)

    def count(
        self,
        kind: str,
        namespace: str | None = None,
        label_selector: Mapping[str, str] | None = None,
        owner_uid: str | None = None,
    ) -> int:
        return self.store.count(kind, namespace, label_selector, owner_uid)

    def page(
        self,
        kind: str,
        namespace: str | None = None,
        *,
        after: tuple[str, str] | None = None,
        limit: int = 100,
        where: Where | None = None,
        label_selector: Mapping[str, str] | None = None,
    ) -> tuple[builtins.list[Obj], bool]:
        """A page in (namespace, name) order after the key ``after``, and whether more follow (``Store.page``)."""
        return self.store.page(kind, namespace, after=after, limit=limit, where=where, label_selector=label_selector)

    def aggregates(self) -> ClusterAggregates:
        return cast(ClusterAggregates, self.store.aggregates())  # the keys of AGGREGATORS' snapshots


class WatchCache(StoreReads):
    """LIST+WATCH every resource of one cluster into a Store; CRD resources follow discovery."""

    def __init__(
        self,
        pool: ClientPool,
        cluster_name: str,
        resources: Iterable[ResourceSpec] = DEFAULT_RESOURCES,
        *,
        indexed_labels: frozenset[str] | None = DEFAULT_INDEXED_LABELS,
        discovery_interval: float = 30.0,
        watch_timeout: int = 300,
        page_size: int = LIST_PAGE_SIZE,
    ) -> None:
        self.pool, self.cluster = pool, cluster_name
        self.resources = tuple(resources)
        self.store = cluster_store(indexed_labels)
        self.discovery_interval = discovery_interval
        self.watch_timeout, self.page_size = watch_timeout, page_size
        self._gate = BreakerGate(pool, cluster_name)
        self._watchers: dict[str, ListWatch] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._discovered = threading.Event()
        self._discovery_error: tuple[float, str] | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start watcher threads; returns at once (an unreachable cluster must not block the caller)."""
        with self._lock:
            if self._thread is not None:
                return
            for spec in self.resources:
                if not spec.optional:
                    self._start_watcher(spec)
            self._thread = threading.Thread(target=self._discover_loop, name=f"discovery-{self.cluster}", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop all threads; True when every one has ended within ``timeout``."""
        self._stop.set()
        with self._lock:
            watchers = list(self._watchers.values())
            thread = self._thread
        for w in watchers:
            w.stop()
        deadline = time.monotonic() + timeout
        ok = all(w.join(max(0.0, deadline - time.monotonic())) for w in watchers)
        if thread is not None:
            thread.join(max(0.0, deadline - time.monotonic()))
            ok = ok and not thread.is_alive()
        return ok

    def _start_watcher(self, spec: ResourceSpec) -> None:
        w = ListWatch(
            lambda: self.pool.api(self.cluster),
            self.store,
            spec.key,
            spec.path,
            name=f"{self.cluster}-{spec.key}",
            optional=spec.optional,
            max_objects=spec.max_objects,
            gate=self._gate,
            timeout=(self.pool.timeout[0], max(self.pool.timeout[1], LIST_READ_TIMEOUT)),
            page_size=self.page_size,
            watch_timeout=self.watch_timeout,
            on_listed=FREEZER.after_list,
        )
        self._watchers[spec.key] = w
        w.start()

    # -- discovery of optional (CRD) resources --------------------------------------------------
    def _discover_loop(self) -> None:
        while not self._stop.is_set():
            self._restart_crashed()
            self._discover_once()
            self._stop.wait(self.discovery_interval)

    def _restart_crashed(self) -> None:
        with self._lock:
            for spec in self.resources:
                w = self._watchers.get(spec.key)
                if w is not None and w.crashed and not self._stop.is_set():
                    self._start_watcher(spec)

    def _discover_once(self) -> None:
        optional = [s for s in self.resources if s.optional]
        present: set[str] = set()
        api = self.pool.api(self.cluster)
        for gv in sorted({s.group_version_path for s in optional}):

            def discover(gv: str = gv) -> Obj:
                return rawapi.get_json(api, gv, [], self.pool.timeout)

            try:
                doc = self.pool.run(self.cluster, discover, attempts=1, sleep=self._stop.wait)
            except ApiException as exc:
                if exc.status == 404:  # group not served: none of its CRDs installed
                    continue
                self._discovery_error = (time.time(), f"discovery {gv}: {describe(exc)}")
                return
            except DISCOVERY_ERRORS as exc:
                self._discovery_error = (time.time(), f"discovery {gv}: {describe(exc)}")
                return
            present |= {f"{gv}/{r['name']}" for r in doc.get("resources") or () if "/" not in r.get("name", "/")}
        with self._lock:
            if self._stop.is_set():
                return
            for spec in optional:
                w = self._watchers.get(spec.key)
                if spec.path in present and (w is None or w.gone or w.crashed):
                    self._start_watcher(spec)
                elif spec.path not in present and w is not None:
                    w.stop()
                    del self._watchers[spec.key]
                    self.store.drop(spec.key)
        self._discovered.set()

    # -- state ----------------------------------------------------------------------------------
    @property
    def synced(self) -> bool:
        """Every watched resource has listed at least once and the cluster's breaker is not open."""
        if not self._discovered.is_set() or self.pool.breaker(self.cluster).state == "open":
            return False
        with self._lock:
            return all(w.synced.is_set() and not w.crashed for w in self._watchers.values() if not w.gone)

    def wait_synced(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.synced:
            if time.monotonic() >= deadline or self._stop.is_set():
                return False
            time.sleep(0.05)
        return True

    def wait_listed(self, kind: str, timeout: float) -> bool:
        """Whether ``kind`` has been listed once, waiting up to ``timeout`` for a cache that started moments ago
        (caches start on a process's first use; an object not listed yet is not a gone one). A kind listed
        before answers at once, even while its cluster is unreachable."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                w = self._watchers.get(kind)
            if w is not None and w.synced.is_set():
                return True
            if (w is None and self._discovered.is_set()) or time.monotonic() >= deadline or self._stop.is_set():
                return False
            time.sleep(0.05)

    @property
    def last_error(self) -> str | None:
        """The most recent error of any watch, of discovery, or of the breaker."""
        with self._lock:
            errors = [(w.last_error_at, w.last_error) for w in self._watchers.values() if w.last_error]
        if self._discovery_error:
            errors.append(self._discovery_error)
        if errors:
            return max(errors)[1]
        return self.pool.breaker(self.cluster).last_error

    def health(self) -> ClusterHealth:
        return self.pool.health(self.cluster)

    def stats(self) -> dict[str, ListWatchStats]:
        with self._lock:
            watchers = dict(self._watchers)
        return {k: w.stats() for k, w in sorted(watchers.items())}

    def watched(self) -> list[str]:
        with self._lock:
            return sorted(k for k, w in self._watchers.items() if not w.gone)

    # -- test hooks -----------------------------------------------------------------------------
    def drop_connections(self, kind: str | None = None) -> None:
        with self._lock:
            watchers = [w for k, w in self._watchers.items() if kind is None or k == kind]
        for w in watchers:
            w.drop_connection()

    def force_resource_version(self, kind: str, rv: str) -> None:
        with self._lock:
            w = self._watchers[kind]
        w.force_resource_version(rv)


class CacheRegistry:
    """One WatchCache per member cluster, shared by the whole process and started lazily."""

    def __init__(
        self,
        pool: ClientPool | None = None,
        resources: Iterable[ResourceSpec] = DEFAULT_RESOURCES,
        **cache_kwargs: Unpack[CacheOptions],
    ) -> None:
        self.pool = pool or ClientPool()
        self.resources = tuple(resources)
        self._cache_kwargs = cache_kwargs
        self._caches: dict[str, WatchCache] = {}
        self._targets: dict[str, ClusterTarget] = {}
        self._lock = threading.Lock()

    def ensure(self, targets: Iterable[ClusterTarget]) -> None:
        """Make the running caches match ``targets``: start new ones, restart changed, stop removed."""
        wanted = {t.name: t for t in targets}
        stopping: list[WatchCache] = []
        with self._lock:
            for name in list(self._caches):
                if wanted.get(name) != self._targets.get(name):
                    stopping.append(self._caches.pop(name))
                    self._targets.pop(name, None)
            for name, target in wanted.items():
                if name not in self._caches:
                    self.pool.add(target)
                    cache = WatchCache(self.pool, name, self.resources, **self._cache_kwargs)
                    cache.start()
                    self._caches[name], self._targets[name] = cache, target
        for cache in stopping:
            cache.stop()

    def get(self, name: str) -> WatchCache:
        with self._lock:
            return self._caches[name]

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._caches)

    def stop_all(self, timeout: float = 5.0) -> None:
        with self._lock:
            caches, self._caches, self._targets = list(self._caches.values()), {}, {}
        for cache in caches:
            cache.stop(timeout)


_registry: CacheRegistry | None = None
_registry_lock = threading.Lock()


def default_registry() -> CacheRegistry:
    """The process-wide registry, created on first use (never at import time)."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = CacheRegistry()
        return _registry
