"""The largest request that fits now, per tier and member cluster, for one project (``pincompute.largest_fit``), fed
from the portal's caches only: the grants from the database, what the project's admitted workloads hold
(``headroom.project_usage``), each member as the federation sees it (the host's ``MemberCluster`` objects with what
the federation has placed there, ``federation.placed``) and each member's nodes and pods (its watch cache).

The quota page, ``GET /api/v1/projects/<name>/quota/fit/``, ``pincompute quota fit`` and the workload preview read
it. Every answer is a whole pod's request, the platform's own containers included (``platform``: what they take,
the runtime profile's containers of a PinPod); what the user's containers may ask is that much less.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from clusters import runtime
from clusters.health import not_synced
from pincompute.cluster_scheduling import ClusterCandidate
from pincompute.federation.members import candidate_of
from pincompute.federation.placed import placed_usage
from pincompute.grants import Allocation
from pincompute.kinds import KINDS, MEMBER_CLUSTER
from pincompute.largest_fit import LargestFit, NodeRoom, largest_fit, node_rooms
from pincompute.quantity import Resources
from pincompute.quota import pod_request
from pincompute.runtime import RuntimeProfile, load_profile
from pincompute.specs.cache import parse_version
from pincompute.specs.common import Container
from pincompute.tenancy import admission_grant
from pincompute.tiers import Tier
from projects.grants import grants_of
from projects.headroom import ProjectUsage, project_usage
from projects.models import Project


@dataclass(frozen=True)
class TierFit:
    """One tier: what the project has left of its grant, and each member's largest fitting request."""

    tier: Tier
    grant_left: Allocation
    clusters: list[LargestFit]

    @property
    def best(self) -> LargestFit | None:
        """The member that takes the largest pod (by CPU, then memory), or None when none takes any."""
        fitting = [c for c in self.clusters if c.joint is not None]
        return max(fitting, key=lambda c: (c.largest["cpu"] or 0, c.largest["memory"] or 0), default=None)


@dataclass(frozen=True)
class Member:
    """One member as the federation sees it (every tier's placed requests) and its nodes' free room."""

    candidate: ClusterCandidate
    nodes: list[NodeRoom]


@dataclass(frozen=True)
class FitNow:
    tiers: list[TierFit]
    platform: Resources  # what the platform's own containers add to every pod (included in every answer)
    problems: list[str] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)

    def tier(self, tier: Tier) -> TierFit:
        return next(t for t in self.tiers if t.tier is tier)


def platform_share(profile: RuntimeProfile, kind: str = "PinPod") -> Resources:
    """What the runtime profile's containers add to a pod of ``kind`` with no containers of its own."""
    init = []
    for name in profile.for_kind(kind).containers:
        platform = profile.containers[name]
        init.append(
            (Container(name, platform.image, platform.manifest).effective_request(), platform.role == "sidecar")
        )
    return pod_request([], init)


def fit_now(project: Project, usage: ProjectUsage | None = None) -> FitNow:
    """Per tier and member: the largest pod the project could run there now. Takes a project the caller may see;
    ``usage`` when the caller already read it (the quota page)."""
    usage = usage if usage is not None else project_usage(project)
    grants = grants_of(project)
    profile = load_profile()
    base = platform_share(profile)
    problems: list[str] = []
    host = runtime.host_cache()
    members: list[Mapping[str, Any]] = []
    placed: dict[str, dict[Tier, Resources]] = {}
    if host is None:
        problems.append("The host's cache is not available: no member can be judged.")
    else:
        if not host.synced:
            problems.append(not_synced("the host", host) + ": figures may lag.")
        members = sorted(host.list(MEMBER_CLUSTER.plural), key=lambda m: str(m["metadata"]["name"]))
        objects = ((info.kind, obj) for info in KINDS.values() for obj in host.list(info.plural))
        placed = placed_usage(objects, profile, lambda kind, obj: parse_version(_manifest(obj, kind)))
    nodes = _nodes([str(m["metadata"]["name"]) for m in members], problems)
    seen = [
        Member(
            candidate_of(m, healthy=_ready(m), tier_requested=placed.get(str(m["metadata"]["name"]), {})),
            nodes.get(str(m["metadata"]["name"]), []),
        )
        for m in members
    ]
    tiers = []
    for tier in Tier:
        grant = admission_grant(grants[tier])
        left = grant - usage.admitted[tier]
        ratio = Fraction(grant.memory_bytes, grant.cpu_milli) if grant.cpu_milli > 0 else Fraction(0)
        fits = [largest_fit(tier, left, m.candidate, m.nodes, base=base, memory_per_milli=ratio) for m in seen]
        tiers.append(TierFit(tier, left, fits))
    return FitNow(tiers, base, problems, seen)


def _nodes(names: Sequence[str], problems: list[str]) -> dict[str, list[NodeRoom]]:
    caches = runtime.member_caches()
    out = {}
    for name in names:
        cache = caches.get(name)
        if cache is None or not cache.synced:
            problems.append(not_synced(name, cache) + ": its nodes' free room may be missing or lag.")
        if cache is not None:
            out[name] = node_rooms(cache.list("nodes"), cache.list("pods"))
    return out


def _ready(member: Mapping[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (member.get("status") or {}).get("conditions") or ()
    )


def _manifest(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    return {
        "apiVersion": KINDS[kind].api_version,
        "kind": kind,
        "metadata": dict(obj.get("metadata") or {}),
        "spec": obj.get("spec"),
        "status": obj.get("status") or {},
    }
