"""Periodic cluster probes (Celery beat in production; the cluster page refreshes stale ones itself)."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.db.models import Q
from django.utils import timezone

from clusters.health import probe_cluster
from clusters.models import Cluster

STALE_AFTER = timedelta(seconds=30)


def probe_stale(max_age: timedelta = STALE_AFTER) -> dict[str, bool]:
    """Probe clusters whose last probe is older than `max_age`; an open breaker answers instantly."""
    cutoff = timezone.now() - max_age
    results = {}
    for cluster in Cluster.objects.filter(Q(last_probe_at__isnull=True) | Q(last_probe_at__lt=cutoff)):
        try:
            probe_cluster(cluster)
            results[cluster.name] = True
        except ConnectionError:
            results[cluster.name] = False
    return results


@shared_task(name="clusters.probe_all")
def probe_all() -> dict[str, bool]:
    return probe_stale(timedelta(0))
