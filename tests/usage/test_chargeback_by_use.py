"""Property tests of chargeback by use (OpenCost's allocation model, no Django): each minute a pod is billed
max(request, use) per container (``sample_use.pod_use``), the cost model prices it beside the request
(``costmodel.allocate``), and each member pool's capacity is what workloads took of it plus the idle rest
(``poolmodel.fill_pools``, ``idlecost.pool_costs``)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from usage import costmodel, idlecost, poolmodel
from usage.costmodel import UNIT_SECONDS, Amounts, Record, Window
from usage.poolmodel import POOL_OF_TIER, Quantity
from usage.sample_use import pod_use

T0 = datetime(2026, 11, 20, tzinfo=UTC)
CLUSTER, NAMESPACE = "member-a", "proj-ads"
WORKLOADS = ("PinApp/web", "PinApp/batch", "PinterestService/api")

prices = st.fixed_dictionaries({
    (t, r): st.decimals(Decimal("0.000001"), Decimal("10"), places=6) for t in costmodel.TIERS
    for r in costmodel.RESOURCES
})  # fmt: skip
# a container: (cpu request m, memory request bytes, use: (cpu m, memory bytes) or None when not scraped yet)
containers = st.lists(
    st.tuples(st.integers(0, 8000), st.integers(0, 16 << 30),
              st.none() | st.tuples(st.integers(0, 16000), st.integers(0, 32 << 30))),
    min_size=1, max_size=3,
)  # fmt: skip
samples = st.lists(
    st.tuples(st.integers(0, 6 * 60), st.sampled_from(WORKLOADS), st.sampled_from(costmodel.TIERS), containers),
    max_size=30,
)


def minute_record(n: int, pod: int, workload: str, tier: str, spec: list) -> Record:
    """One pod's minute as the sampler writes it: requested, billed by use, used (resource-seconds)."""
    name = f"pod-{pod}"
    manifest = {
        "metadata": {"namespace": NAMESPACE, "name": name},
        "spec": {"containers": [
            {"name": f"c{i}", "resources": {"requests": {"cpu": f"{cpu}m", "memory": str(memory)}}}
            for i, (cpu, memory, _use) in enumerate(spec)
        ]},
    }  # fmt: skip
    scraped = {(CLUSTER, NAMESPACE, name, f"c{i}"): Quantity(*use, 0) for i, (_c, _m, use) in enumerate(spec) if use}
    request = Quantity(sum(c[0] for c in spec), sum(c[1] for c in spec), 0)
    used = pod_use(manifest, CLUSTER, scraped)
    billed = used.billed(request)
    start = T0 + timedelta(minutes=n)

    def seconds(q: Quantity) -> Amounts:
        return Amounts.make(q.cpu * 60, q.memory * 60, q.gpu * 60)

    return Record(start, start + timedelta(minutes=1), "ads", tier, CLUSTER, workload, seconds(request),
                  seconds(billed), use=seconds(used.use))  # fmt: skip


def over_request(sample_list: list, sheet: dict) -> dict[str, Fraction]:
    """Per workload, independently of the model: price x (use - request) over every minute, container and resource
    where use exceeded the request."""
    out: dict[str, Fraction] = defaultdict(Fraction)
    for _n, workload, tier, spec in sample_list:
        for cpu, memory, use in spec:
            if use is None:
                continue
            for resource, req, used in (("cpu", cpu, use[0]), ("memory", memory, use[1])):
                if used > req:
                    out[workload] += Fraction(sheet[(tier, resource)]) * (used - req) * 60 / UNIT_SECONDS[resource]
    return out


def report_of(sample_list: list, sheet: dict, step: int) -> costmodel.Report:
    rows = [minute_record(n, i, w, t, spec) for i, (n, w, t, spec) in enumerate(sample_list)]
    return costmodel.allocate(rows, Window(T0, T0 + timedelta(hours=7)), step, ("workload",), sheet)


@settings(max_examples=100, deadline=None)
@given(samples, prices, st.sampled_from([3600, 7 * 3600]))
def test_by_use_is_by_request_plus_what_use_exceeded_it_by_and_never_less(sample_list, sheet, step):
    report = report_of(sample_list, sheet, step)
    expected = over_request(sample_list, sheet)

    for name, a in report.totals().items():
        for r in costmodel.RESOURCES:
            assert a.cost[r] >= a.request_cost[r]
        assert a.total_cost - a.total_request_cost == expected[name]
        exceeded = any(
            use is not None and (use[0] > cpu or use[1] > memory)
            for _n, w, _t, spec in sample_list if w == name for cpu, memory, use in spec
        )  # fmt: skip
        assert (a.total_cost == a.total_request_cost) is not exceeded


@settings(max_examples=100, deadline=None)
@given(samples, prices, st.sampled_from([3600, 7 * 3600]))
def test_totals_by_use_and_by_request_are_the_sum_of_their_parts(sample_list, sheet, step):
    report = report_of(sample_list, sheet, step)
    totals = report.totals().values()

    for attribute in ("total_cost", "total_request_cost"):
        by_items = sum((getattr(a, attribute) for a in totals), Fraction(0))
        by_steps = sum((getattr(s, attribute) for s in report.steps), Fraction(0))
        assert getattr(report, attribute) == by_items == by_steps
    minutes = [minute_record(n, i, w, t, spec) for i, (n, w, t, spec) in enumerate(sample_list)]
    assert sum((a.request.cpu for a in totals), Fraction(0)) == sum(r.request.cpu for r in minutes)


quantities = st.builds(Quantity, st.integers(0, 64_000), st.integers(0, 256 << 30), st.integers(0, 8))
pools = st.fixed_dictionaries({pool: quantities for pool in POOL_OF_TIER.values()})
demands = st.fixed_dictionaries({tier: quantities for tier in POOL_OF_TIER})


def each(q: Quantity) -> tuple[int, int, int]:
    return q.cpu, q.memory, q.gpu


@settings(max_examples=300, deadline=None)
@given(pools, demands, demands, prices)
def test_each_pools_idle_and_allocated_make_its_capacity_and_use_only_lowers_idle(capacity, by_request, beyond,
                                                                                  sheet):  # fmt: skip
    by_use = {tier: by_request[tier] + beyond[tier] for tier in by_request}  # max(request, use) >= request

    fill, fill_use = poolmodel.fill_pools(capacity, by_request), poolmodel.fill_pools(capacity, by_use)

    for f, demand in ((fill, by_request), (fill_use, by_use)):
        placed = Quantity()
        for pool, cap in capacity.items():
            assert all(0 <= t <= c for t, c in zip(each(f.taken[pool]), each(cap), strict=True))
            assert f.taken[pool] + f.free[pool] == cap
            placed = placed + f.taken[pool]
        assert placed + f.unplaced == demand["reserved"] + demand["ondemand"] + demand["preemptible"]
    idle = poolmodel.idle_by_tier(capacity, by_request)
    idle_use = poolmodel.idle_by_tier(capacity, by_use)
    for i, j in zip(each(sum(idle.values(), Quantity())), each(sum(idle_use.values(), Quantity())), strict=True):
        assert j <= i

    minute = Window(T0, T0 + timedelta(minutes=1))
    records = [
        idlecost.PoolRecord(T0, minute.end, CLUSTER, tier, *(Amounts.make(*(60 * x for x in each(q))) for q in
                            (capacity[pool], idle[tier], idle_use[tier])))
        for tier, pool in POOL_OF_TIER.items()
    ]  # fmt: skip
    for p in idlecost.pool_costs(records, minute, sheet):
        pool = POOL_OF_TIER[p.tier]
        taken = Amounts.make(*(60 * x for x in each(fill.taken[pool])))
        taken_use = Amounts.make(*(60 * x for x in each(fill_use.taken[pool])))
        assert p.allocated_cost_by_request == p.priced(taken)
        assert p.allocated_cost_by_use == p.priced(taken_use)
        assert p.allocated_cost_by_request + p.idle_cost_by_request == p.capacity_cost
        assert p.allocated_cost_by_use + p.idle_cost_by_use == p.capacity_cost
        assert p.idle_cost_by_use <= p.idle_cost_by_request
