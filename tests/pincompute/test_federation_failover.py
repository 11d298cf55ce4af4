"""Failover: a lost member's replicas go to other members that fit, never beyond the count plus the surge, never
beyond a pool; the policy's grace and the kind's defaults decide when."""

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from pincompute.federation.failover import (
    DRAINED,
    UNREACHABLE,
    MemberLoss,
    describe,
    fail_over,
    failover_rows,
    in_flight,
    lost_members,
)
from pincompute.placement import Placement
from pincompute.specs import validate
from pincompute.specs.failover import FailoverPolicy, failover_policy
from pincompute.tiers import Tier
from tests.support.failover_plans import NOW, cluster, lost, request


def test_a_lost_zone_shard_joins_the_surviving_shard_in_an_allowed_zone():
    shards = [Placement("a", "z1", "r", 0, 2, 2), Placement("b", "z2", "r", 1, 2, 2)]
    plan = fail_over(request(4), shards, [cluster("a", "z1"), cluster("b", "z2", healthy=False)], lost("b"), budget=4)
    assert plan.shards == [Placement("a", "z1", "r", 0, 2, 4)]
    assert [(m.source, m.target, m.replicas) for m in plan.moves] == [("b", "a", 2)]
    assert plan.stranded == 0
    assert "2 replica(s) from b to a" in describe(failover_rows(plan.moves, "t"))


def test_the_surge_budget_caps_the_move_and_the_rest_stays_on_the_lost_member():
    shards = [Placement("a", "z1", "r", 0, 2, 2), Placement("b", "z2", "r", 1, 2, 2)]
    plan = fail_over(request(4), shards, [cluster("a", "z1")], lost("b"), budget=1)
    assert plan.shards == [Placement("a", "z1", "r", 0, 2, 3), Placement("b", "z2", "r", 1, 2, 1)]
    assert plan.stranded == 1 and "could not move" in describe([], plan)


def test_a_full_pool_or_a_zone_outside_the_spec_takes_nothing_and_says_why():
    shards = [Placement("b", "z2", "r", 0, 1, 2)]
    candidates = [cluster("c", "z3"), cluster("a", "z1", pool_cpu=1000, used=1000)]
    plan = fail_over(request(2, zones=("z1", "z2")), shards, candidates, lost("b"), budget=2)
    assert plan.shards == shards and plan.stranded == 2 and not plan.moves
    assert "zone z3" in plan.rejected["c"][0] and "headroom" in " ".join(plan.rejected["a"])


def test_a_pinpod_moves_whole_to_a_member_without_a_shard_and_takes_the_lost_shards_index():
    shards = [Placement("b", "z2", "r", 0, 1, 1)]
    plan = fail_over(request(1, kind="PinPod", zones=None), shards, [cluster("a", "z1")], lost("b"), budget=1)
    assert plan.shards == [Placement("a", "z1", "r", 0, 1, 1)]
    assert fail_over(request(1, "PinPod", None), shards, [cluster("a", "z1")], lost("b"), budget=0).shards == shards


def test_the_grace_the_kind_defaults_and_a_drain_decide_which_losses_count():
    app = failover_policy("PinApp", {})
    job = failover_policy("PinterestJobSet", {})
    assert app == FailoverPolicy(True, 60, "100%") and not job.enabled
    assert failover_policy("PinApp", {"failover": {"enabled": False}}).enabled is False
    losses = {
        "fresh": MemberLoss("fresh", UNREACHABLE, NOW - timedelta(seconds=30)),
        "old": MemberLoss("old", UNREACHABLE, NOW - timedelta(seconds=61)),
        "drained": MemberLoss("drained", DRAINED, NOW, NOW + timedelta(minutes=5)),
    }
    assert set(lost_members(losses, NOW, app, serving=True)) == {"old", "drained"}
    assert set(lost_members(losses, NOW, job, serving=False)) == set()  # a job finishes first
    assert set(lost_members(losses, NOW + timedelta(minutes=6), job, serving=False)) == {"drained"}
    later = NOW + timedelta(minutes=6)  # a job that succeeded there stays: moved, it would run again
    assert set(lost_members(losses, later, job, serving=False, finished=["drained"])) == set()
    assert set(lost_members(losses, NOW, app, serving=True, finished=["drained"])) == {"old", "drained"}
    assert FailoverPolicy(True, 0, "50%").surge(3) == 2 and FailoverPolicy(True, 0, 1).surge(9) == 1


def test_in_flight_counts_the_moves_whose_source_may_still_run_pods():
    rows = [{"from": "b", "replicas": 2}, {"from": "c", "replicas": 1}]
    assert in_flight(rows, {"b"}) == 2 and in_flight(rows, set()) == 0


def test_the_failover_field_is_validated_with_its_path():
    manifest = {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": "w", "namespace": "p"},
        "spec": {
            "project": "p",
            "zones": ["z1"],
            "template": {"containers": [{"name": "app", "image": "i:1"}]},
            "failover": {"afterSeconds": -1, "maxSurge": "150%"},
        },
    }
    paths = {e.path for e in validate(manifest)}
    assert {"spec.failover.afterSeconds", "spec.failover.maxSurge"} <= paths


@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 8)), min_size=2, max_size=5),
    st.integers(0, 12),
    st.integers(1, 4),
    st.sampled_from(["PinApp", "PinPod"]),
)
def test_never_more_than_the_count_plus_the_surge_and_never_beyond_a_pool(members, budget, lose, kind):
    """Generated members (replicas placed there, cpu already used by others) with some of them lost: the
    placement's replicas always sum to the request's, the replicas that may still run on lost members plus the
    placed ones never exceed the count plus the budget, and no member gets more than its headroom."""
    names = [f"m{i}" for i in range(len(members))]
    candidates = [
        cluster(n, f"z{i}", pool_cpu=8_000, used=used * 1000)
        for i, (n, (_, used)) in enumerate(zip(names, members, strict=True))
    ]
    replicas_of = [r if kind == "PinApp" else min(r, 1) for r, _ in members]
    shards = [
        Placement(n, f"z{i}", "r", i, len(names), r)
        for i, (n, r) in enumerate(zip(names, replicas_of, strict=True))
        if r
    ]
    total = sum(s.replicas for s in shards)
    gone = lost(*names[: min(lose, len(names) - 1)])
    req = request(total, kind=kind, zones=None)
    plan = fail_over(req, shards, candidates, gone, budget=budget)

    assert sum(s.replicas for s in plan.shards) == total
    assert len({s.cluster for s in plan.shards}) == len(plan.shards)  # one shard per member
    before = {s.cluster: s.replicas for s in shards}
    still_running = sum(before.get(n, 0) for n in gone)  # the lost members' pods may all still run
    placed_elsewhere = sum(s.replicas for s in plan.shards if s.cluster not in gone)
    assert still_running + placed_elsewhere <= total + budget
    for shard in plan.shards:
        candidate = next(c for c in candidates if c.name == shard.cluster)
        if shard.cluster not in gone and shard.replicas > before.get(shard.cluster, 0):
            assert shard.replicas * 1000 <= candidate.headroom(Tier.ONDEMAND).cpu_milli
