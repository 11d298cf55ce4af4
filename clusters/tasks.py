"""Periodic cluster work and the registry's writes to the host.

- ``probe_all``: Celery beat (CLUSTER_PROBE_SECONDS); each probe records its result on the registry row.
  Pages only read that row and this process's breakers (``clusters.health.health_of``); they never probe.
- ``sync_member_cluster(cluster_id)``: queued by ``clusters.services`` once a registration or an edit of a
  member's attributes or pools commits: its ``MemberCluster`` object on every host (``clusters.member_objects``).
- ``sync_member_clusters()``: Celery beat (MEMBER_CLUSTER_SYNC_SECONDS; a thread under ``dev``) and queued
  when a host is registered: the level-triggered pass that converges every host, whatever was missed
  (a host that was down during an edit, a lost task).

A host that cannot be reached (or refuses a member's object) never fails the edit that queued the sync: the failure
is logged, returned and recorded on the member's row (its cluster page and ``/readyz``'s detail say so), and the next
pass applies what is still missing.
"""

from __future__ import annotations

import logging

from celery import shared_task

from base.errors import ServiceError
from clusters import member_objects, services
from clusters.health import probe_cluster
from clusters.models import Cluster, FederationRole

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
    outcome per host (``failed: ...`` when a host could not take it: the periodic pass retries). A member's
    outcome is recorded on its row (``services.record_host_sync``), which its page and ``/readyz`` show."""
    cluster = Cluster.objects.filter(pk=cluster_id).prefetch_related("pools").first()
    if cluster is None:
        return {}
    outcomes, failures = {}, []
    for host in member_objects.hosts():
        if host.pk == cluster.pk:
            continue
        try:
            outcomes[host.name] = member_objects.sync_member(host, cluster)
        except ServiceError as exc:
            log.warning("member cluster sync: %s (the periodic pass retries)", exc.message)
            outcomes[host.name] = f"failed: {exc.message}"
            failures.append(exc.message)
    if cluster.role == FederationRole.MEMBER:
        services.record_host_sync({cluster.name: "; ".join(failures)})
    return outcomes


@shared_task(name="clusters.sync_member_clusters")
def sync_member_clusters() -> dict[str, str]:
    """Converge every host's MemberCluster objects on the registry; returns a line per host, and records each
    member's outcome on its row (a host that cannot be listed fails every member's)."""
    outcomes = {}
    members = list(Cluster.objects.members().values_list("name", flat=True))
    failures: dict[str, list[str]] = {name: [] for name in members}
    for host in member_objects.hosts():
        try:
            done = member_objects.sync_host(host)
        except ServiceError as exc:
            log.warning("member cluster sync: %s (retried at the next pass)", exc.message)
            outcomes[host.name] = f"failed: {exc.message}"
            for name in members:
                if name != host.name:
                    failures[name].append(exc.message)
            continue
        for name, why in done.failed.items():
            log.warning("member cluster sync: MemberCluster %s on %s: %s (retried at the next pass)", name, host, why)
            failures.setdefault(name, []).append(f"MemberCluster {name} on {host.name}: {why}")
        refused = f", failed {len(done.failed)}" if done.failed else ""
        outcomes[host.name] = f"applied {len(done.applied)}, deleted {len(done.deleted)}{refused}"
    services.record_host_sync({name: "; ".join(why) for name, why in failures.items()})
    return outcomes
