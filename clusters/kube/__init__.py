"""Kubernetes access for the portal: client pool, retry + breaker, and the per-cluster watch cache.

No Django imports here: the registry of clusters lives in ``clusters.models`` and hands us targets.
"""

from .breaker import CircuitBreaker, CircuitOpen
from .cache import CacheRegistry, WatchCache, default_registry
from .client import ClientPool, ClusterHealth, ClusterTarget
from .resources import DEFAULT_RESOURCES, ResourceSpec
from .retry import call_with_retry
from .slim import slim
from .store import Store

__all__ = [
    "DEFAULT_RESOURCES", "CacheRegistry", "CircuitBreaker", "CircuitOpen", "ClientPool", "ClusterHealth",
    "ClusterTarget", "ResourceSpec", "Store", "WatchCache", "call_with_retry", "default_registry", "slim",
]
