"""The region's capacity guard: granted quota never exceeds what the schedulable member pools hold.

Grants are regional (``projects.grants``), whatever order a platform admin edits things in. The one rule: an edit
that lowers what a tier's pools hold across the region (a pool shrink, closing a member to scheduling,
re-registering a member as a host) is refused, resource by resource, when the tier's grants would no longer fit,
naming the tier, what its pools would hold and what is granted; lower the grants or grow other pools first. An edit
that lowers nothing is always allowed, even when the region is already over-granted: growing a pool, re-opening a
member, editing the pools of a member that is not schedulable (they are not part of the region's capacity then, and
re-opening it later only adds them back). Draining a member whose capacity is promised is therefore refused up front
rather than allowed and caught at the re-enable: that would leave the region over-granted in between, and refusing
a re-enable that gives capacity back would only make it worse. What is granted comes from the projects app above
(``clusters.hooks``, the one allowed inversion).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from clusters.hooks import grant_totals
from clusters.models import ClusterPool, FederationRole, PoolKind
from pincompute.grants import TIER_POOL_KINDS, Pool, PoolShortfall, shrink_violation, tier_capacity
from pincompute.quantity import Resources, format_amount
from pincompute.tiers import Tier


def region_pools() -> list[Pool]:
    """Every pool of the schedulable member clusters: what regional grants are made from."""
    rows = ClusterPool.objects.filter(cluster__role=FederationRole.MEMBER, cluster__schedulable=True)
    return [
        Pool(cluster, kind, Resources(cpu, mem, gpu))
        for cluster, kind, cpu, mem, gpu in rows.values_list(
            "cluster__name", "kind", "cpu_milli", "memory_bytes", "gpu"
        )
    ]


def region_lowered_by(write: Callable[[], None]) -> dict[Tier, list[PoolShortfall]]:
    """Run ``write`` (a registry change, inside the caller's transaction) and answer, per tier, the resources
    whose capacity across the region it lowered below what the tier has granted ({} when it may stay).

    The region's pools are read before and after the write (``region_pools`` is the one definition of what
    counts), every pool row locked first in primary-key order, as grant changes lock them: a grant change and
    another registry edit wait for this one, so none of them judges a capacity this one is changing. A caller
    that gets shortfalls raises, and its transaction rolls the write back."""
    lock_pools(Tier)
    before = region_pools()
    write()
    after = region_pools()
    grants = grant_totals()
    lowered: dict[Tier, list[PoolShortfall]] = {}
    for tier in TIER_POOL_KINDS:
        was = tier_capacity(before, tier).amounts()
        short = [
            s
            for s in shrink_violation(tier_capacity(after, tier), grants.get(tier, Resources()))
            if s.pool < was[s.resource]
        ]
        if short:
            lowered[tier] = short
    return lowered


def _shortfall_text(tier: Tier, shortfall: PoolShortfall, *, unit: bool) -> str:
    """'the Reserved pools of the region would hold 648, 352 below the 1000 already granted in Reserved' (with
    the resource named after each amount when ``unit``)."""
    name = f" {shortfall.resource}" if unit else ""
    pools = "every pool" if tier is Tier.PREEMPTIBLE else f"the {tier.value} pools"

    def fmt(amount: int) -> str:
        return format_amount(shortfall.resource, amount)

    return (
        f"{pools} of the region would hold {fmt(shortfall.pool)}{name}, {fmt(shortfall.below_by)} below the "
        f"{fmt(shortfall.granted)}{name} already granted in {tier.value}"
    )


def leaving_message(cluster: str, doing: str, lowered: Mapping[Tier, list[PoolShortfall]]) -> str:
    """Why ``cluster`` cannot ``doing`` (stop being schedulable...): every tier and resource it would leave short."""
    texts = [_shortfall_text(tier, s, unit=True) for tier, shortfalls in lowered.items() for s in shortfalls]
    return (
        f"{cluster} cannot {doing}: without its pools, {'; '.join(texts)}. "
        "Lower those grants, or grow other members' pools, first."
    )


def lock_pools(tiers: Iterable[Tier]) -> None:
    """Lock the pool rows ``tiers`` grant from, in primary-key order (no deadlock between lockers),
    until the transaction ends. Grant changes call this before reading the totals they check."""
    kinds = sorted({kind for tier in tiers for kind in TIER_POOL_KINDS[tier]})
    list(ClusterPool.objects.select_for_update().filter(kind__in=kinds).order_by("pk").values_list("pk", flat=True))


def shrink_errors(pool: ClusterPool, lowered: Mapping[Tier, list[PoolShortfall]]) -> dict[str, str]:
    """Per resource the pool edit lowered below the grants: why the tiers' grants would no longer fit."""
    label = PoolKind(pool.kind).label
    errors: dict[str, list[str]] = {}
    for tier, shortfalls in lowered.items():
        for s in shortfalls:
            errors.setdefault(s.resource, []).append(_shortfall_text(tier, s, unit=False))
    return {
        name: f"The {label} cannot shrink below the quota already granted: {'; '.join(texts)}."
        for name, texts in errors.items()
    }
