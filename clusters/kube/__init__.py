"""Kubernetes access for the portal: client pool, breaker, and the per-cluster watch cache.

The client factory, the error mapping, the retry and backoff, the list-watch loop, the raw JSON helpers and the
object store are the core's (``pincompute.kube``), shared with the operator; this package adds the pool, the
breaker gate, slimming and aggregates around them.

No Django imports here: the registry of clusters lives in ``clusters.models`` and hands us targets.
"""

from .breaker import CircuitBreaker, CircuitOpen
from .cache import CacheRegistry, WatchCache, cluster_store, default_registry
from .client import ClientPool, ClusterHealth, ClusterTarget
from .resources import DEFAULT_RESOURCES, ResourceSpec
from .slim import slim

__all__ = [
    "DEFAULT_RESOURCES",
    "CacheRegistry",
    "CircuitBreaker",
    "CircuitOpen",
    "ClientPool",
    "ClusterHealth",
    "ClusterTarget",
    "ResourceSpec",
    "WatchCache",
    "cluster_store",
    "default_registry",
    "slim",
]
