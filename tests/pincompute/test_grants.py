"""Regional grant arithmetic: tier -> pools, headroom, the verdict on a change, admitted usage."""

from hypothesis import given
from hypothesis import strategies as st

from pincompute.grants import (
    POOL_KINDS,
    Allocation,
    Pool,
    judge_grant_change,
    pool_headroom,
    region_headroom,
    region_shrink_violations,
    tier_capacity,
    total_grants,
    workloads_beyond,
)
from pincompute.quantity import Resources
from pincompute.quota import TierQuota, admitted_usage, resource_quota_manifests, workload_pods, workload_request
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tiers import Tier
from tests.support.examples import example

GI = 2**30
POOLS = [
    Pool("a", "reserved", Resources(40_000, 100 * GI, 2)),
    Pool("a", "ondemand", Resources(20_000, 50 * GI, 0)),
    Pool("a", "burst", Resources(5_000, 10 * GI, 0)),
    Pool("b", "reserved", Resources(30_000, 100 * GI, 0)),
]


def test_each_tier_grants_from_its_own_pools_and_preemptible_from_all():
    assert tier_capacity(POOLS, Tier.RESERVED) == Resources(70_000, 200 * GI, 2)
    assert tier_capacity(POOLS, Tier.ONDEMAND) == Resources(20_000, 50 * GI, 0)
    assert tier_capacity(POOLS, Tier.PREEMPTIBLE) == Resources(95_000, 260 * GI, 2)


def test_region_headroom_subtracts_only_the_tiers_grants_and_may_go_negative():
    grants = {Tier.RESERVED: Resources(60_000, 0, 3), Tier.ONDEMAND: Resources(1_000)}

    assert region_headroom(POOLS, grants, Tier.RESERVED) == Resources(10_000, 200 * GI, -1)
    assert region_headroom(POOLS, grants, Tier.PREEMPTIBLE) == tier_capacity(POOLS, Tier.PREEMPTIBLE)


def test_pool_headroom_counts_every_tiers_requests_against_preemptible():
    cluster_a = [p for p in POOLS if p.cluster == "a"]
    requested = {Tier.RESERVED: Resources(10_000), Tier.ONDEMAND: Resources(5_000), Tier.PREEMPTIBLE: Resources(1_000)}

    assert pool_headroom(cluster_a, requested, Tier.RESERVED).cpu_milli == 30_000
    assert pool_headroom(cluster_a, requested, Tier.ONDEMAND).cpu_milli == 15_000
    assert pool_headroom(cluster_a, requested, Tier.PREEMPTIBLE).cpu_milli == 65_000 - 16_000


def test_an_increase_within_limit_and_headroom_applies_at_once():
    verdict = judge_grant_change(
        Tier.RESERVED,
        Allocation(4000, 8 * GI, 0, 10),
        Allocation(8000, 16 * GI, 0, 20),
        usage=Allocation(),
        headroom=Resources(10_000, 100 * GI, 0),
        auto_approve=Allocation(8000, 32 * GI, 0, 50),
    )

    assert verdict.applies_at_once and not verdict.needs_approval and not verdict.refused


def test_a_decrease_below_usage_is_refused_with_the_numbers():
    verdict = judge_grant_change(
        Tier.ONDEMAND,
        Allocation(10_000, 0, 0, 10),
        Allocation(4000, 0, 0, 2),
        usage=Allocation(6000, 0, 0, 3),
        headroom=Resources(),
        auto_approve=Allocation(),
    )

    assert verdict.refused
    assert [e.resource for e in verdict.below_usage] == ["cpu", "pods"]
    assert verdict.below_usage[0].message == (
        "OnDemand cpu: the new grant of 4 is 2 below the 6 the project's workloads already request"
    )


def test_an_increase_beyond_headroom_or_the_limit_needs_approval_and_says_why():
    verdict = judge_grant_change(
        Tier.RESERVED,
        Allocation(),
        Allocation(20_000, 0, 1, 80),
        usage=Allocation(),
        headroom=Resources(12_000, 0, 4),
        auto_approve=Allocation(8000, 32 * GI, 0, 50),
    )

    assert verdict.needs_approval
    assert [e.resource for e in verdict.over_headroom] == ["cpu"]
    assert verdict.over_headroom[0].message == (
        "Reserved cpu: the increase of 20 is 8 more than the 12 left in the region's Reserved pools"
    )
    assert [e.resource for e in verdict.over_auto_approve] == ["cpu", "gpu", "pods"]


def test_pods_have_no_pool_and_an_approvers_change_has_no_limit():
    verdict = judge_grant_change(
        Tier.RESERVED,
        Allocation(),
        Allocation(pods=10_000),
        usage=Allocation(),
        headroom=Resources(),
        auto_approve=None,
    )

    assert verdict.applies_at_once


def test_a_shrink_names_each_tier_whose_grants_the_pools_would_no_longer_hold():
    smaller = [Pool("a", "burst", Resources()), *[p for p in POOLS if p.kind != "burst"]]
    grants = {Tier.RESERVED: Resources(70_000), Tier.PREEMPTIBLE: Resources(92_000)}

    violations = region_shrink_violations(smaller, grants, "burst")

    assert list(violations) == [Tier.PREEMPTIBLE]
    assert violations[Tier.PREEMPTIBLE][0].message == "the new pool of 90 is 2 below the 92 already granted"


def test_admitted_usage_counts_requests_and_pods_per_tier():
    app = parse(example("PinApp"))  # Reserved, 5 replicas of 500m / 512Mi
    daemon = parse(example("PinterestDaemon"))

    usage = admitted_usage([app, daemon], node_counts={daemon.meta.name: 3})

    assert usage[Tier.RESERVED].pods == 5 + 3
    assert usage[Tier.RESERVED].resources == workload_request(app) + workload_request(daemon, node_count=3)
    assert usage[Tier.ONDEMAND] == Allocation() and usage[Tier.PREEMPTIBLE] == Allocation()


def test_admitted_usage_with_the_runtime_profile_counts_platform_containers():
    app = parse(example("PinApp"))
    profile = load_profile()

    assert admitted_usage([app], profile)[Tier.RESERVED].resources == workload_request(app, profile=profile)
    assert admitted_usage([app], profile)[Tier.RESERVED].cpu_milli > admitted_usage([app])[Tier.RESERVED].cpu_milli


def test_a_scaler_runs_no_pods():
    assert workload_pods(parse(example("PinScaler"))) == 0


def test_resource_quotas_cap_pods_only_when_a_pod_grant_is_given():
    quota = TierQuota.from_allocations({Tier.RESERVED: Allocation(8000, GI, 0, 50)})

    reserved, ondemand, _ = resource_quota_manifests("proj-ads", quota)

    assert reserved["spec"]["hard"]["pods"] == "50"
    assert "pods" not in ondemand["spec"]["hard"]


def test_allocations_round_trip_through_json_and_format_for_people():
    grant = Allocation(1500, 32 * GI, 2, 50)

    assert Allocation.from_json(grant.to_json()) == grant
    assert grant.formatted() == {"cpu": "1500m", "memory": "32Gi", "gpu": "2", "pods": "50"}


# --- properties ------------------------------------------------------------------------------------

amount = st.integers(min_value=0, max_value=10**6)
resources = st.builds(Resources, amount, amount, st.integers(0, 64))
allocations = st.builds(Allocation, amount, amount, st.integers(0, 64), st.integers(0, 1000))
pools = st.lists(st.builds(Pool, st.sampled_from(["a", "b", "c"]), st.sampled_from(POOL_KINDS), resources), max_size=8)
tiers = st.sampled_from(list(Tier))


@given(pools, st.lists(st.tuples(st.integers(0, 4), tiers, allocations), max_size=40))
def test_grants_applied_at_once_never_exceed_what_the_pools_hold(region, asks):
    """Any sequence of changes, applied only when the verdict allows it, keeps every tier within its pools."""
    grants: dict[tuple[int, Tier], Allocation] = {}
    for project, tier, new in asks:
        current = grants.get((project, tier), Allocation())
        totals = total_grants((t, g.resources) for (_, t), g in grants.items())
        verdict = judge_grant_change(
            tier,
            current,
            new,
            usage=Allocation(),
            headroom=region_headroom(region, totals, tier),
            auto_approve=None,
        )
        if verdict.applies_at_once:
            grants[(project, tier)] = new
    totals = total_grants((t, g.resources) for (_, t), g in grants.items())
    for tier in Tier:
        assert totals[tier].fits_within(tier_capacity(region, tier))


@given(allocations, allocations, allocations, resources)
def test_a_decrease_never_needs_approval(current, new, usage, headroom):
    smaller = Allocation(
        min(current.cpu_milli, new.cpu_milli),
        min(current.memory_bytes, new.memory_bytes),
        min(current.gpu, new.gpu),
        min(current.pods, new.pods),
    )

    verdict = judge_grant_change(
        Tier.RESERVED, current, smaller, usage=usage, headroom=headroom, auto_approve=Allocation()
    )

    assert not verdict.needs_approval
    assert verdict.refused == any(
        smaller.amounts()[r] < current.amounts()[r] and smaller.amounts()[r] < usage.amounts()[r]
        for r in ("cpu", "memory", "gpu", "pods")
    )


@given(pools, st.dictionaries(tiers, resources), tiers)
def test_headroom_plus_grants_is_capacity(region, grants, tier):
    assert region_headroom(region, grants, tier) + grants.get(tier, Resources()) == tier_capacity(region, tier)


@given(st.lists(st.sampled_from(["PinPod", "PinApp", "PinScaler", "PinterestJobSet", "PinterestTrainingJob"])))
def test_admitted_usage_is_additive(kinds):
    workloads = [parse(example(kind)) for kind in kinds]
    half = len(workloads) // 2

    whole, first, second = admitted_usage(workloads), admitted_usage(workloads[:half]), admitted_usage(workloads[half:])

    assert all(whole[t] == first[t] + second[t] for t in Tier)
    assert sum(u.pods for u in whole.values()) == sum(workload_pods(w) for w in workloads)


@given(allocations, allocations)
def test_allocation_arithmetic_round_trips(a, b):
    assert (a + b) - b == a
    assert Allocation.of(a.resources, a.pods) == a


def test_workloads_beyond_a_smaller_grant_are_the_ones_that_no_longer_fit_in_admission_order():
    held = [
        ("old", Allocation(4000, 0, 0, 4)),
        ("big", Allocation(8000, 0, 0, 1)),
        ("small", Allocation(1000, 0, 0, 1)),
    ]

    assert workloads_beyond(Allocation(6000, 0, 0, 10), held) == ["big"]
    assert workloads_beyond(Allocation(6000, 0, 0, 4), held) == ["big", "small"]
    assert workloads_beyond(Allocation(20_000, 0, 0, 10), held) == []


@given(allocations, st.lists(st.tuples(st.text(max_size=3), allocations), max_size=10))
def test_what_stays_within_a_grant_fits_it(grant, held):
    beyond = set(workloads_beyond(grant, held))
    kept = [amount for name, amount in held if name not in beyond]

    assert all(v >= 0 for v in (grant - sum(kept, Allocation())).amounts().values())
