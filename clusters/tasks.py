"""Periodic cluster probes: Celery beat runs ``clusters.probe_all`` (CLUSTER_PROBE_SECONDS) and each probe
records its result on the registry row. Pages only read that row and this process's breakers
(``clusters.health.health_of``); they never probe."""

from __future__ import annotations

from celery import shared_task

from clusters.health import probe_cluster
from clusters.models import Cluster


@shared_task(name="clusters.probe_all")
def probe_all() -> dict[str, bool]:
    """Probe every registered cluster; an open breaker answers at once. Safe to run twice."""
    results = {}
    for cluster in Cluster.objects.all():
        try:
            probe_cluster(cluster)
            results[cluster.name] = True
        except ConnectionError:
            results[cluster.name] = False
    return results
