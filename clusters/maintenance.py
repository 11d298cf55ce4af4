"""Cordon, drain and uncordon: a platform admin takes a member, or one of its nodes, out of service and back.

- A member's cordon closes it to new shards (the federation's placement filters it out); what runs stays.
- A drain cordons it and moves what runs there: long-running workloads at once under the failover placement (the
  shards that take their replicas are ready before the old ones go), jobs at the drain's deadline unless they have
  finished (``pincompute.federation.failover``). Progress is what the host still places on the member.
- Uncordon returns it to service in one action: cordon and drain lifted.
- A node's cordon marks that node unschedulable on its member (``kubectl cordon``); uncordon lifts it.

Each is ``verb_noun(target, *, actor)``, written in one transaction, audited, and followed on the host once it
commits (``services.follow_on_host``); a node's cordon is written on the member through its breaker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from base import audit
from base.errors import Invalid, NotFound
from clusters import remote, runtime
from clusters.models import Cluster, FederationRole
from clusters.services import follow_on_host
from pincompute.kinds import KINDS

DEFAULT_JOBS_DEADLINE_SECONDS = 600
MAX_JOBS_DEADLINE_SECONDS = 7 * 86400


def _member(cluster_id: int) -> Cluster:
    cluster = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
    if cluster is None:
        raise NotFound("No such cluster.")
    if cluster.role != FederationRole.MEMBER:
        raise Invalid(f"{cluster.name} is a {cluster.role} cluster: only a member runs workloads to cordon or drain.")
    return cluster


def _state(cluster: Cluster) -> dict[str, Any]:
    return {
        "cordoned": cluster.cordoned,
        "drain_requested_at": cluster.drain_requested_at.isoformat() if cluster.drain_requested_at else None,
        "drain_jobs_deadline": cluster.drain_jobs_deadline.isoformat() if cluster.drain_jobs_deadline else None,
    }


def _save(cluster: Cluster, action: str, summary: str, before: dict[str, Any], actor: Any) -> Cluster:
    cluster.save(update_fields=["cordoned", "drain_requested_at", "drain_jobs_deadline", "updated_at"])
    audit.record(
        f"cluster.{action}",
        actor=actor,
        target_kind="Cluster",
        target_name=cluster.name,
        cluster=cluster.name,
        before=before,
        after=_state(cluster),
        summary=summary,
    )
    follow_on_host(cluster)
    return cluster


@transaction.atomic
def cordon_cluster(cluster_id: int, *, actor: Any) -> Cluster:
    """Close a member to new shards; what runs there stays."""
    cluster = _member(cluster_id)
    before = _state(cluster)
    cluster.cordoned = True
    return _save(cluster, "cordon", f"Cordoned {cluster.name}: no new shards are placed there", before, actor)


@transaction.atomic
def drain_cluster(
    cluster_id: int, *, jobs_deadline_seconds: Any = DEFAULT_JOBS_DEADLINE_SECONDS, actor: Any
) -> Cluster:
    """Cordon a member and move what runs there: long-running workloads now, jobs at the deadline."""
    if (
        isinstance(jobs_deadline_seconds, bool)
        or not isinstance(jobs_deadline_seconds, int)
        or not 0 <= jobs_deadline_seconds <= MAX_JOBS_DEADLINE_SECONDS
    ):
        raise Invalid.on_fields(
            {"jobs_deadline_seconds": f"A whole number of seconds from 0 to {MAX_JOBS_DEADLINE_SECONDS}."}
        )
    cluster = _member(cluster_id)
    before = _state(cluster)
    now = timezone.now()
    cluster.cordoned = True
    cluster.drain_requested_at = cluster.drain_requested_at or now
    cluster.drain_jobs_deadline = now + timedelta(seconds=jobs_deadline_seconds)
    summary = f"Drained {cluster.name}: workloads move off now, jobs by {cluster.drain_jobs_deadline:%Y-%m-%d %H:%M:%S}"
    return _save(cluster, "drain", summary, before, actor)


@transaction.atomic
def uncordon_cluster(cluster_id: int, *, actor: Any) -> Cluster:
    """Return a member to service: cordon and drain lifted (what moved off stays where it runs now)."""
    cluster = _member(cluster_id)
    before = _state(cluster)
    cluster.cordoned = False
    cluster.drain_requested_at = cluster.drain_jobs_deadline = None
    return _save(cluster, "uncordon", f"Returned {cluster.name} to service", before, actor)


def cordon_node(cluster_id: int, node: str, *, unschedulable: bool, actor: Any) -> dict[str, Any]:
    """Mark one node of a member unschedulable (``unschedulable=False``: uncordon it), as ``kubectl cordon``."""
    with transaction.atomic():
        cluster = _member(cluster_id)
    from kubernetes import client as k8s

    where = f"{'cordon' if unschedulable else 'uncordon'} node {node} on {cluster.name}"

    def patch() -> Any:
        api = k8s.CoreV1Api(remote.client(cluster, where))
        return api.patch_node(node, {"spec": {"unschedulable": unschedulable}})

    remote.guarded(where, lambda: remote.through_breaker(cluster, patch))
    verb = "cordon" if unschedulable else "uncordon"
    audit.record(
        f"node.{verb}",
        actor=actor,
        target_kind="Node",
        target_name=node,
        cluster=cluster.name,
        after={"unschedulable": unschedulable},
        summary=f"{verb.capitalize()}ed node {node} on {cluster.name}",
    )
    return {"cluster": cluster.name, "node": node, "unschedulable": unschedulable}


@dataclass(frozen=True)
class DrainProgress:
    """What the host still places on a member (``placed``: kind/namespace/name) and what is moving off it."""

    cordoned: bool
    draining: bool
    placed: list[str] = field(default_factory=list)
    moving: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.draining and not self.placed and not self.moving


def drain_progress(cluster: Cluster) -> DrainProgress:
    """Read from the host's watch cache: the workloads placed on ``cluster`` and those whose moves off it are in
    flight (their old shard there not removed yet)."""
    placed, moving = [], []
    host = runtime.host_cache()
    for info in KINDS.values():
        for obj in host.list(info.plural) if host is not None else ():
            record = (obj.get("status") or {}).get("placement") or {}
            ref = f"{info.kind}/{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"
            if any(row.get("cluster") == cluster.name for row in record.get("clusters") or []):
                placed.append(ref)
            elif any(row.get("from") == cluster.name for row in record.get("failover") or []):
                moving.append(ref)
    return DrainProgress(cluster.cordoned, cluster.drain_requested_at is not None, sorted(placed), sorted(moving))
