"""Tier quota arithmetic, and the ResourceQuota/LimitRange objects that enforce it in each cluster.

The portal refuses a submission with these verdicts before anything is written; the ResourceQuotas
(one per tier, scoped by PriorityClass) make the apiserver enforce the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pincompute.grants import Allocation, PoolShortfall, shrink_violation
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL, TIER_LABEL
from pincompute.quantity import GPU_RESOURCE, Resources, format_amount
from pincompute.tiers import Tier

if TYPE_CHECKING:  # the specs import this module (DEFAULT_CONTAINER_REQUEST, pod_request)
    from pincompute.runtime.profile import RuntimeProfile
    from pincompute.specs import PodFields, Workload

# Requests assumed for a container that sets none; limit_range_manifest() makes the cluster agree.
DEFAULT_CONTAINER_REQUEST = Resources(cpu_milli=100, memory_bytes=128 * 2**20)

NO_OVERHEAD = Resources()
"""The pod overhead of a pod without a RuntimeClass (the default of every ``overhead`` parameter)."""

_QUOTA_KEYS = {"cpu": "requests.cpu", "memory": "requests.memory", "gpu": f"requests.{GPU_RESOURCE}"}


__all__ = ["PoolShortfall", "shrink_violation"]  # moved to pincompute.grants; still importable here


@dataclass(frozen=True)
class TierQuota:
    """Granted limit per tier; a tier that is absent has a quota of zero.

    ``pods`` caps the number of pods per tier; a tier absent from it has no pod cap (pods are not a
    resource the pools or the containers have, so they live beside ``limits``)."""

    limits: Mapping[Tier, Resources] = field(default_factory=dict)
    pods: Mapping[Tier, int] = field(default_factory=dict)

    def for_tier(self, tier: Tier) -> Resources:
        return self.limits.get(tier, Resources())

    @classmethod
    def from_allocations(cls, grants: Mapping[Tier, Allocation]) -> TierQuota:
        """From the portal's grants (every tier given gets its pod cap too)."""
        return cls({t: g.resources for t, g in grants.items()}, {t: g.pods for t, g in grants.items()})

    @classmethod
    def from_k8s(cls, values: Mapping[str, Mapping[str, str | int]]) -> TierQuota:
        """Build from ``{"Reserved": {"cpu": "8", "memory": "32Gi"}, ...}`` as stored by the portal."""
        return cls({Tier.parse(name): Resources.from_k8s(res) for name, res in values.items()})


@dataclass(frozen=True)
class TierUsage:
    """Requests already admitted per tier (from live ResourceQuota status or the portal's ledger)."""

    used: Mapping[Tier, Resources] = field(default_factory=dict)

    def for_tier(self, tier: Tier) -> Resources:
        return self.used.get(tier, Resources())

    def plus(self, tier: Tier, amount: Resources) -> TierUsage:
        merged = dict(self.used)
        merged[tier] = self.for_tier(tier) + amount
        return TierUsage(merged)


@dataclass(frozen=True)
class QuotaViolation:
    tier: Tier
    resource: str
    limit: int
    used: int
    requested: int
    over_by: int
    message: str


@dataclass(frozen=True)
class QuotaVerdict:
    ok: bool
    violations: list[QuotaViolation]


def check_fit(quota: TierQuota, usage: TierUsage, request: Resources, tier: Tier) -> QuotaVerdict:
    """Does ``request`` fit in ``tier`` on top of what is used? Names every resource that does not."""
    limit = quota.for_tier(tier).amounts()
    used = usage.for_tier(tier).amounts()
    violations = []
    for resource, requested in request.amounts().items():
        over = requested + used[resource] - limit[resource]
        if requested > 0 and over > 0:

            def fmt(amount: int, resource: str = resource) -> str:
                return format_amount(resource, amount)

            message = (
                f"{tier.value} {resource}: requested {fmt(requested)} + used {fmt(used[resource])} "
                f"exceeds the quota of {fmt(limit[resource])} by {fmt(over)}"
            )
            violations.append(QuotaViolation(tier, resource, limit[resource], used[resource], requested, over, message))
    return QuotaVerdict(ok=not violations, violations=violations)


def pod_request(
    containers: Sequence[Resources],
    init_containers: Sequence[tuple[Resources, bool]] = (),
    overhead: Resources = NO_OVERHEAD,
) -> Resources:
    """Effective pod request as the scheduler and ResourceQuota count it.

    ``init_containers`` are ``(request, is_native_sidecar)`` in order: sidecars add up with the main
    containers, while a plain init container only needs its own request plus the sidecars started
    before it, so the pod needs the max of the two phases, per resource. ``overhead`` is the pod
    overhead its RuntimeClass sets (``spec.overhead``), added on top as Kubernetes does.
    """
    sidecars = Resources()
    init_peak = Resources()
    for request, is_sidecar in init_containers:
        if is_sidecar:
            sidecars = sidecars + request
            init_peak = _max(init_peak, sidecars)
        else:
            init_peak = _max(init_peak, sidecars + request)
    running = sidecars
    for request in containers:
        running = running + request
    return _max(running, init_peak) + overhead


def _max(a: Resources, b: Resources) -> Resources:
    return Resources(max(a.cpu_milli, b.cpu_milli), max(a.memory_bytes, b.memory_bytes), max(a.gpu, b.gpu))


def resource_quota_manifests(
    namespace: str, quota: TierQuota, *, deny_unclassified: bool = False
) -> list[dict[str, Any]]:
    """One ResourceQuota per tier scoped by the tier's PriorityClass (absent tiers get zero).

    With ``deny_unclassified`` a further quota allows no pod without a PinCompute PriorityClass, closing
    the loophole of a hand-made pod that no tier counts.
    """
    manifests: list[dict[str, Any]] = []
    for tier in Tier:
        amounts = quota.for_tier(tier)
        hard = {_QUOTA_KEYS[name]: format_amount(name, value) for name, value in amounts.amounts().items()}
        if tier in quota.pods:
            hard["pods"] = str(quota.pods[tier])
        manifests.append(_quota(namespace, f"pincompute-{tier.label}", hard, "In", [tier.priority_class], tier.label))
    if deny_unclassified:
        manifests.append(
            _quota(namespace, "pincompute-unclassified", {"pods": "0"}, "NotIn", [t.priority_class for t in Tier], None)
        )
    return manifests


def _quota(
    namespace: str, name: str, hard: dict[str, str], operator: str, values: list[str], tier_label: str | None
) -> dict[str, Any]:
    labels = {MANAGED_BY_LABEL: MANAGED_BY}
    if tier_label:
        labels[TIER_LABEL] = tier_label
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {
            "hard": hard,
            "scopeSelector": {
                "matchExpressions": [{"scopeName": "PriorityClass", "operator": operator, "values": values}]
            },
        },
    }


def limit_range_manifest(namespace: str) -> dict[str, Any]:
    """Default container requests so that quota counts every container the way core arithmetic does.

    No default *limits*: a default memory limit below a user's request would make the pod invalid.
    """
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "pincompute-defaults", "namespace": namespace, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "spec": {"limits": [{"type": "Container", "defaultRequest": DEFAULT_CONTAINER_REQUEST.to_k8s()}]},
    }


def workload_request(
    workload: Workload,
    *,
    profile: RuntimeProfile | None = None,
    node_count: int = 1,
    overhead: Resources = NO_OVERHEAD,
) -> Resources:
    """Total requests a workload holds when running, which is what its tier quota must cover.

    Pods: PinPod 1; PinApp and PinterestService ``replicas``; PinterestJobSet ``parallelism`` (pods
    running at once); PinterestCronJob 1 run; PinterestTrainingJob master + workers; PinterestDaemon one
    per node, so ``node_count`` is the node count of the target cluster. PinScaler itself requests
    nothing (admission counts its bounds in its PinApp's claim: ``federation.autoscaling``). Paused or stopped
    workloads still count: resuming them must not break the quota. With a ``profile``, the platform
    sidecars and init containers are counted too, exactly as the ResourceQuota will; ``overhead`` is
    each pod's RuntimeClass overhead.
    """
    shape = pods_of(workload, node_count)
    if shape is None:
        return Resources()
    pod, pods = shape
    return pod_request_with_profile(pod, workload.kind, profile, overhead) * pods


def workload_pods(workload: Workload, *, node_count: int = 1) -> int:
    """How many pods ``workload`` runs at once, counted as ``workload_request`` counts them."""
    shape = pods_of(workload, node_count)
    return 0 if shape is None else shape[1]


def admitted_usage(
    workloads: Iterable[Workload],
    profile: RuntimeProfile | None = None,
    *,
    node_counts: Mapping[str, int] | None = None,
    overhead: Resources = NO_OVERHEAD,
) -> dict[Tier, Allocation]:
    """What a project's workloads hold per tier (requests and pods), every tier present.

    This is what federation admission counts against the project's grants, so each workload must be
    given once (deduplicate shards before calling). ``node_counts`` maps a PinterestDaemon's name to
    the nodes it runs on (default 1); ``overhead`` is each pod's RuntimeClass overhead.
    """
    usage = {tier: Allocation() for tier in Tier}
    counts = node_counts or {}
    for workload in workloads:
        nodes = counts.get(workload.meta.name, 1)
        request = workload_request(workload, profile=profile, node_count=nodes, overhead=overhead)
        tier = workload.meta.tier
        usage[tier] = usage[tier] + Allocation.of(request, workload_pods(workload, node_count=nodes))
    return usage


def pods_of(workload: Workload, node_count: int) -> tuple[PodFields, int] | None:
    """The pod template of ``workload`` and how many of it run at once; None when it runs no pods."""
    # Imported here because the specs import this module for the default container request.
    from pincompute.specs import (
        PinApp,
        PinPod,
        PinterestCronJob,
        PinterestDaemon,
        PinterestJobSet,
        PinterestService,
        PinterestTrainingJob,
    )

    if isinstance(workload, PinApp):
        return workload.template, workload.replicas
    if isinstance(workload, PinterestService):
        return workload.pod, workload.replicas
    if isinstance(workload, PinterestJobSet):
        return workload.pod, workload.parallelism
    if isinstance(workload, PinterestTrainingJob):
        return workload.pod, workload.world_size
    if isinstance(workload, PinterestDaemon):
        return workload.pod, node_count
    if isinstance(workload, PinPod | PinterestCronJob):
        return workload.pod, 1
    return None


def pod_request_with_profile(
    pod: PodFields, kind: str, profile: RuntimeProfile | None = None, overhead: Resources = NO_OVERHEAD
) -> Resources:
    """One pod's effective request: the profile's containers (first, in start order, as ``inject`` puts
    them), the user's native sidecars and containers, and the pod overhead. A platform container is
    counted like a user one: its request, else its limit, else the LimitRange default."""
    from pincompute.specs.common import Container  # the specs import this module

    init: list[tuple[Resources, bool]] = []
    if profile is not None:
        for name in profile.for_kind(kind).containers:
            platform = profile.containers[name]
            request = Container(name, platform.image, platform.manifest).effective_request()
            init.append((request, platform.role == "sidecar"))
    init += [(c.effective_request(), True) for c in pod.sidecars]
    return pod_request([c.effective_request() for c in pod.containers], init, overhead)
