"""Resource tiers and the PriorityClasses that make them real on every member cluster.

Priorities: Reserved 100000 and OnDemand 50000 may preempt lower tiers (PreemptLowerPriority);
Preemptible 1000 uses ``preemptionPolicy: Never`` because it only borrows unused Reserved and
OnDemand capacity and must never evict anyone to get it. Reserved can preempt OnDemand pods that
spilled onto reserved capacity, which keeps the reserved pool's availability promise.
"""

from __future__ import annotations

import enum
from typing import Any

from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL, TIER_LABEL


class Tier(enum.Enum):
    """Spelled as in the spec (``spec.tier``); ``label`` is the lower-case form used in labels."""

    RESERVED = "Reserved"
    ONDEMAND = "OnDemand"
    PREEMPTIBLE = "Preemptible"

    @property
    def label(self) -> str:
        return self.value.lower()

    @property
    def priority_class(self) -> str:
        return f"pincompute-{self.label}"

    @property
    def priority(self) -> int:
        return _PRIORITY[self]

    @property
    def preemption_policy(self) -> str:
        return "Never" if self is Tier.PREEMPTIBLE else "PreemptLowerPriority"

    @classmethod
    def parse(cls, value: str) -> Tier:
        """Accept the spec spelling or the label spelling (``OnDemand`` or ``ondemand``)."""
        for tier in cls:
            if value in (tier.value, tier.label):
                return tier
        raise ValueError(f"unknown tier {value!r}; expected one of {', '.join(t.value for t in cls)}")


DEFAULT_TIER = Tier.ONDEMAND

_PRIORITY = {Tier.RESERVED: 100000, Tier.ONDEMAND: 50000, Tier.PREEMPTIBLE: 1000}

_DESCRIPTION = {
    Tier.RESERVED: "PinCompute Reserved tier: fixed-size pool, dedicated scheduling queue.",
    Tier.ONDEMAND: "PinCompute OnDemand tier: shared, dynamically sized pool, first come first served.",
    Tier.PREEMPTIBLE: "PinCompute Preemptible tier: borrows unused capacity, reclaimed when needed.",
}


def priority_class_manifests() -> list[dict[str, Any]]:
    """One cluster-scoped PriorityClass per tier; applied to every member cluster at registration."""
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {
                "name": tier.priority_class,
                "labels": {MANAGED_BY_LABEL: MANAGED_BY, TIER_LABEL: tier.label},
            },
            "value": tier.priority,
            "preemptionPolicy": tier.preemption_policy,
            "globalDefault": False,
            "description": _DESCRIPTION[tier],
        }
        for tier in Tier
    ]
