"""Cordon, drain and uncordon: a platform admin takes a member, or one of its nodes, out of service and back.

- A member's cordon closes it to new shards (the federation's placement filters it out); what runs stays.
- A drain cordons it and moves what runs there: long-running workloads at once under the failover placement (the
  shards that take their replicas are ready before the old ones go), jobs at the drain's deadline unless they have
  finished (``pincompute.federation.failover``). Progress is what the host still places on the member.
- Uncordon returns it to service in one action: cordon and drain lifted.
- A node's cordon marks that node unschedulable on its member (``kubectl cordon``); uncordon lifts it.
- A node's drain cordons it, then asks the Eviction API to evict every pod on it, as ``kubectl drain
  --ignore-daemonsets`` does: the pods' controllers start them on other nodes and disruption budgets hold (an
  eviction a budget forbids is refused by the apiserver with 429 and reported, never forced). Pods a DaemonSet runs
  (they belong on every node) and mirror pods (the kubelet's static pods) stay, as with kubectl.

Each is ``verb_noun(target, *, actor)``, written in one transaction, audited, and followed on the host once it
commits (``services.follow_on_host``); a node's cordon is written on the member through its breaker.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
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
from pincompute.kinds import KINDS, Category

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


@dataclass(frozen=True)
class NodeResult:
    """What a node's cordon, uncordon or drain did (pods as namespace/name)."""

    cluster: str
    node: str
    unschedulable: bool
    evicted: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # pod -> the apiserver's reason (a disruption budget)
    kept: dict[str, str] = field(default_factory=dict)  # pod -> why a drain leaves it (DaemonSet, mirror pod)

    @property
    def drained(self) -> str:
        """A drain's outcome in one sentence (the audit's summary and the page's message)."""
        said = f"Drained node {self.node}: {len(self.evicted)} pod(s) evicted"
        if self.refused:
            said += f"; {len(self.refused)} kept by a disruption budget ({', '.join(sorted(self.refused))})"
        if self.kept:
            said += f"; {len(self.kept)} left in place (DaemonSet or mirror pods)"
        return said + "."


def cordon_node(cluster_id: int, node: str, *, unschedulable: bool, actor: Any) -> NodeResult:
    """Mark one node of a member unschedulable (``unschedulable=False``: uncordon it), as ``kubectl cordon``."""
    with transaction.atomic():
        cluster = _member(cluster_id)
    verb = "cordon" if unschedulable else "uncordon"
    _patch_node(cluster, node, unschedulable, f"{verb} node {node} on {cluster.name}")
    result = NodeResult(cluster.name, node, unschedulable)
    _audit_node(verb, result, actor, f"{verb.capitalize()}ed node {node} on {cluster.name}")
    return result


def drain_node(cluster_id: int, node: str, *, actor: Any) -> NodeResult:
    """Cordon one node of a member and evict its pods through the Eviction API (``kubectl drain``)."""
    from kubernetes import client as k8s

    with transaction.atomic():
        cluster = _member(cluster_id)
    where = f"drain node {node} on {cluster.name}"
    _patch_node(cluster, node, True, where)
    core = k8s.CoreV1Api(remote.client(cluster, where))
    on_node = f"spec.nodeName={node}"
    listed = remote.guarded(
        where, lambda: remote.through_breaker(cluster, lambda: core.list_pod_for_all_namespaces(field_selector=on_node))
    )
    evicted, refused, kept = [], {}, {}
    for pod in listed.items:
        ref = f"{pod.metadata.namespace}/{pod.metadata.name}"
        stays = why_drain_keeps(core.api_client.sanitize_for_serialization(pod))
        if stays:
            kept[ref] = stays
            continue
        outcome, why = remote.guarded(where, lambda p=pod: remote.through_breaker(cluster, lambda: _evict(core, p)))
        if outcome == "evicted":
            evicted.append(ref)
        elif outcome == "refused":
            refused[ref] = why
    result = NodeResult(cluster.name, node, True, sorted(evicted), refused, kept)
    _audit_node("drain", result, actor, result.drained)
    return result


def _evict(core: Any, pod: Any) -> tuple[str, str]:
    """("evicted" | "gone" | "refused", the apiserver's reason): a budget's 429 is an answer here, not an error to
    retry (the breaker's retries would only ask again)."""
    from kubernetes import client as k8s
    from kubernetes.client.exceptions import ApiException

    meta = k8s.V1ObjectMeta(name=pod.metadata.name, namespace=pod.metadata.namespace)
    try:
        core.create_namespaced_pod_eviction(pod.metadata.name, pod.metadata.namespace, k8s.V1Eviction(metadata=meta))
    except ApiException as exc:
        if exc.status == 404:
            return "gone", ""
        if exc.status == 429:
            return "refused", _reason(exc)
        raise
    return "evicted", ""


def why_drain_keeps(pod: dict[str, Any]) -> str | None:
    """Why a drain leaves this pod where it is, as ``kubectl drain --ignore-daemonsets`` would; None: evict it."""
    meta = pod.get("metadata") or {}
    if MIRROR_ANNOTATION in (meta.get("annotations") or {}):
        return "a mirror pod: the kubelet runs it from a file on the node"
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    if owner is not None and owner.get("kind") == "DaemonSet":
        return f"run by DaemonSet {owner.get('name')}, which belongs on every node"
    if meta.get("deletionTimestamp"):
        return "already terminating"
    return None


MIRROR_ANNOTATION = "kubernetes.io/config.mirror"


def _reason(exc: Any) -> str:
    """The refusal's message and its causes ("The disruption budget web needs 2 healthy pods and has 2 currently")."""
    try:
        status = json.loads(exc.body or "{}")
    except ValueError:
        return str(exc.reason)
    causes = [str(c.get("message")) for c in (status.get("details") or {}).get("causes") or [] if c.get("message")]
    return ": ".join([str(status.get("message") or exc.reason), *causes])


def _patch_node(cluster: Cluster, node: str, unschedulable: bool, where: str) -> None:
    from kubernetes import client as k8s
    from kubernetes.client.exceptions import ApiException

    def patch() -> Any:
        core = k8s.CoreV1Api(remote.client(cluster, where))
        try:
            return core.patch_node(node, {"spec": {"unschedulable": unschedulable}})
        except ApiException as exc:
            if exc.status == 404:
                raise NotFound(f"{cluster.name} has no node {node}.") from exc
            raise

    remote.guarded(where, lambda: remote.through_breaker(cluster, patch))


def _audit_node(verb: str, result: NodeResult, actor: Any, summary: str) -> None:
    after: dict[str, Any] = {"unschedulable": result.unschedulable}
    if verb == "drain":
        after |= {"evicted": result.evicted, "refused": result.refused, "kept": result.kept}
    audit.record(
        f"node.{verb}",
        actor=actor,
        target_kind="Node",
        target_name=result.node,
        cluster=result.cluster,
        after=after,
        summary=summary,
    )


@dataclass(frozen=True)
class DrainProgress:
    """What the host still places on a member (``placed``: kind/namespace/name), what is moving off it, and the
    run-to-finish workloads that succeeded there (``finished``: kept as records, run nowhere again; a drain leaves
    them, so they do not hold it open)."""

    cordoned: bool
    draining: bool
    placed: list[str] = field(default_factory=list)
    moving: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.draining and not self.placed and not self.moving


def drain_progress(cluster: Cluster) -> DrainProgress:
    """Read from the host's watch cache: the workloads placed on ``cluster`` and those whose moves off it are in
    flight (their old shard there not removed yet)."""
    host = runtime.host_cache()
    objects = [
        (info.kind, obj) for info in KINDS.values() for obj in (host.list(info.plural) if host is not None else ())
    ]
    return progress_of(cluster.name, cluster.cordoned, cluster.drain_requested_at is not None, objects)


def progress_of(
    name: str, cordoned: bool, draining: bool, objects: Iterable[tuple[str, Mapping[str, Any]]]
) -> DrainProgress:
    """``DrainProgress`` of member ``name`` from the host's workload objects, each with its kind (a list's items
    carry none)."""
    placed, moving, finished = [], [], []
    for kind, obj in objects:
        status = obj.get("status") or {}
        record = status.get("placement") or {}
        ref = f"{kind}/{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"
        if any(row.get("cluster") == name for row in record.get("clusters") or []):
            run_to_finish = KINDS[kind].category is Category.RUN_TO_FINISH
            (finished if run_to_finish and status.get("phase") == "Succeeded" else placed).append(ref)
        elif any(row.get("from") == name for row in record.get("failover") or []):
            moving.append(ref)
    return DrainProgress(cordoned, draining, sorted(placed), sorted(moving), sorted(finished))
