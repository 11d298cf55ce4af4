"""A member's registry edit checked against its nodes, as the portal's watch cache holds them (no apiserver call):
its pools must fit what the schedulable nodes hold, and its zone must be the nodes' zone
(``pincompute.federation.member_fit``). A member whose node cache has not synced (unreachable, just started, the
caches disabled) is not checked against its nodes: the edit is judged on the registry alone, as before."""

from __future__ import annotations

from collections.abc import Mapping

from clusters import runtime
from clusters.models import Cluster, FederationRole, PoolKind
from pincompute.federation.member_fit import NodeFit, pool_overflows, zone_mismatch
from pincompute.quantity import Resources, format_amount


def member_nodes(cluster: Cluster) -> NodeFit | None:
    """What ``cluster``'s nodes hold, or None when it is no member or its node cache has not synced."""
    if cluster.role != FederationRole.MEMBER:
        return None
    cache = runtime.member_caches().get(cluster.name)
    if cache is None or not cache.synced:
        return None
    return NodeFit.of(cache.list("nodes"))


def zone_error(cluster: Cluster, zone: str) -> str | None:
    """Why ``cluster`` cannot move to ``zone`` (none of its labelled nodes is there); None when it may."""
    if zone == cluster.zone:
        return None  # not an edit of the zone: nodes relabelled since are the nodes' news, not this edit's fault
    nodes = member_nodes(cluster)
    return zone_mismatch(zone, nodes) if nodes is not None else None


def pool_errors(cluster: Cluster, kind: str, pools: Mapping[str, Resources]) -> dict[str, str]:
    """Per resource, why ``cluster``'s pools (kind: capacity, the edited ``kind`` at its new value) cannot hold
    that much: more than its schedulable nodes offer, with every pool's share and the room left for ``kind``."""
    nodes = member_nodes(cluster)
    if nodes is None:
        return {}
    errors = {}
    count = nodes.summary.count
    for over in pool_overflows(pools, nodes):

        def fmt(amount: int, resource: str = over.resource) -> str:
            return format_amount(resource, amount)

        shares = ", ".join(f"{PoolKind(k).label} {fmt(v)}" for k, v in over.pools.items())
        errors[over.resource] = (
            f"{cluster.name}'s {count} schedulable node{'s' if count != 1 else ''} hold {fmt(over.allocatable)} "
            f"{over.resource}; its pools would take {fmt(over.total)} ({shares}). "
            f"The {PoolKind(kind).label} can hold at most {fmt(over.room_for(kind))} beside the others."
        )
    return errors
