"""Incremental cluster aggregates (requested resources, allocatable, counts).

Each object's contribution is computed once when it enters the store and kept by its aggregator
(keyed like the store; equal contributions are one object, as most pods of a namespace and tier are
alike); an update subtracts the stored contribution and adds the new one. Reads therefore never walk
10k pods, and a caller who mutates a returned object cannot corrupt the sums.
``PodAggregates`` and ``NodeAggregates`` are the store's ``Aggregator``s for "pods" and "nodes".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from pincompute.labels import HARDWARE_FAMILY_LABEL, NODE_ZONE_LABEL
from pincompute.quantity import parse_cpu, parse_memory
from pincompute.tiers import Tier

GPU = "nvidia.com/gpu"
TIERS = tuple(tier.priority_class for tier in Tier)
OTHER_TIER = "other"
TERMINAL_PHASES = ("Succeeded", "Failed")
TableKey = TypeVar("TableKey", str, tuple[str, str])


@dataclass(frozen=True, slots=True)
class Resources:
    cpu_m: int = 0
    memory: int = 0
    gpu: int = 0
    count: int = 0  # pods (requests) or nodes (allocatable)

    def __add__(self, o: Resources) -> Resources:
        return Resources(self.cpu_m + o.cpu_m, self.memory + o.memory, self.gpu + o.gpu, self.count + o.count)

    def __sub__(self, o: Resources) -> Resources:
        return Resources(self.cpu_m - o.cpu_m, self.memory - o.memory, self.gpu - o.gpu, self.count - o.count)


ZERO = Resources()
SAME_LIMIT = 10_000
Key = tuple[str, str]  # (namespace or "", name), as the store keys objects


class PodSnapshot(TypedDict):
    requests_total: Resources
    requests_by_namespace: dict[str, Resources]
    requests_by_tier: dict[str, Resources]
    requests_by_namespace_tier: dict[tuple[str, str], Resources]
    pods_by_phase: dict[str, int]


class NodeSnapshot(TypedDict):
    allocatable_by_zone: dict[str, Resources]
    allocatable_by_family: dict[str, Resources]
    nodes_total: int
    nodes_ready: int


class ClusterAggregates(PodSnapshot, NodeSnapshot):
    """What ``WatchCache.aggregates()`` returns: both snapshots in one dict."""


def _resources(values: dict[str, Any] | None, count: int) -> Resources:
    values = values or {}
    try:
        return Resources(
            parse_cpu(values.get("cpu", 0)),
            parse_memory(values.get("memory", 0)),
            parse_memory(values.get(GPU, 0)),
            count,  # memory rounding: counts round up the same way
        )
    except ValueError:
        return Resources(count=count)  # an unparsable quantity must not take the whole cache down


def tier_of(pod: dict[str, Any]) -> str:
    name = (pod.get("spec") or {}).get("priorityClassName")
    return name if name in TIERS else OTHER_TIER


def pod_requests(pod: dict[str, Any]) -> Resources:
    """Sum of the containers' requests (init containers ignored: they don't run alongside)."""
    total = Resources(count=1)
    for c in (pod.get("spec") or {}).get("containers") or ():
        total = total + _resources((c.get("resources") or {}).get("requests"), 0)
    return total


@dataclass(frozen=True, slots=True)
class PodContribution:
    namespace: str
    tier: str
    phase: str
    requests: Resources | None  # None for terminal pods


@dataclass(frozen=True, slots=True)
class NodeContribution:
    zone: str
    family: str
    ready: bool
    allocatable: Resources


def pod_contribution(pod: dict[str, Any]) -> PodContribution:
    phase = (pod.get("status") or {}).get("phase") or "Unknown"
    ns = (pod.get("metadata") or {}).get("namespace") or ""
    req = None if phase in TERMINAL_PHASES else pod_requests(pod)
    return PodContribution(ns, tier_of(pod), phase, req)


def node_contribution(node: dict[str, Any]) -> NodeContribution:
    labels = (node.get("metadata") or {}).get("labels") or {}
    status = node.get("status") or {}
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or ())
    return NodeContribution(
        labels.get(NODE_ZONE_LABEL, ""),
        labels.get(HARDWARE_FAMILY_LABEL, ""),
        ready,
        _resources(status.get("allocatable"), 1),
    )


def _bump(table: dict[TableKey, Resources], key: TableKey, delta: Resources, sign: int) -> None:
    value = table.get(key, ZERO) + delta if sign > 0 else table.get(key, ZERO) - delta
    if value == ZERO:
        table.pop(key, None)  # keep tables free of keys that no longer have members
    else:
        table[key] = value


class PodAggregates:
    def __init__(self) -> None:
        self.by_namespace: dict[str, Resources] = {}
        self.by_tier: dict[str, Resources] = {}
        self.by_namespace_tier: dict[tuple[str, str], Resources] = {}
        self.total = ZERO
        self.phases: Counter[str] = Counter()
        self._contrib: dict[Key, PodContribution] = {}
        self._same: dict[PodContribution, PodContribution] = {}  # most pods' contributions are equal: keep one

    def add(self, key: Key, obj: dict[str, Any]) -> None:
        self.discard(key)
        c = pod_contribution(obj)
        if len(self._same) >= SAME_LIMIT:
            self._same.clear()
        c = self._contrib[key] = self._same.setdefault(c, c)
        self.apply(c, +1)

    def discard(self, key: Key) -> None:
        c = self._contrib.pop(key, None)
        if c is not None:
            self.apply(c, -1)

    def apply(self, c: PodContribution, sign: int) -> None:
        self.phases[c.phase] += sign
        if self.phases[c.phase] == 0:
            del self.phases[c.phase]
        if c.requests is None:
            return
        _bump(self.by_namespace, c.namespace, c.requests, sign)
        _bump(self.by_tier, c.tier, c.requests, sign)
        _bump(self.by_namespace_tier, (c.namespace, c.tier), c.requests, sign)
        self.total = self.total + c.requests if sign > 0 else self.total - c.requests

    def snapshot(self) -> PodSnapshot:
        return {
            "requests_total": self.total,
            "requests_by_namespace": dict(self.by_namespace),
            "requests_by_tier": dict(self.by_tier),
            "requests_by_namespace_tier": dict(self.by_namespace_tier),
            "pods_by_phase": dict(self.phases),
        }


class NodeAggregates:
    def __init__(self) -> None:
        self.by_zone: dict[str, Resources] = {}
        self.by_family: dict[str, Resources] = {}
        self.total = 0
        self.ready = 0
        self._contrib: dict[Key, NodeContribution] = {}

    def add(self, key: Key, obj: dict[str, Any]) -> None:
        self.discard(key)
        c = self._contrib[key] = node_contribution(obj)
        self.apply(c, +1)

    def discard(self, key: Key) -> None:
        c = self._contrib.pop(key, None)
        if c is not None:
            self.apply(c, -1)

    def apply(self, c: NodeContribution, sign: int) -> None:
        _bump(self.by_zone, c.zone, c.allocatable, sign)
        _bump(self.by_family, c.family, c.allocatable, sign)
        self.total += sign
        self.ready += sign if c.ready else 0

    def snapshot(self) -> NodeSnapshot:
        return {
            "allocatable_by_zone": dict(self.by_zone),
            "allocatable_by_family": dict(self.by_family),
            "nodes_total": self.total,
            "nodes_ready": self.ready,
        }
