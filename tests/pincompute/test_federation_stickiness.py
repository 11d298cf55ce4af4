"""Stable placement: an edit never moves a shard unless its cluster went away or the user asked."""

from hypothesis import assume, given
from hypothesis import strategies as st

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.federation.stickiness import stabilize, staying_clusters
from pincompute.placement import Placement, split_counts
from pincompute.quantity import Resources
from pincompute.tiers import Tier

GI = 2**30


def cluster(name, zone, *, used=0, schedulable=True, healthy=True):
    return ClusterCandidate(
        name=name,
        region="r",
        zone=zone,
        role="member",
        schedulable=schedulable,
        healthy=healthy,
        hardware_families=frozenset({"m5"}),
        labels={},
        taints=[],
        pool_capacity={tier: Resources(100_000, 100 * GI) for tier in Tier},
        tier_requested={Tier.RESERVED: Resources(used, used * GI // 1000)},
        node_allocatable=Resources(16_000, 64 * GI),
        node_count=10,
    )


def request(replicas=4, **kwargs):
    base = {"kind": "PinApp", "tier": Tier.RESERVED, "request_per_replica": Resources(1000, GI), "replicas": replicas}
    return PlacementRequest(**{**base, **kwargs})


def homes(shards):
    return [(p.cluster, p.zone) for p in shards]


def test_a_rescored_single_placement_stays_on_its_cluster_with_the_new_replicas():
    clusters = [cluster("a", "z1", used=50_000), cluster("b", "z2")]
    fresh = place(request(6), clusters).shards
    assert homes(fresh) == [("b", "z2")]  # b scores higher now

    kept = stabilize(request(6), [Placement("a", "z1", "r", 0, 1, 4)], fresh, available={"a", "b"})

    assert kept == [Placement("a", "z1", "r", 0, 1, 6)]


def test_a_shard_moves_when_its_cluster_is_removed_or_infeasible_or_the_user_asks():
    clusters = [cluster("a", "z1", healthy=False), cluster("b", "z2")]
    fresh = place(request(2), clusters).shards
    previous = [Placement("a", "z1", "r", 0, 1, 2)]

    assert staying_clusters(request(2), clusters) == {"b"}
    assert homes(stabilize(request(2), previous, fresh, available={"b"})) == [("b", "z2")]
    assert homes(stabilize(request(2), previous, fresh, available={"a", "b"}, replace=True)) == [("b", "z2")]


def test_zone_shards_keep_their_clusters_and_a_new_zone_gets_the_fresh_choice():
    previous = [Placement("a1", "z1", "r", 0, 2, 2), Placement("b1", "z2", "r", 1, 2, 2)]
    fresh = [
        Placement("a2", "z1", "r", 0, 3, 2),
        Placement("c1", "z3", "r", 1, 3, 1),
        Placement("b1", "z2", "r", 2, 3, 1),
    ]

    kept = stabilize(request(5, spread=True), previous, fresh, available={"a1", "a2", "b1", "c1"})

    assert homes(kept) == [("a1", "z1"), ("c1", "z3"), ("b1", "z2")]
    assert [p.replicas for p in kept] == [2, 1, 1]
    assert [(p.shard_index, p.shard_count) for p in kept] == [(0, 3), (1, 3), (2, 3)]


def test_a_spread_that_rescores_to_other_zones_does_not_move_anything():
    previous = [Placement("a", "z1", "r", 0, 2, 2), Placement("b", "z2", "r", 1, 2, 2)]
    fresh = [Placement("c", "z3", "r", 0, 2, 2), Placement("a", "z1", "r", 1, 2, 2)]

    assert homes(stabilize(request(4, spread=True), previous, fresh, available={"a", "b", "c"})) == [
        ("b", "z2"),
        ("a", "z1"),
    ]


def test_staying_clusters_respects_the_requested_zones_but_not_capacity():
    clusters = [cluster("full", "z1", used=100_000), cluster("b", "z2"), cluster("closed", "z1", schedulable=False)]

    assert staying_clusters(request(4, zones=["z1"]), clusters) == {"full"}


def test_daemons_follow_the_fresh_decision():
    previous = [Placement("a", "z1", "r", 0, 1, 10)]
    fresh = [Placement("a", "z1", "r", 0, 2, 10), Placement("b", "z1", "r", 1, 2, 10)]

    assert stabilize(request(kind="PinterestDaemon"), previous, fresh, available={"a", "b"}) == fresh


# -- property: an edit with no cluster change never moves a shard -----------------------------------------

CLUSTERS = [f"c{i}" for i in range(5)]
ZONES = ["z1", "z2", "z3"]


@st.composite
def shard_sets(draw):
    """Shards as place() gives them: distinct zones, one cluster each, replicas split over them."""
    zones = draw(st.lists(st.sampled_from(ZONES), min_size=1, max_size=3, unique=True))
    names = draw(st.lists(st.sampled_from(CLUSTERS), min_size=len(zones), max_size=len(zones), unique=True))
    total = draw(st.integers(0, 9))
    counts = split_counts(total, len(zones))
    return [Placement(n, z, "r", i, len(zones), counts[i]) for i, (n, z) in enumerate(zip(names, zones, strict=True))]


@given(shard_sets(), shard_sets())
def test_an_edit_with_no_cluster_change_never_moves_a_shard(previous, fresh):
    kept = stabilize(request(spread=True), previous, fresh, available=set(CLUSTERS))

    before, after = set(homes(previous)), set(homes(kept))
    if len(fresh) >= len(previous):
        assert before <= after  # every shard stays; only new ones are added
    else:
        assert after <= before  # fewer shards needed: some are dropped, none moves
    assert len(set(homes(kept))) == len(kept)
    assert [p.replicas for p in kept] == [p.replicas for p in fresh]
    assert [(p.shard_index, p.shard_count) for p in kept] == [(i, len(fresh)) for i in range(len(fresh))]


@given(shard_sets(), shard_sets(), st.sets(st.sampled_from(CLUSTERS)))
def test_only_shards_on_clusters_that_went_away_move_and_never_onto_one(previous, fresh, gone):
    assume(not gone & {p.cluster for p in fresh})  # the fresh decision only uses clusters that are there
    available = set(CLUSTERS) - gone

    kept = stabilize(request(spread=True), previous, fresh, available=available)

    assert all(p.cluster in available for p in kept)
    staying = {(p.cluster, p.zone) for p in previous if p.cluster in available}
    if len(fresh) >= len(staying):
        assert staying <= set(homes(kept))


@given(shard_sets(), shard_sets())
def test_re_placing_on_request_takes_the_fresh_decision(previous, fresh):
    assert stabilize(request(spread=True), previous, fresh, available=set(CLUSTERS), replace=True) == fresh
