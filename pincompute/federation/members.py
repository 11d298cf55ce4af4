"""Member clusters as the federation sees them: one cluster-scoped ``MemberCluster`` object per member on
the host (like Karmada's ``Cluster``).

The portal's cluster registry writes the spec (``member_cluster_manifest``): region, zone, hardware
families, pool capacity per pool kind, labels, taints, schedulable. The federation controller writes the
status (``member_status``): whether it reaches the member (``Ready`` with since when) and its nodes (count,
largest node, total allocatable). ``candidate_of`` turns both into the scheduler's ``ClusterCandidate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pincompute.cluster_scheduling import ClusterCandidate
from pincompute.federation.failover import DRAINED, MemberLoss
from pincompute.kinds import MEMBER_CLUSTER
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.quantity import GPU_RESOURCE, Resources
from pincompute.specs.schema import DATE_TIME, Arr, Bool, Field, Int, IntOrStr, MapOf, Obj, Str, obj
from pincompute.status import rfc3339
from pincompute.tiers import Tier

POOL_KINDS = ("reserved", "ondemand", "burst")
"""The pool kinds a member offers, as the registry spells them (``clusters.models.PoolKind``)."""


def _amounts_schema(description: str) -> Obj:
    return obj(
        Field("cpu", IntOrStr(description="CPU, as a quantity.")),
        Field("memory", IntOrStr(description="Memory, as a quantity.")),
        Field(GPU_RESOURCE, IntOrStr(description="GPUs.")),
        description=description,
    )


MEMBER_CLUSTER_SPEC = obj(
    Field("region", Str(description="The member's region."), required=True),
    Field("zone", Str(description="The member's zone (one zone per member)."), required=True),
    Field("hardwareFamilies", Arr(items=Str(), description="Hardware families its nodes offer."), nullable=True),
    Field(
        "pools",
        obj(
            *(Field(kind, _amounts_schema(f"The {kind} pool's capacity (requests).")) for kind in POOL_KINDS),
            description="Requests capacity per pool kind.",
        ),
    ),
    Field("labels", MapOf(description="Cluster labels a workload's placement may select on."), nullable=True),
    Field(
        "taints",
        Arr(
            items=obj(
                Field("key", Str(description="The taint's key."), required=True),
                Field("value", Str(description="Its value.")),
                Field("effect", Str(description="NoSchedule, PreferNoSchedule or NoExecute.")),
                description="A taint: only workloads that tolerate it are placed here.",
            ),
            description="Cluster taints a workload must tolerate to be placed here.",
        ),
        nullable=True,
    ),
    Field("schedulable", Bool(description="False: closed to new shards (running shards stay).")),
    Field("cordoned", Bool(description="True: an admin's cordon closes it to new shards (running shards stay).")),
    Field(
        "drain",
        obj(
            Field("requestedAt", Str(format=DATE_TIME, description="When an admin drained it."), required=True),
            Field("jobsDeadline", Str(format=DATE_TIME, description="Until when a job may finish here first.")),
            description="A drain: long-running workloads move off at once (the new shards ready before the old go), "
            "jobs at the deadline.",
        ),
        nullable=True,
    ),
    description="A member cluster's attributes, written by the portal's cluster registry.",
)

MEMBER_CLUSTER_STATUS_FIELDS = (
    Field("nodeCount", Int(description="Ready nodes, as last observed.")),
    Field("largestNode", _amounts_schema("The largest node's allocatable: what one pod can at most request.")),
    Field("allocatable", _amounts_schema("Every ready node's allocatable, summed.")),
)


@dataclass(frozen=True)
class MemberSpec:
    """What the registry knows about one member (pools keyed by ``POOL_KINDS``)."""

    name: str
    region: str
    zone: str
    hardware_families: Sequence[str] = ()
    pools: Mapping[str, Resources] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: Sequence[Mapping[str, str]] = ()
    schedulable: bool = True
    cordoned: bool = False
    drain_requested_at: datetime | None = None
    drain_jobs_deadline: datetime | None = None


def member_cluster_manifest(member: MemberSpec) -> dict[str, Any]:
    """The host's ``MemberCluster`` object for ``member`` (every pool kind spelled out)."""
    return {
        "apiVersion": MEMBER_CLUSTER.api_version,
        "kind": MEMBER_CLUSTER.kind,
        "metadata": {"name": member.name, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "spec": {
            "region": member.region,
            "zone": member.zone,
            "hardwareFamilies": sorted(member.hardware_families),
            "pools": {kind: _amounts(member.pools.get(kind, Resources())) for kind in POOL_KINDS},
            "labels": dict(member.labels),
            "taints": [dict(t) for t in member.taints],
            "schedulable": member.schedulable,
            "cordoned": member.cordoned,
            **_drain(member),
        },
    }


def _drain(member: MemberSpec) -> dict[str, dict[str, str]]:
    """``{"drain": ...}`` while drained, else nothing (server-side apply removes a field its manager stops sending)."""
    if member.drain_requested_at is None:
        return {}
    deadline = member.drain_jobs_deadline or member.drain_requested_at
    return {"drain": {"requestedAt": rfc3339(member.drain_requested_at), "jobsDeadline": rfc3339(deadline)}}


def drain_of(obj: Mapping[str, Any]) -> MemberLoss | None:
    """A drained ``MemberCluster``'s loss (``failover.DRAINED`` since its request, jobs until the deadline)."""
    drain = (obj.get("spec") or {}).get("drain") or {}
    if not drain.get("requestedAt"):
        return None
    since = _parse_time(str(drain["requestedAt"]))
    deadline = _parse_time(str(drain.get("jobsDeadline") or drain["requestedAt"]))
    return MemberLoss(str((obj.get("metadata") or {}).get("name")), DRAINED, since, deadline)


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass(frozen=True)
class NodeSummary:
    """A member's nodes as last listed."""

    count: int = 0
    largest: Resources = field(default_factory=Resources)
    allocatable: Resources = field(default_factory=Resources)

    @classmethod
    def of(cls, nodes: Sequence[Mapping[str, Any]]) -> NodeSummary:
        """From Node objects: ready, schedulable nodes only (``spec.unschedulable`` nodes are cordoned)."""
        sizes = [
            Resources.from_k8s((n.get("status") or {}).get("allocatable") or {})
            for n in nodes
            if not (n.get("spec") or {}).get("unschedulable")
        ]
        total = sum(sizes, Resources())
        largest = max(sizes, key=lambda r: (r.cpu_milli, r.memory_bytes, r.gpu), default=Resources())
        return cls(len(sizes), largest, total)


def member_status(
    *, reachable: bool, since: datetime, message: str, nodes: NodeSummary | None, generation: int
) -> dict[str, Any]:
    """The status the federation controller writes: ``Ready`` (reachable since/unreachable since) and nodes."""
    condition = {
        "type": "Ready",
        "status": "True" if reachable else "False",
        "reason": "MemberReachable" if reachable else "MemberUnreachable",
        "message": message,
        "lastTransitionTime": rfc3339(since),
        "observedGeneration": generation,
    }
    status: dict[str, Any] = {"observedGeneration": generation, "conditions": [condition]}
    if nodes is not None:
        status["nodeCount"] = nodes.count
        status["largestNode"] = _amounts(nodes.largest)
        status["allocatable"] = _amounts(nodes.allocatable)
    return status


def candidate_of(
    obj: Mapping[str, Any],
    *,
    healthy: bool,
    tier_requested: Mapping[Tier, Resources],
    nodes: NodeSummary | None = None,
) -> ClusterCandidate:
    """The scheduler's view of a ``MemberCluster`` object; ``nodes`` default to its status's."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    pools = {kind: Resources.from_k8s((spec.get("pools") or {}).get(kind) or {}) for kind in POOL_KINDS}
    if nodes is None:
        nodes = NodeSummary(int(status.get("nodeCount") or 0), Resources.from_k8s(status.get("largestNode") or {}))
    return ClusterCandidate(
        name=str((obj.get("metadata") or {}).get("name")),
        region=str(spec.get("region") or ""),
        zone=str(spec.get("zone") or ""),
        role="member",
        schedulable=bool(spec.get("schedulable", True)) and not spec.get("cordoned"),
        healthy=healthy,
        hardware_families=frozenset(str(f) for f in spec.get("hardwareFamilies") or []),
        labels={str(k): str(v) for k, v in (spec.get("labels") or {}).items()},
        taints=[{str(k): str(v) for k, v in t.items()} for t in spec.get("taints") or []],
        pool_capacity={Tier.RESERVED: pools["reserved"], Tier.ONDEMAND: pools["ondemand"]},
        tier_requested=dict(tier_requested),
        node_allocatable=nodes.largest,
        node_count=nodes.count,
        burst_buffer=pools["burst"],
    )


def _amounts(resources: Resources) -> dict[str, str]:
    return {**resources.to_k8s(), GPU_RESOURCE: str(resources.gpu)}
