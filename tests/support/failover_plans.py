"""Failover inputs for the pure tests: member candidates, a placement request and member losses."""

from datetime import UTC, datetime, timedelta

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest
from pincompute.federation.failover import UNREACHABLE, MemberLoss
from pincompute.quantity import Resources
from pincompute.tiers import Tier

GI = 2**30
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def cluster(name, zone, *, pool_cpu=100_000, used=0, healthy=True):
    return ClusterCandidate(
        name=name,
        region="r",
        zone=zone,
        role="member",
        schedulable=True,
        healthy=healthy,
        hardware_families=frozenset({"m5"}),
        labels={},
        taints=[],
        pool_capacity={tier: Resources(pool_cpu, 100 * GI) for tier in Tier},
        tier_requested={Tier.ONDEMAND: Resources(used, 0)},
        node_allocatable=Resources(16_000, 64 * GI),
        node_count=10,
    )


def request(replicas, kind="PinApp", zones=("z1", "z2")):
    return PlacementRequest(kind, Tier.ONDEMAND, Resources(1000, GI), replicas, zones=zones)


def lost(*names, reason=UNREACHABLE):
    return {n: MemberLoss(n, reason, NOW - timedelta(seconds=90)) for n in names}
