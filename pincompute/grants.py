"""Regional grants: what a tier's pools hold, what is left, and the verdict on a change to a grant.

A project's grant in a tier is regional (federation admission may place a workload on any member), so
the tier's grants of all projects together must fit the tier's pools summed over the region's
schedulable members:

    Reserved     the reserved pools (a fixed pool)
    OnDemand     the ondemand pools (shared, first come first served; the burst buffer is not granted)
    Preemptible  every pool (opportunistic: it borrows unused capacity and is reclaimed when needed)

Pools have no pods dimension, so a grant's pod count (``Allocation.pods``) is bounded only by the
auto-approve limit and the approvers, never by headroom.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pincompute.quantity import Resources, format_amount
from pincompute.tiers import Tier

POOL_KINDS = ("reserved", "ondemand", "burst")
"""Pool kinds as the cluster registry names them."""

TIER_POOL_KINDS: Mapping[Tier, frozenset[str]] = {
    Tier.RESERVED: frozenset({"reserved"}),
    Tier.ONDEMAND: frozenset({"ondemand"}),
    Tier.PREEMPTIBLE: frozenset(POOL_KINDS),
}

ALLOCATION_RESOURCES = ("cpu", "memory", "gpu", "pods")


NO_POD_CAP = 10**9
"""A grant's pod count of 0 means no pod cap (as on the members' backstop): admission counts it as this."""


@dataclass(frozen=True)
class Allocation:
    """Requests plus a pod count: a tier grant, or what a project's workloads hold in a tier."""

    cpu_milli: int = 0
    memory_bytes: int = 0
    gpu: int = 0
    pods: int = 0

    @classmethod
    def of(cls, resources: Resources, pods: int = 0) -> Allocation:
        return cls(resources.cpu_milli, resources.memory_bytes, resources.gpu, pods)

    @property
    def resources(self) -> Resources:
        return Resources(self.cpu_milli, self.memory_bytes, self.gpu)

    def __add__(self, other: Allocation) -> Allocation:
        return Allocation.of(self.resources + other.resources, self.pods + other.pods)

    def __sub__(self, other: Allocation) -> Allocation:
        return Allocation.of(self.resources - other.resources, self.pods - other.pods)

    def amounts(self) -> dict[str, int]:
        """The four amounts keyed by the short names used in messages and field paths."""
        return {**self.resources.amounts(), "pods": self.pods}

    def to_json(self) -> dict[str, int]:
        """As stored in a QuotaRequest (``previous``/``requested``) and in audit rows."""
        return {"cpu_milli": self.cpu_milli, "memory_bytes": self.memory_bytes, "gpu": self.gpu, "pods": self.pods}

    @classmethod
    def from_json(cls, data: Mapping[str, int]) -> Allocation:
        return cls(
            int(data.get("cpu_milli", 0)),
            int(data.get("memory_bytes", 0)),
            int(data.get("gpu", 0)),
            int(data.get("pods", 0)),
        )

    def formatted(self) -> dict[str, str]:
        """``{"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}`` for pages and API bodies (a pod count
        of ``NO_POD_CAP`` or more, admission's "no cap", reads ``no cap``)."""
        return {
            name: "no cap" if name == "pods" and amount >= NO_POD_CAP else format_amount(name, amount)
            for name, amount in self.amounts().items()
        }

    def describe(self) -> str:
        return ", ".join(f"{name} {text}" for name, text in self.formatted().items())


@dataclass(frozen=True)
class Pool:
    """One pool of one member cluster, in requests units."""

    cluster: str
    kind: str
    capacity: Resources


def tier_capacity(pools: Iterable[Pool], tier: Tier) -> Resources:
    """What ``tier`` may grant in all: its pools summed (every pool for Preemptible)."""
    kinds = TIER_POOL_KINDS[tier]
    total = Resources()
    for pool in pools:
        if pool.kind in kinds:
            total = total + pool.capacity
    return total


def region_headroom(pools: Iterable[Pool], grants: Mapping[Tier, Resources], tier: Tier) -> Resources:
    """What is left to grant in ``tier``: its capacity minus every project's grant in it (``grants`` are
    the tier totals). Negative when the region is over-granted (pools shrank or members left)."""
    return tier_capacity(pools, tier) - grants.get(tier, Resources())


def pool_headroom(pools: Iterable[Pool], requested: Mapping[Tier, Resources], tier: Tier) -> Resources:
    """Live room for ``tier`` on one cluster: its pools minus the running requests. Preemptible pods
    borrow from every pool, so every tier's requests count against them."""
    used = Resources()
    for each, amount in requested.items():
        if tier is Tier.PREEMPTIBLE or each is tier:
            used = used + amount
    return tier_capacity(pools, tier) - used


@dataclass(frozen=True)
class Excess:
    """One resource of a grant change beyond a bound: ``amount`` against ``bound``."""

    resource: str
    amount: int
    bound: int
    message: str


@dataclass(frozen=True)
class GrantVerdict:
    """What a change from one grant to another may do: refused (below usage), applied at once, or asked for."""

    below_usage: tuple[Excess, ...] = ()
    over_headroom: tuple[Excess, ...] = ()
    over_auto_approve: tuple[Excess, ...] = ()

    @property
    def refused(self) -> bool:
        return bool(self.below_usage)

    @property
    def applies_at_once(self) -> bool:
        return not (self.below_usage or self.over_headroom or self.over_auto_approve)

    @property
    def needs_approval(self) -> bool:
        return not self.refused and not self.applies_at_once


def judge_grant_change(
    tier: Tier,
    current: Allocation,
    new: Allocation,
    *,
    usage: Allocation,
    headroom: Resources,
    auto_approve: Allocation | None,
) -> GrantVerdict:
    """The verdict on changing ``tier``'s grant from ``current`` to ``new``, resource by resource.

    A decrease below what the workloads already hold (``usage``) is refused. An increase must fit the
    region's ``headroom`` (pods have no pool) and, unless ``auto_approve`` is None (an approver's own
    change), the auto-approve limit; otherwise it needs approval. Decreases never need approval.
    """
    now, asked, used = current.amounts(), new.amounts(), usage.amounts()
    room = {**headroom.amounts()}
    limit = auto_approve.amounts() if auto_approve is not None else None
    below, over_room, over_limit = [], [], []

    for name in ALLOCATION_RESOURCES:

        def fmt(amount: int, name: str = name) -> str:
            return format_amount(name, amount)

        increase = asked[name] - now[name]
        if increase < 0 and asked[name] < used[name]:
            below.append(
                Excess(
                    name,
                    asked[name],
                    used[name],
                    f"{tier.value} {name}: the new grant of {fmt(asked[name])} is {fmt(used[name] - asked[name])} "
                    f"below the {fmt(used[name])} the project's workloads already request",
                )
            )
        if increase <= 0:
            continue
        if name in room and increase > max(room[name], 0):
            left = max(room[name], 0)
            over_room.append(
                Excess(
                    name,
                    increase,
                    left,
                    f"{tier.value} {name}: the increase of {fmt(increase)} is {fmt(increase - left)} more than the "
                    f"{fmt(left)} left in the region's {tier.value} pools",
                )
            )
        if limit is not None and increase > limit[name]:
            over_limit.append(
                Excess(
                    name,
                    increase,
                    limit[name],
                    f"{tier.value} {name}: the increase of {fmt(increase)} is more than the {fmt(limit[name])} "
                    "approved without review",
                )
            )
    return GrantVerdict(tuple(below), tuple(over_room), tuple(over_limit))


@dataclass(frozen=True)
class PoolShortfall:
    """A pool that would hold less of ``resource`` than is already granted from it."""

    resource: str
    pool: int
    granted: int

    @property
    def below_by(self) -> int:
        return self.granted - self.pool

    @property
    def message(self) -> str:
        def fmt(amount: int) -> str:
            return format_amount(self.resource, amount)

        return f"the new pool of {fmt(self.pool)} is {fmt(self.below_by)} below the {fmt(self.granted)} already granted"


def shrink_violation(new_pool: Resources, granted: Resources) -> list[PoolShortfall]:
    """Why pools cannot shrink to ``new_pool``: one shortfall per resource already over-granted."""
    pool = new_pool.amounts()
    return [
        PoolShortfall(resource, pool[resource], amount)
        for resource, amount in granted.amounts().items()
        if amount > pool[resource]
    ]


def region_shrink_violations(
    pools_after: Iterable[Pool], grants: Mapping[Tier, Resources], kind: str
) -> dict[Tier, list[PoolShortfall]]:
    """Why the region's pools cannot become ``pools_after`` (a pool of ``kind`` changed): per tier that
    grants from that kind, the resources whose grants the tier's pools would no longer hold."""
    pools = list(pools_after)
    out: dict[Tier, list[PoolShortfall]] = {}
    for tier, kinds in TIER_POOL_KINDS.items():
        if kind in kinds:
            shortfalls = shrink_violation(tier_capacity(pools, tier), grants.get(tier, Resources()))
            if shortfalls:
                out[tier] = shortfalls
    return out


def workloads_beyond(grant: Allocation, held: Sequence[tuple[str, Allocation]]) -> list[str]:
    """Which of ``held`` (in admission order: oldest first) no longer fit ``grant``: each workload keeps
    its place when it fits in what the ones before it left, as federation admission would re-admit them."""
    left = grant
    beyond = []
    for name, amount in held:
        rest = left - amount
        if min(rest.amounts().values()) < 0:
            beyond.append(name)
        else:
            left = rest
    return beyond


def total_grants(grants: Iterable[tuple[Tier, Resources]]) -> dict[Tier, Resources]:
    """Per-tier totals of ``(tier, grant)`` pairs, every tier present."""
    totals = {tier: Resources() for tier in Tier}
    for tier, amount in grants:
        totals[tier] = totals[tier] + amount
    return totals
