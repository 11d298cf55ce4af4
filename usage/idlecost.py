"""Idle cost shown apart, per member pool (OpenCost's cluster idle): over a window, each (cluster, tier) pool's
capacity cost, the part workloads were allocated and the idle rest, by request and by use, priced at the pool's
tier. No Django: the records come from ``usage.reports.pool_records``.

Allocated by use is the pool's requests plus what containers used beyond them (max(request, use)), so idle by use
is never more than idle by request. Idle is never spread onto projects: it is the pools' own line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from usage.costmodel import RESOURCES, UNIT_SECONDS, ZERO, Amounts, Prices, Window, split


@dataclass(frozen=True)
class PoolRecord:
    """Stored capacity samples of one pool over ``[start, end)`` (resource-seconds)."""

    start: datetime
    end: datetime
    cluster: str
    tier: str
    capacity: Amounts
    idle_by_request: Amounts
    idle_by_use: Amounts


@dataclass
class PoolCost:
    cluster: str
    tier: str
    prices: Prices = field(default_factory=dict, repr=False)
    capacity: Amounts = ZERO
    idle_by_request: Amounts = ZERO
    idle_by_use: Amounts = ZERO

    def priced(self, amounts: Amounts) -> Fraction:
        return sum(
            (amounts.of(r) * Fraction(self.prices.get((self.tier, r), 0)) / UNIT_SECONDS[r] for r in RESOURCES),
            Fraction(0),
        )

    @property
    def capacity_cost(self) -> Fraction:
        return self.priced(self.capacity)

    @property
    def idle_cost_by_request(self) -> Fraction:
        return self.priced(self.idle_by_request)

    @property
    def idle_cost_by_use(self) -> Fraction:
        return self.priced(self.idle_by_use)

    @property
    def allocated_cost_by_request(self) -> Fraction:
        """What workloads took of this pool, by request: its capacity less what was left idle."""
        return self.capacity_cost - self.idle_cost_by_request

    @property
    def allocated_cost_by_use(self) -> Fraction:
        return self.capacity_cost - self.idle_cost_by_use


def pool_costs(records: Iterable[PoolRecord], window: Window, prices: Prices) -> list[PoolCost]:
    """Each pool over the window: every record's share inside it (split in proportion at the edges), summed."""
    out: dict[tuple[str, str], PoolCost] = {}
    for r in records:
        share = split(r, window.start, window.end)
        if not share:
            continue
        pool = out.setdefault((r.cluster, r.tier), PoolCost(r.cluster, r.tier, prices))
        pool.capacity = pool.capacity + r.capacity.scaled(share)
        pool.idle_by_request = pool.idle_by_request + r.idle_by_request.scaled(share)
        pool.idle_by_use = pool.idle_by_use + r.idle_by_use.scaled(share)
    return sorted(out.values(), key=lambda p: (p.cluster, p.tier))
