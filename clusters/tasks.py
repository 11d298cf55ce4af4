"""Periodic cluster work and the registry's writes to the host.

- ``probe_all``: Celery beat (CLUSTER_PROBE_SECONDS); each probe records its result on the registry row.
  Pages only read that row and this process's breakers (``clusters.health.health_of``); they never probe.
- ``sync_member_cluster(cluster_id)``: queued by ``clusters.services`` once a registration or an edit of a
  member's attributes or pools commits: its ``MemberCluster`` object on every host (``clusters.member_objects``).
- ``sync_member_clusters()``: Celery beat (MEMBER_CLUSTER_SYNC_SECONDS; a thread under ``dev``) and queued
  when a host is registered: the level-triggered pass that converges every host, whatever was missed
  (a host that was down during an edit, a lost task).

A host that cannot be reached never fails the edit that queued the sync: the failure is logged and returned,
and the next pass applies what is still missing.
"""

from __future__ import annotations

import logging

from celery import shared_task

from base.errors import ServiceError
from clusters import member_objects
from clusters.health import probe_cluster
from clusters.models import Cluster

log = logging.getLogger(__name__)


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


@shared_task(name="clusters.sync_member_cluster")
def sync_member_cluster(cluster_id: int) -> dict[str, str]:
    """Follow one cluster on every host (applied, or deleted once it is no longer a member); returns the
    outcome per host (``failed: ...`` when a host could not take it: the periodic pass retries)."""
    cluster = Cluster.objects.filter(pk=cluster_id).prefetch_related("pools").first()
    if cluster is None:
        return {}
    outcomes = {}
    for host in member_objects.hosts():
        if host.pk == cluster.pk:
            continue
        try:
            outcomes[host.name] = member_objects.sync_member(host, cluster)
        except ServiceError as exc:
            log.warning("member cluster sync: %s (the periodic pass retries)", exc.message)
            outcomes[host.name] = f"failed: {exc.message}"
    return outcomes


@shared_task(name="clusters.sync_member_clusters")
def sync_member_clusters() -> dict[str, str]:
    """Converge every host's MemberCluster objects on the registry; returns a line per host."""
    outcomes = {}
    for host in member_objects.hosts():
        try:
            done = member_objects.sync_host(host)
        except ServiceError as exc:
            log.warning("member cluster sync: %s (retried at the next pass)", exc.message)
            outcomes[host.name] = f"failed: {exc.message}"
            continue
        outcomes[host.name] = f"applied {len(done.applied)}, deleted {len(done.deleted)}"
    return outcomes
