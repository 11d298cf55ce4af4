"""Process-wide glue between the registry (ORM) and the Django-free kube layer (client pool, watch caches).

Nothing starts at import: the pool and caches are created by the first caller that needs them.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from django.conf import settings

from clusters.models import Cluster, FederationRole

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

    from clusters.kube.cache import CacheRegistry, WatchCache
    from clusters.kube.client import ClientPool, ClusterTarget

_lock = threading.RLock()
# What a cache needs of a cluster row: read per request as plain values, not as a model (whose JSON fields are
# decoded on load: the row's attributes and pools are no concern of a cache).
_TARGET_FIELDS = ("name", "kubeconfig_path", "kube_context", "in_cluster")
_pool: ClientPool | None = None
_caches: CacheRegistry | None = None
_host_caches: CacheRegistry | None = None


def target_for(cluster: Cluster) -> ClusterTarget:
    return _target(cluster.name, cluster.kubeconfig_path, cluster.kube_context, cluster.in_cluster)


def _target(name: str, kubeconfig_path: str, kube_context: str, in_cluster: bool) -> ClusterTarget:
    from clusters.kube.client import ClusterTarget

    return ClusterTarget(
        name=name, kubeconfig_path=kubeconfig_path or None, context=kube_context or None, in_cluster=in_cluster
    )


def client_pool() -> ClientPool:
    global _pool
    with _lock:
        if _pool is None:
            from clusters.kube.client import ClientPool

            _pool = ClientPool(timeout=(3, settings.KUBE_REQUEST_TIMEOUT))
        return _pool


def pool_for(cluster: Cluster) -> ClientPool:
    pool = client_pool()
    pool.add(target_for(cluster))
    return pool


def api_for(cluster: Cluster) -> ApiClient:
    """The cluster's pooled ApiClient (never the process-global kube config)."""
    return pool_for(cluster).api(cluster.name)


def cache_registry() -> CacheRegistry:
    global _caches
    with _lock:
        if _caches is None:
            from clusters.kube.cache import CacheRegistry

            _caches = CacheRegistry(client_pool(), watch_timeout=settings.WATCH_TIMEOUT_SECONDS)
        return _caches


def host_cache_registry() -> CacheRegistry:
    global _host_caches
    with _lock:
        if _host_caches is None:
            from clusters.kube.cache import CacheRegistry
            from clusters.kube.resources import HOST_RESOURCES

            _host_caches = CacheRegistry(client_pool(), HOST_RESOURCES, watch_timeout=settings.WATCH_TIMEOUT_SECONDS)
        return _host_caches


def host_cache() -> WatchCache | None:
    """The watch cache of the host cluster's workload objects (the federation's store), started on first use;
    None when no host is registered or caches are off."""
    if not settings.WATCH_CACHE_ENABLED:
        return None
    host = Cluster.objects.filter(role=FederationRole.HOST).order_by("pk").values_list(*_TARGET_FIELDS).first()
    registry = host_cache_registry()
    registry.ensure([_target(*host)] if host is not None else [])
    return registry.get(host[0]) if host is not None and host[0] in registry.names() else None


def member_caches() -> dict[str, WatchCache]:
    """Watch caches of all member clusters, started on first use; never LISTs per request."""
    if not settings.WATCH_CACHE_ENABLED:
        return {}
    members = [_target(*row) for row in Cluster.objects.filter(role=FederationRole.MEMBER).values_list(*_TARGET_FIELDS)]
    registry = cache_registry()
    registry.ensure(members)
    running = set(registry.names())
    return {t.name: registry.get(t.name) for t in members if t.name in running}


def shutdown() -> None:
    """Stop every watch cache and close every client (process exit, tests)."""
    global _pool, _caches, _host_caches
    with _lock:
        for registry in (_caches, _host_caches):
            if registry is not None:
                registry.stop_all()
        if _pool is not None:
            _pool.close()
        _pool, _caches, _host_caches = None, None, None
