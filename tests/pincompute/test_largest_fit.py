"""The largest request that fits now, proven against the real admission and placement functions: a pod at each
answer is admitted (``federation.admission.admit``), placed (``cluster_scheduling.place``) and taken by a node; one
unit more is refused by at least one of them."""

from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.errors import NoFeasibleCluster
from pincompute.federation.admission import Claim, admit
from pincompute.grants import Allocation
from pincompute.largest_fit import (
    RESOURCES,
    NodeRoom,
    largest_fit,
    node_rooms,
    room_now,
    scheduled_request,
)
from pincompute.quantity import Resources
from pincompute.tiers import Tier

GI = 2**30
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def replace_amount(resources: Resources, resource: str, amount: int) -> Resources:
    """``resources`` with one of cpu, memory or gpu set to ``amount``."""
    return replace(resources, **{{"cpu": "cpu_milli", "memory": "memory_bytes", "gpu": "gpu"}[resource]: amount})


def admitted(tier: Tier, grant: Allocation, held: Allocation, request: Resources) -> bool:
    holder = Claim("PinApp/holder", tier, held, T0, "a")
    new = Claim("PinPod/new", tier, Allocation.of(request, 1), T0.replace(year=2027), "b")
    decision = admit({tier: grant}, [holder] if held != Allocation() else [], [new])
    return decision.verdicts["PinPod/new"].admitted


def placed(tier: Tier, cluster: ClusterCandidate, request: Resources) -> bool:
    try:
        place(PlacementRequest("PinPod", tier, request, 1), [cluster])
    except NoFeasibleCluster:
        return False
    return True


def fits(tier, grant, held, cluster, nodes, request) -> bool:
    on_node = any(n.takes(request) for n in nodes)
    return admitted(tier, grant, held, request) and placed(tier, cluster, request) and on_node


quarters = st.integers(0, 256).map(lambda g: g * GI // 4)
tight = st.builds(Resources, st.integers(0, 64_000), quarters, st.integers(0, 8))
roomy = st.builds(Resources, st.integers(1000, 64_000), quarters.filter(lambda m: m >= GI), st.integers(0, 8))
amounts = st.one_of(roomy, roomy, roomy, tight)


def part(draw, whole: Resources) -> Resources:
    """Some of ``whole``: nothing, all of it, or a share (so that scenes sit on the edges too)."""
    share = draw(st.sampled_from([Fraction(1, 3), Fraction(0), Fraction(4, 5), Fraction(99, 100), Fraction(1)]))
    return Resources(*(int(amount * share) for amount in whole.amounts().values()))


@st.composite
def scenes(draw):
    """Mostly scenes where something fits (every bound has room), with every bound able to be the binding one."""
    tier = draw(st.sampled_from(list(Tier)))
    grant = Allocation.of(draw(amounts), 20)
    held = Allocation.of(part(draw, grant.resources), draw(st.sampled_from([0, 5, 5, 5, 20])))
    nodes = []
    for index in range(draw(st.integers(0, 5))):
        allocatable = draw(amounts)
        nodes.append(
            NodeRoom(
                f"n{index}",
                allocatable,
                part(draw, allocatable),
                draw(st.integers(1, 4)),
                draw(st.sampled_from([0, 0, 0, 4])),
                draw(st.sampled_from([False, False, True])),
                draw(st.sampled_from([(), (), ({"key": "gpu", "value": "x", "effect": "NoSchedule"},)])),
            )
        )
    pools = {t: draw(amounts) for t in (Tier.RESERVED, Tier.ONDEMAND)}
    cluster = ClusterCandidate(
        name="member-a",
        region="r",
        zone="z",
        role="member",
        schedulable=draw(st.sampled_from([True, True, True, True, True, False])),
        healthy=True,
        hardware_families=frozenset({"general"}),
        labels={},
        taints=[],
        pool_capacity=pools,
        tier_requested={t: part(draw, pools.get(t, Resources())) for t in Tier},
        node_allocatable=max((n.allocatable for n in nodes), key=lambda r: r.cpu_milli, default=draw(amounts)),
        node_count=len(nodes),
        burst_buffer=draw(amounts),
    )
    base = Resources(draw(st.integers(0, 300)), draw(st.integers(0, 64)) * 2**20, 0)
    ratio = Fraction(draw(st.integers(0, 8 * GI)), 1000)
    return tier, grant, held, cluster, nodes, base, ratio


@settings(max_examples=600, deadline=None)
@given(scenes())
def test_a_request_at_each_answer_fits_and_one_unit_more_does_not(scene):
    tier, grant, held, cluster, nodes, base, ratio = scene
    fit = largest_fit(tier, grant - held, cluster, nodes, base=base, memory_per_milli=ratio)

    if not fit.fits_any:
        assert not fits(tier, grant, held, cluster, nodes, base), fit.reasons
        return
    for resource in RESOURCES:
        amount = fit.largest[resource]
        assert amount is not None
        assert fits(tier, grant, held, cluster, nodes, replace_amount(base, resource, amount)), (resource, fit)
        assert not fits(tier, grant, held, cluster, nodes, replace_amount(base, resource, amount + 1)), (resource, fit)
    joint = fit.joint
    assert joint is not None and fits(tier, grant, held, cluster, nodes, joint)
    milli = joint.cpu_milli - base.cpu_milli + 1
    grown = Resources(base.cpu_milli + milli, base.memory_bytes + -(-milli * ratio.numerator // ratio.denominator), 0)
    assert not fits(tier, grant, held, cluster, nodes, grown)


def test_twelve_free_cpus_three_per_node_fit_a_three_cpu_pod_and_say_so():
    nodes = [NodeRoom(f"n{i}", Resources(8000, 32 * GI), Resources(5000, 8 * GI)) for i in range(4)]
    cluster = ClusterCandidate(
        "member-a", "r", "z", "member", True, True, frozenset(), {}, [],
        {Tier.ONDEMAND: Resources(32_000, 128 * GI)}, {Tier.ONDEMAND: Resources(20_000, 32 * GI)},
        Resources(8000, 32 * GI), 4,
    )  # fmt: skip

    fit = largest_fit(Tier.ONDEMAND, Allocation(100_000, 400 * GI, 0, 10), cluster, nodes)

    assert fit.pool_free == Resources(12_000, 96 * GI)
    assert fit.largest["cpu"] == 3000
    assert fit.bounds["cpu"][0] == "at most 3 free on one node of member-a"
    assert fit.describe() == "3 cpu, 24Gi memory, 0 gpu on member-a"


def test_a_cordoned_member_fits_nothing_and_says_the_federations_reason():
    cluster = ClusterCandidate(
        "member-a", "r", "z", "member", False, True, frozenset(), {}, [],
        {Tier.ONDEMAND: Resources(32_000, 128 * GI)}, {}, Resources(8000, 32 * GI), 1,
    )  # fmt: skip

    fit = largest_fit(Tier.ONDEMAND, Allocation(1000, GI, 0, 1), cluster, [NodeRoom("n", Resources(8000, 32 * GI))])

    assert not fit.fits_any
    assert fit.reasons == ("is not schedulable (an admin closed it to new workloads)",)


def test_node_rooms_count_bound_live_pods_as_the_scheduler_does():
    allocatable = {"cpu": "4", "memory": "8Gi", "pods": "3"}
    node = {"metadata": {"name": "n1"}, "spec": {}, "status": {"allocatable": allocatable}}
    cordoned = {"metadata": {"name": "n2"}, "spec": {"unschedulable": True}, "status": {"allocatable": {"cpu": "4"}}}
    sidecar = {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}
    init = {"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Mi"}}}
    app = {"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
    running = {"spec": {"nodeName": "n1", "initContainers": [sidecar, init], "containers": [app]}, "status": {}}
    done = {"spec": {"nodeName": "n1", "containers": [app]}, "status": {"phase": "Succeeded"}}
    pending = {"spec": {"containers": [app]}, "status": {"phase": "Pending"}}

    rooms = node_rooms([node, cordoned], [running, done, pending])

    assert scheduled_request(running) == Resources(2100, GI + 64 * 2**20)  # the init peak: sidecar + init
    assert rooms[0].free == Resources(1900, 7 * GI - 64 * 2**20) and rooms[0].pods == 1
    assert rooms[1].unschedulable and not rooms[1].takes(Resources())


def test_room_now_says_fits_later_never_or_nothing():
    nodes = [NodeRoom(f"n{i}", Resources(8000, 32 * GI), Resources(5000, 8 * GI)) for i in range(4)]
    nodes.append(NodeRoom("big", Resources(64_000, 256 * GI), unschedulable=True))  # cordoned: not counted
    cluster = ClusterCandidate(
        "member-a", "r", "z", "member", True, True, frozenset(), {}, [],
        {Tier.ONDEMAND: Resources(32_000, 128 * GI)}, {Tier.ONDEMAND: Resources(20_000, 32 * GI)},
        Resources(8000, 32 * GI), 4,
    )  # fmt: skip

    later = room_now(Tier.ONDEMAND, cluster, nodes, Resources(6000, GI))
    never = room_now(Tier.ONDEMAND, cluster, nodes, Resources(9000, GI))

    assert later == (
        "12 cpu free in OnDemand on member-a but at most 3 on one node: one pod (cpu 6, memory 1Gi) waits until a "
        "node has room for all of it at once (fits later)"
    )
    assert never == ("one pod asks cpu 9, more than any usable node of member-a has (8): it never starts there")
    assert room_now(Tier.ONDEMAND, cluster, nodes, Resources(3000, GI)) == ""
