import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.errors import NoFeasibleCluster
from pincompute.quantity import Resources
from pincompute.tiers import Tier

GI = 2**30


def cluster(
    name,
    zone="us-east-1a",
    *,
    role="member",
    schedulable=True,
    healthy=True,
    cpu=100_000,
    used=0,
    families=("m5",),
    labels=None,
    taints=(),
):
    pools = {tier: Resources(cpu, cpu * GI // 1000) for tier in Tier}
    return ClusterCandidate(
        name=name,
        region="us-east-1",
        zone=zone,
        role=role,
        schedulable=schedulable,
        healthy=healthy,
        hardware_families=frozenset(families),
        labels=labels or {},
        taints=list(taints),
        pool_capacity=pools,
        tier_requested={Tier.RESERVED: Resources(used, used * GI // 1000)},
        node_allocatable=Resources(16_000, 64 * GI),
        node_count=10,
    )


def request(replicas=4, **kwargs):
    defaults = {
        "kind": "PinApp",
        "tier": Tier.RESERVED,
        "request_per_replica": Resources(1000, GI),
        "replicas": replicas,
    }
    return PlacementRequest(**{**defaults, **kwargs})


def test_filters_explain_every_rejection():
    clusters = [
        cluster("host", role="host"),
        cluster("closed", schedulable=False),
        cluster("sick", healthy=False),
        cluster("west", zone="us-west-2a"),
        cluster("gpu-less", families=("m5",)),
        cluster("ok", families=("m5", "g5")),
    ]
    decision = place(request(zones=["us-east-1a"], hardware_family="g5"), clusters)
    assert [s.cluster for s in decision.shards] == ["ok"]
    assert "only member clusters" in decision.rejected["host"][0]
    assert "not schedulable" in decision.rejected["closed"][0]
    assert decision.rejected["sick"] == ["is unhealthy", "has no g5 hardware (offers m5)"]
    assert any("zone us-west-2a" in r for r in decision.rejected["west"])


def test_taints_need_tolerations_and_labels_must_match():
    tainted = cluster(
        "tainted", taints=[{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}], labels={"pool": "ml"}
    )
    with pytest.raises(NoFeasibleCluster) as caught:
        place(request(node_selector={"pool": "ml"}), [tainted, cluster("plain")])
    assert "taint dedicated=ml:NoSchedule" in caught.value.reasons["tainted"][0]
    assert caught.value.reasons["plain"] == ["does not have label pool=ml"]
    tolerated = place(
        request(node_selector={"pool": "ml"}, tolerations=[{"key": "dedicated", "operator": "Exists"}]), [tainted]
    )
    assert tolerated.shards[0].cluster == "tainted"


def test_headroom_shortfall_says_by_how_much():
    with pytest.raises(NoFeasibleCluster) as caught:
        place(request(replicas=10), [cluster("small", cpu=8000)])
    assert "cpu 8 left, 10 needed (2 short)" in " ".join(caught.value.reasons["small"])


def test_replica_bigger_than_any_node_is_rejected():
    decision_error = None
    try:
        place(request(request_per_replica=Resources(32_000, GI)), [cluster("a")])
    except NoFeasibleCluster as exc:
        decision_error = exc
    assert "largest node offers 16 (16 short)" in decision_error.reasons["a"][0]


def test_prefers_headroom_and_breaks_ties_by_name():
    decision = place(request(), [cluster("b"), cluster("a"), cluster("busy", used=90_000)])
    assert decision.shards[0].cluster == "a"
    assert decision.scores["a"] == decision.scores["b"] > decision.scores["busy"]


def test_explicit_zones_one_shard_each():
    clusters = [cluster("east-a", "us-east-1a"), cluster("east-b", "us-east-1b"), cluster("east-c", "us-east-1c")]
    decision = place(request(replicas=5, zones=["us-east-1a", "us-east-1b"]), clusters)
    assert [(s.cluster, s.zone, s.replicas, s.shard_index, s.shard_count) for s in decision.shards] == [
        ("east-a", "us-east-1a", 3, 0, 2),
        ("east-b", "us-east-1b", 2, 1, 2),
    ]


def test_spread_drops_a_zone_that_cannot_fit():
    clusters = [cluster("a", "z1"), cluster("b", "z2", cpu=1000), cluster("c", "z3")]
    decision = place(request(replicas=6, spread=True), clusters)
    assert sorted(s.zone for s in decision.shards) == ["z1", "z3"]
    assert sum(s.replicas for s in decision.shards) == 6


def test_preemptible_borrows_unused_reserved_and_ondemand():
    busy = cluster("busy", cpu=4000)
    decision = place(request(replicas=6, tier=Tier.PREEMPTIBLE), [busy])
    assert decision.shards[0].replicas == 6  # 4 free reserved + 4 free ondemand


def test_daemon_goes_to_every_feasible_cluster():
    decision = place(
        request(kind="PinterestDaemon", replicas=1, request_per_replica=Resources(100, 0)),
        [cluster("a", "z1"), cluster("b", "z2"), cluster("c", healthy=False)],
    )
    assert [(s.cluster, s.replicas) for s in decision.shards] == [("a", 10), ("b", 10)]


candidates = st.lists(
    st.builds(
        cluster,
        name=st.sampled_from(["a", "b", "c", "d", "e", "f"]),
        zone=st.sampled_from(["z1", "z2", "z3"]),
        role=st.sampled_from(["member", "member", "host"]),
        schedulable=st.booleans(),
        healthy=st.booleans(),
        cpu=st.integers(0, 40_000),
        used=st.integers(0, 40_000),
    ),
    max_size=6,
    unique_by=lambda c: c.name,
)


@settings(max_examples=150, deadline=None)
@given(candidates, st.integers(1, 30), st.booleans(), st.sampled_from(list(Tier)))
def test_placement_properties(clusters, replicas, spread, tier):
    req = request(replicas=replicas, spread=spread, tier=tier)
    by_name = {c.name: c for c in clusters}
    try:
        decision = place(req, clusters)
    except NoFeasibleCluster as exc:
        assert set(exc.reasons) <= set(by_name)
        return
    assert sum(s.replicas for s in decision.shards) == replicas
    for shard in decision.shards:
        chosen = by_name[shard.cluster]
        assert chosen.role == "member" and chosen.schedulable and chosen.healthy
        assert (req.request_per_replica * shard.replicas).fits_within(chosen.headroom(tier))
    assert place(req, list(reversed(clusters))) == decision
