"""The arithmetic of one sampled minute, with no Django: amounts at an instant, what a container bills by use, a
Reserved grant's unused part, and how each member's tier pools fill (so what is left of them is idle: OpenCost's
cluster idle, the capacity no workload was allocated)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Quantity:
    """Amounts at an instant: milli-cores, bytes, GPUs."""

    cpu: int = 0
    memory: int = 0
    gpu: int = 0

    def __add__(self, o: Quantity) -> Quantity:
        return Quantity(self.cpu + o.cpu, self.memory + o.memory, self.gpu + o.gpu)

    def __sub__(self, o: Quantity) -> Quantity:
        return Quantity(self.cpu - o.cpu, self.memory - o.memory, self.gpu - o.gpu)

    def clip(self) -> Quantity:
        """No resource below zero."""
        return Quantity(max(self.cpu, 0), max(self.memory, 0), max(self.gpu, 0))

    def maximum(self, o: Quantity | None) -> Quantity:
        if o is None:
            return self
        return Quantity(max(self.cpu, o.cpu), max(self.memory, o.memory), max(self.gpu, o.gpu))

    @property
    def zero(self) -> bool:
        return not (self.cpu or self.memory or self.gpu)


def billable(request: Quantity, used: Quantity | None) -> Quantity:
    """What a container's minute bills: the larger of request and (where scraped) use, per resource."""
    return request.maximum(used)


def unused_reservation(grant: Quantity, billed_reserved: Quantity) -> Quantity:
    """Reserved is committed capacity: the grant is charged whether used or not, so the part of it no workload
    billed is charged on its own row (never negative: billing beyond the grant is the workloads' own)."""
    return (grant - billed_reserved).clip()


POOL_OF_TIER = {"reserved": "reserved", "ondemand": "ondemand", "preemptible": "burst"}


@dataclass(frozen=True)
class PoolFill:
    """How one cluster's pools were filled: what is left of each (idle), what workloads of any tier took of it,
    and what no pool had room for (use above every pool's capacity: billed to its workloads, idle nowhere)."""

    free: dict[str, Quantity]
    taken: dict[str, Quantity]
    unplaced: Quantity


def fill_pools(pools: Mapping[str, Quantity], allocated: Mapping[str, Quantity]) -> PoolFill:
    """Each tier fills its own pool (Preemptible: the burst pool); what overflows a pool takes the room left in the
    burst pool, then (Preemptible, which borrows any unused capacity) in the OnDemand and Reserved pools."""
    free = {pool: pools.get(pool, Quantity()) for pool in POOL_OF_TIER.values()}
    need: dict[str, Quantity] = {}
    for tier in ("reserved", "ondemand"):
        left = free[tier] - allocated.get(tier, Quantity())
        free[tier], need[tier] = left.clip(), (Quantity() - left).clip()
    need["preemptible"] = allocated.get("preemptible", Quantity())
    for tier, order in (("reserved", ("burst",)), ("ondemand", ("burst",)),
                        ("preemptible", ("burst", "ondemand", "reserved"))):  # fmt: skip
        for pool in order:
            take = Quantity(
                min(need[tier].cpu, free[pool].cpu),
                min(need[tier].memory, free[pool].memory),
                min(need[tier].gpu, free[pool].gpu),
            )
            free[pool], need[tier] = free[pool] - take, need[tier] - take
    taken = {pool: pools.get(pool, Quantity()) - free[pool] for pool in free}
    return PoolFill(free, taken, need["reserved"] + need["ondemand"] + need["preemptible"])


def idle_by_tier(pools: Mapping[str, Quantity], allocated: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """One cluster's pool capacity no workload was allocated, per tier (the tier's pool): what ``fill_pools`` left.
    The tiers' idle sum to max(0, all pools - all allocations) whenever every allocation fits."""
    free = fill_pools(pools, allocated).free
    return {tier: free[pool] for tier, pool in POOL_OF_TIER.items()}
