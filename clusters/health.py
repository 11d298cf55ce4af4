"""Cluster reachability for /readyz and the registry's health columns."""

from __future__ import annotations

from collections.abc import Callable

from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError

from clusters import runtime, services
from clusters.kube.breaker import CircuitOpen
from clusters.models import Cluster


def probe_cluster(cluster: Cluster) -> str:
    """GET /version through the cluster's breaker; records the result on the registry row."""
    pool = runtime.pool_for(cluster)
    try:
        version = pool.probe(cluster.name)
    except CircuitOpen as exc:
        services.record_probe(cluster, ok=False, error=str(exc))
        raise ConnectionError(str(exc)) from exc
    except (ApiException, ConfigException, HTTPError, OSError) as exc:
        services.record_probe(cluster, ok=False, error=f"{type(exc).__name__}: {exc}")
        raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc
    services.record_probe(cluster, ok=True, version=version)
    return version


def cluster_checks() -> list[tuple[str, Callable[[], str]]]:
    return [(c.name, lambda c=c: probe_cluster(c)) for c in Cluster.objects.all()]
