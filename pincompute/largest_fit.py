"""The largest single pod request that would be admitted and placed now, per tier and member cluster.

Totals mislead: 12 free CPUs spread 3 per node do not run a 6-CPU pod. For one tier and one member this module
answers, per resource, the largest request of ONE pod that

1. federation admission lets in now: the project's grant in the tier minus what its admitted workloads hold
   (``federation.admission.shortfalls``, with one pod);
2. the federation places on this member now: ``cluster_scheduling.place`` over this member's ``ClusterCandidate``
   alone (its filters: member, schedulable, healthy, taints, the largest node; and the tier's pool headroom);
3. one of the member's nodes can take now without preempting anyone: its allocatable minus the requests of the
   pods bound to it (as the kube-scheduler counts them: ``quota.pod_request``), not cordoned, with no NoSchedule or
   NoExecute taint the pod does not tolerate, and a pod slot free.

Each resource's answer is taken with the others at ``base`` (the smallest pod the platform makes: its own
containers), so the three answers are **not jointly guaranteed**: the node with the most free CPU may hold little
memory. ``LargestFit.joint`` is the one bundle that is: the largest pod whose memory grows with its CPU at a given
ratio (bytes per millicore; the caller passes the tier grant's shape), all on one node. Units: millicores, bytes
and whole GPUs; "one unit more" than an answer is refused by at least one of the three checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place, tolerated
from pincompute.errors import NoFeasibleCluster
from pincompute.grants import Allocation
from pincompute.quantity import QuantityError, Resources, format_amount
from pincompute.quota import pod_request
from pincompute.tiers import Tier

RESOURCES = ("cpu", "memory", "gpu")
TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
NOTHING = Resources()


@dataclass(frozen=True)
class NodeRoom:
    """One node as the kube-scheduler weighs a new pod: what it offers and what its pods already request."""

    name: str
    allocatable: Resources
    requested: Resources = field(default_factory=Resources)
    pods_allocatable: int = 110
    pods: int = 0
    unschedulable: bool = False
    taints: tuple[Mapping[str, str], ...] = ()

    @property
    def free(self) -> Resources:
        return self.allocatable - self.requested

    def takes(self, request: Resources, tolerations: Sequence[Mapping[str, Any]] = ()) -> bool:
        """Whether the kube-scheduler would bind a pod of ``request`` here now (no preemption)."""
        if self.unschedulable or self.pods >= self.pods_allocatable:
            return False
        if any(t.get("effect") in BLOCKING_EFFECTS and not tolerated(t, tolerations) for t in self.taints):
            return False
        return request.fits_within(self.free)


@dataclass(frozen=True)
class LargestFit:
    """One tier on one member: per resource the largest pod request that fits now (None: no pod fits at all),
    what bounds each (``bounds[resource]``: a sentence per limit, the binding one first) and the joint bundle."""

    tier: Tier
    cluster: str
    largest: Mapping[str, int | None]
    bounds: Mapping[str, tuple[str, ...]]
    joint: Resources | None
    reasons: tuple[str, ...] = ()  # why no pod fits here at all
    pool_free: Resources = field(default_factory=Resources)  # the tier's pool headroom on this member
    node_free: Resources = field(default_factory=Resources)  # the most free on one usable node, per resource

    @property
    def fits_any(self) -> bool:
        return self.joint is not None

    def describe(self) -> str:
        """``6 cpu, 24Gi memory, 0 gpu on member-a``, or why nothing fits."""
        if not self.fits_any:
            return f"nothing fits on {self.cluster}: " + "; ".join(self.reasons)
        parts = [f"{format_amount(r, amount)} {r}" for r, amount in self.largest.items() if amount is not None]
        return ", ".join(parts) + f" on {self.cluster}"


def node_rooms(nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]) -> list[NodeRoom]:
    """Every node with the requests of the non-terminal pods bound to it (``spec.nodeName``)."""
    requested: dict[str, Resources] = {}
    counts: dict[str, int] = {}
    for pod in pods:
        node = str((pod.get("spec") or {}).get("nodeName") or "")
        if not node or (pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
            continue
        requested[node] = requested.get(node, Resources()) + scheduled_request(pod)
        counts[node] = counts.get(node, 0) + 1
    rooms = []
    for obj in nodes:
        name = str((obj.get("metadata") or {}).get("name") or "")
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        allocatable = status.get("allocatable") or {}
        rooms.append(
            NodeRoom(
                name,
                _resources(allocatable),
                requested.get(name, Resources()),
                _int(allocatable.get("pods"), 110),
                counts.get(name, 0),
                bool(spec.get("unschedulable")),
                tuple({str(k): str(v) for k, v in t.items()} for t in spec.get("taints") or ()),
            )
        )
    return rooms


def scheduled_request(pod: Mapping[str, Any]) -> Resources:
    """A pod's request as the kube-scheduler counts it: containers summed, init containers as a peak (native
    sidecars, ``restartPolicy: Always``, add up), plus ``spec.overhead``."""
    spec = pod.get("spec") or {}

    def requests(container: Mapping[str, Any]) -> Resources:
        return _resources((container.get("resources") or {}).get("requests") or {})

    init = [(requests(c), c.get("restartPolicy") == "Always") for c in spec.get("initContainers") or ()]
    return pod_request([requests(c) for c in spec.get("containers") or ()], init, _resources(spec.get("overhead")))


def largest_fit(
    tier: Tier,
    grant_left: Allocation,
    cluster: ClusterCandidate,
    nodes: Sequence[NodeRoom],
    *,
    base: Resources = NOTHING,
    memory_per_milli: Fraction = Fraction(0),
    tolerations: Sequence[Mapping[str, Any]] = (),
) -> LargestFit:
    """The largest pod request of ``tier`` that fits on ``cluster`` now (module docstring). ``grant_left``: the
    project's grant minus what its admitted workloads hold (pods: the pod slots left); ``base``: what every pod
    requests at least (the other resources of a per-resource answer); ``memory_per_milli``: the joint bundle's
    shape (0: memory at ``base``)."""
    reasons = _cluster_reasons(tier, cluster, base, tolerations)
    if grant_left.pods < 1:
        reasons.append(f"the {tier.value} grant has no pod left")
    short = base.exceeded_by(grant_left.resources)
    reasons += [
        f"the platform's own containers need {r} {format_amount(r, base.amounts()[r])}, more than the "
        f"{tier.value} grant has left"
        for r in short
    ]
    usable = [n for n in nodes if n.takes(base, tolerations)]
    if not usable and not reasons:
        reasons.append("no node has room for even the platform's own containers now")
    pool = cluster.headroom(tier)
    node_free = Resources(*(_best_node(usable, r) for r in RESOURCES))
    if reasons:
        empty = dict.fromkeys(RESOURCES)
        return LargestFit(tier, cluster.name, empty, {r: () for r in RESOURCES}, None, tuple(reasons), pool, node_free)
    largest: dict[str, int | None] = {}
    bounds: dict[str, tuple[str, ...]] = {}
    for resource in RESOURCES:
        limits = {
            f"the {tier.value} grant has {{}} left": grant_left.resources.amounts()[resource],
            f"the {tier.value} pool on {cluster.name} has {{}} free": pool.amounts()[resource],
            f"the largest node of {cluster.name} offers {{}}": cluster.node_allocatable.amounts()[resource],
            f"at most {{}} free on one node of {cluster.name}": _best_node(usable, resource),
        }
        amount = min(limits.values())
        largest[resource] = amount
        ordered = sorted(limits.items(), key=lambda kv: kv[1])
        bounds[resource] = tuple(text.format(format_amount(resource, value)) for text, value in ordered)
    joint = _joint(grant_left.resources, pool, cluster.node_allocatable, usable, base, memory_per_milli)
    return LargestFit(tier, cluster.name, largest, bounds, joint, (), pool, node_free)


def room_now(
    tier: Tier,
    cluster: ClusterCandidate,
    nodes: Sequence[NodeRoom],
    request: Resources,
    tolerations: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Why no node of ``cluster`` takes a pod of ``request`` now, though one could later ("fits later": a node is
    large enough, none has the room free), naming the pool's free room against the most one node has free; or why
    it never fits one of its nodes; "" when a node takes it now."""
    if any(n.takes(request, tolerations) for n in nodes):
        return ""
    pool = cluster.headroom(tier).amounts()
    usable = [n for n in nodes if n.takes(Resources(), tolerations)]
    asked = request.amounts()
    largest = {r: max((n.allocatable.amounts()[r] for n in usable), default=0) for r in RESOURCES}
    too_big = [r for r in RESOURCES if asked[r] > largest[r]]
    if too_big:
        return "; ".join(
            f"one pod asks {r} {format_amount(r, asked[r])}, more than any usable node of {cluster.name} has "
            f"({format_amount(r, largest[r])}): it never starts there"
            for r in too_big
        )
    free = {r: _best_node(usable, r) for r in RESOURCES}
    short = [r for r in RESOURCES if asked[r] > free[r]] or [r for r in RESOURCES if asked[r]]
    said = "; ".join(
        f"{format_amount(r, max(pool[r], 0))} {r} free in {tier.value} on {cluster.name} but at most "
        f"{format_amount(r, free[r])} on one node"
        for r in short
    )
    total = ", ".join(f"{r} {format_amount(r, a)}" for r, a in asked.items() if a)
    return f"{said}: one pod ({total}) waits until a node has room for all of it at once (fits later)"


def _cluster_reasons(
    tier: Tier, cluster: ClusterCandidate, base: Resources, tolerations: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Why the federation would not place even ``base`` on ``cluster`` (its own filters and headroom)."""
    request = PlacementRequest("PinPod", tier, base, 1, tolerations=tuple(tolerations))
    try:
        place(request, [cluster])
    except NoFeasibleCluster as exc:
        return list(exc.reasons.get(cluster.name, ["is filtered out"]))
    return []


def _best_node(usable: Sequence[NodeRoom], resource: str) -> int:
    """The most of ``resource`` one node can give a pod that requests ``base`` of everything else (every usable
    node has ``base`` free)."""
    return max((node.free.amounts()[resource] for node in usable), default=0)


def _joint(
    grant: Resources,
    pool: Resources,
    largest_node: Resources,
    usable: Sequence[NodeRoom],
    base: Resources,
    memory_per_milli: Fraction,
) -> Resources:
    """The largest ``base + (c, c * ratio)`` on one node within every cluster-wide bound (c in millicores)."""
    best = base
    for node in usable:
        limit = _scale_limit([grant, pool, largest_node, node.free], base, memory_per_milli)
        candidate = _grown(base, limit, memory_per_milli)
        if (candidate.cpu_milli, candidate.memory_bytes) > (best.cpu_milli, best.memory_bytes):
            best = candidate
    return best


def _scale_limit(limits: Sequence[Resources], base: Resources, ratio: Fraction) -> int:
    """The most millicores ``c`` with ``base + (c, ceil(c * ratio))`` within every one of ``limits``."""
    cpu = min(lim.cpu_milli for lim in limits) - base.cpu_milli
    memory = min(lim.memory_bytes for lim in limits) - base.memory_bytes
    if ratio <= 0:
        return max(cpu, 0)
    # ceil(c * ratio) <= memory  <=>  c * ratio <= memory  <=>  c <= memory / ratio
    return max(0, min(cpu, int(Fraction(memory) / ratio)))


def _grown(base: Resources, milli: int, ratio: Fraction) -> Resources:
    return Resources(base.cpu_milli + milli, base.memory_bytes + _ceil(milli * ratio), base.gpu)


def _ceil(value: Fraction) -> int:
    return -(-value.numerator // value.denominator)


def _resources(values: Mapping[str, Any] | None) -> Resources:
    try:
        return Resources.from_k8s(values or {})
    except QuantityError:
        return Resources()  # a quantity the apiserver accepted but we cannot read counts as nothing


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default
