"""A member's registry attributes checked against its nodes: its pools must fit what the nodes hold, and its zone
must be the nodes' zone.

A member's pools (Reserved, OnDemand, Burst buffer) are shares of its nodes' allocatable capacity: together they can
never hold more than the schedulable nodes offer, resource by resource. A member has one zone (placement spreads by
it), and its nodes say which (``topology.kubernetes.io/zone``): a registry zone no node carries would make
placement spread onto a zone that does not exist. Nodes without the label say nothing, so a member whose nodes are
unlabelled may take any zone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pincompute.federation.members import NodeSummary
from pincompute.labels import NODE_ZONE_LABEL
from pincompute.quantity import Resources


@dataclass(frozen=True)
class NodeFit:
    """What a member's nodes hold (schedulable ones, ``NodeSummary``) and their zones (label value: nodes)."""

    summary: NodeSummary = field(default_factory=NodeSummary)
    zones: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, nodes: Sequence[Mapping[str, Any]]) -> NodeFit:
        zones = Counter(str(((n.get("metadata") or {}).get("labels") or {}).get(NODE_ZONE_LABEL) or "") for n in nodes)
        zones.pop("", None)
        return cls(NodeSummary.of(nodes), dict(sorted(zones.items())))


@dataclass(frozen=True)
class PoolOverflow:
    """One resource the member's pools together hold more of than its nodes: ``pools`` (kind: amount) sum to
    ``total``, above the nodes' ``allocatable``."""

    resource: str
    pools: Mapping[str, int]
    total: int
    allocatable: int

    def room_for(self, kind: str) -> int:
        """The most pool ``kind`` may hold with the other pools as they are (0 when they already take it all)."""
        return max(0, self.allocatable - (self.total - self.pools.get(kind, 0)))


def pool_overflows(pools: Mapping[str, Resources], nodes: NodeFit) -> list[PoolOverflow]:
    """Every resource where ``pools`` (kind: capacity) together exceed the nodes' allocatable capacity."""
    allocatable = nodes.summary.allocatable.amounts()
    out = []
    for resource, limit in allocatable.items():
        shares = {kind: pool.amounts()[resource] for kind, pool in pools.items()}
        total = sum(shares.values())
        if total > limit:
            out.append(PoolOverflow(resource, shares, total, limit))
    return out


def zone_mismatch(zone: str, nodes: NodeFit) -> str | None:
    """Why ``zone`` cannot be this member's zone (its labelled nodes are elsewhere), or None when it may."""
    if not nodes.zones or zone in nodes.zones:
        return None
    found = ", ".join(f"{name} ({count} node{'s' if count != 1 else ''})" for name, count in nodes.zones.items())
    one = next(iter(nodes.zones)) if len(nodes.zones) == 1 else "one of them"
    return (
        f"no node of this member is in zone {zone}: its nodes' {NODE_ZONE_LABEL} labels say {found}. "
        f"Use {one}, or relabel the nodes first."
    )
