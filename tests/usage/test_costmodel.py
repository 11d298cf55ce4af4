"""The cost arithmetic (``usage.costmodel``, no Django): parameters, prices, splits, and property tests that
totals are the sum of their parts across steps, aggregates and windows, and that no sample counts twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usage import costmodel, poolmodel
from usage.costmodel import IDLE, Amounts, CostInputError, Record, Window
from usage.poolmodel import Quantity

NOW = datetime(2026, 11, 23, 10, 42, 30, tzinfo=UTC)
T0 = datetime(2026, 11, 20, tzinfo=UTC)
PRICES = {
    (t, r): Decimal(p) for t in costmodel.TIERS for r, p in (("cpu", "0.04"), ("memory", "0.005"), ("gpu", "2.5"))
}
CORE_HOUR = 1000 * 3600


def record(
    start: datetime, minutes: int = 1, *, cpu_m: int = 1000, tier: str = "ondemand", project: str = "ads",
    cluster: str = "member-a", workload: str = "PinApp/web", team: str = "t", cc: str = "CC-1",
) -> Record:  # fmt: skip
    seconds = minutes * 60
    amounts = Amounts.make(cpu_m * seconds, (1 << 30) * seconds, 0)
    return Record(
        start, start + timedelta(seconds=seconds), project, tier, cluster, workload, amounts, amounts, team, cc
    )


def test_one_core_for_an_hour_costs_the_core_hour_price():
    records = [record(T0 + timedelta(minutes=m)) for m in range(60)]
    window = Window(T0, T0 + timedelta(hours=1))

    report = costmodel.allocate(records, window, 3600, ("project",), PRICES)

    (allocation,) = report.totals().values()
    assert allocation.billable.cpu / CORE_HOUR == 1
    assert allocation.cost["cpu"] == Fraction("0.04") and allocation.cost["memory"] == Fraction("0.005")


def test_windows_by_name_end_at_the_current_minute():
    assert costmodel.parse_window("24h", NOW) == Window(datetime(2026, 11, 22, 10, 43, tzinfo=UTC),
                                                        datetime(2026, 11, 23, 10, 43, tzinfo=UTC))  # fmt: skip
    today = costmodel.parse_window("today", NOW)
    assert today.start == datetime(2026, 11, 23, tzinfo=UTC) and today.end == datetime(2026, 11, 23, 10, 43, tzinfo=UTC)
    yesterday = costmodel.parse_window("yesterday", NOW)
    assert (yesterday.start, yesterday.end) == (datetime(2026, 11, 22, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=UTC))
    assert costmodel.parse_window("week", NOW).start == datetime(2026, 11, 23, tzinfo=UTC)  # a Monday
    assert costmodel.parse_window("month", NOW).start == datetime(2026, 11, 1, tzinfo=UTC)
    iso = costmodel.parse_window("2026-11-01T00:00Z,2026-11-02T06:00+02:00", NOW)
    assert (iso.start, iso.end) == (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 2, 4, tzinfo=UTC))


@pytest.mark.parametrize(
    ("parameter", "call"),
    [
        ("window", lambda: costmodel.parse_window("0h", NOW)),
        ("window", lambda: costmodel.parse_window("7 days", NOW)),
        ("window", lambda: costmodel.parse_window("2026-11-02T00:00Z,2026-11-01T00:00Z", NOW)),
        ("window", lambda: costmodel.parse_window("2026-11-01T00:00:30Z,2026-11-02T00:00Z", NOW)),
        ("window", lambda: costmodel.parse_window("yesterday-ish,now", NOW)),
        ("step", lambda: costmodel.parse_step("30m", Window(T0, T0 + timedelta(days=1)))),
        ("step", lambda: costmodel.parse_step("1h", Window(T0, T0 + timedelta(days=400)))),
        ("step", lambda: costmodel.parse_step("h", Window(T0, T0 + timedelta(days=1)))),
        ("aggregate", lambda: costmodel.parse_aggregate("namespace")),
        ("aggregate", lambda: costmodel.parse_aggregate(",")),
    ],
)
def test_unreadable_parameters_are_refused_naming_the_parameter(parameter, call):
    with pytest.raises(CostInputError) as refused:
        call()

    assert refused.value.parameter == parameter and str(refused.value)


def test_a_repeated_aggregate_counts_once():
    assert costmodel.parse_aggregate("tier,cluster,tier") == ("tier", "cluster")


def test_steps_align_to_utc_hours_and_days_and_clip_to_the_window():
    window = Window(datetime(2026, 11, 20, 22, 30, tzinfo=UTC), datetime(2026, 11, 22, 1, 0, tzinfo=UTC))

    edges = costmodel.step_edges(window, 86400)

    assert edges == [
        (window.start, datetime(2026, 11, 21, tzinfo=UTC)),
        (datetime(2026, 11, 21, tzinfo=UTC), datetime(2026, 11, 22, tzinfo=UTC)),
        (datetime(2026, 11, 22, tzinfo=UTC), window.end),
    ]


def test_an_hourly_row_across_the_window_edge_is_split_in_proportion():
    hour = Record(
        T0, T0 + timedelta(hours=1), "ads", "ondemand", "a", "w", Amounts.make(3600_000), Amounts.make(3600_000)
    )
    window = Window(T0 + timedelta(minutes=15), T0 + timedelta(hours=2))

    report = costmodel.allocate([hour], window, window.seconds, ("project",), PRICES)

    assert report.totals()["ads"].billable.cpu == Fraction(3600_000 * 3, 4)


def test_idle_is_its_own_row_and_only_when_asked():
    rows = [record(T0), record(T0, workload=IDLE, project=IDLE)]
    window = Window(T0, T0 + timedelta(hours=1))

    member_view = costmodel.allocate(rows, window, 3600, ("team",), PRICES)
    admin_view = costmodel.allocate(rows, window, 3600, ("team",), PRICES, include_idle=True)

    assert set(member_view.totals()) == {"t"}
    assert set(admin_view.totals()) == {"t", IDLE}


def test_reserved_is_charged_for_its_grant_whether_used_or_not():
    grant = Quantity(8000, 32 << 30, 1)

    assert poolmodel.unused_reservation(grant, Quantity(3000, 40 << 30, 0)) == Quantity(5000, 0, 1)
    assert poolmodel.billable(Quantity(1000, 1, 0), Quantity(1500, 0, 0)) == Quantity(1500, 1, 0)
    assert poolmodel.billable(Quantity(1000, 1, 0), None) == Quantity(1000, 1, 0)


def test_idle_fills_own_pools_then_burst_then_lends_to_preemptible():
    pools = {"reserved": Quantity(10, 10, 0), "ondemand": Quantity(10, 10, 0), "burst": Quantity(4, 4, 0)}
    allocated = {"reserved": Quantity(4, 4, 0), "ondemand": Quantity(12, 12, 0), "preemptible": Quantity(5, 5, 0)}

    idle = poolmodel.idle_by_tier(pools, allocated)

    # ondemand overflows 2 into burst (2 left); preemptible takes 2 of burst, then 3 of reserved's 6
    assert idle == {"reserved": Quantity(3, 3, 0), "ondemand": Quantity(0, 0, 0), "preemptible": Quantity(0, 0, 0)}


# --- properties -----------------------------------------------------------------------------------------------

projects = st.sampled_from(["ads", "ml", "search"])
records = st.lists(
    st.builds(
        lambda minute, minutes, cpu, tier, project, cluster, hourly: record(
            T0 + timedelta(hours=minute // 60) if hourly else T0 + timedelta(minutes=minute),
            60 if hourly else minutes, cpu_m=cpu, tier=tier, project=project, cluster=cluster,
            team=f"team-{project}", workload=f"PinApp/{project}",
        ),
        st.integers(0, 3 * 24 * 60), st.integers(1, 5), st.integers(0, 64_000), st.sampled_from(costmodel.TIERS),
        projects, st.sampled_from(["member-a", "member-b"]), st.booleans(),
    ),
    max_size=40,
)  # fmt: skip
minutes_in = st.integers(0, 3 * 24 * 60)
steps = st.sampled_from([3600, 6 * 3600, 86400])


def window_of(a: int, b: int) -> Window:
    lo, hi = sorted((a, b))
    return Window(T0 + timedelta(minutes=lo), T0 + timedelta(minutes=hi + 1))


def inside(rows: list[Record], window: Window) -> Fraction:
    """Each row's billed cpu times its share inside the window, summed: what a report must total."""
    return sum((r.billable.cpu * costmodel.split(r, window.start, window.end) for r in rows), Fraction(0))


@settings(max_examples=150, deadline=None)
@given(records, minutes_in, minutes_in, steps, st.sampled_from(costmodel.DIMENSIONS))
def test_totals_are_the_sum_of_their_steps_and_aggregates_and_count_each_sample_once(rows, a, b, step, dim):
    window = window_of(a, b)

    report = costmodel.allocate(rows, window, step, (dim,), PRICES)

    by_steps = sum((a.billable.cpu for s in report.steps for a in s.allocations.values()), Fraction(0))
    by_totals = sum((a.billable.cpu for a in report.totals().values()), Fraction(0))
    assert by_steps == by_totals == inside(rows, window)
    assert report.total_cost == sum((a.total_cost for a in report.totals().values()), Fraction(0))


@settings(max_examples=150, deadline=None)
@given(records, minutes_in, minutes_in, minutes_in, steps)
def test_a_window_split_anywhere_costs_the_same_as_the_whole(rows, a, b, c, step):
    lo, mid, hi = sorted((a, b, c))
    whole = Window(T0 + timedelta(minutes=lo), T0 + timedelta(minutes=hi + 2))
    cut = T0 + timedelta(minutes=mid + 1)
    first, second = Window(whole.start, cut), Window(cut, whole.end)

    total = costmodel.allocate(rows, whole, step, ("tier",), PRICES).total_cost
    parts = [costmodel.allocate(rows, w, step, ("tier",), PRICES).total_cost for w in (first, second)]

    assert total == sum(parts)


@settings(max_examples=100, deadline=None)
@given(records, steps)
def test_an_hour_rolled_up_costs_what_its_minutes_cost(rows, step):
    minutes = [r for r in rows if r.end - r.start < timedelta(hours=1)]
    rolled: dict[tuple[str, ...], Record] = {}
    for r in minutes:  # the roll-up: one row per key and hour, the plain sum
        hour = r.start.replace(minute=0)
        key = (hour.isoformat(), r.project, r.tier, r.cluster, r.workload)
        prev = rolled.get(key)
        total = r.billable if prev is None else prev.billable + r.billable
        rolled[key] = Record(hour, hour + timedelta(hours=1), r.project, r.tier, r.cluster, r.workload, total, total,
                             r.team, r.cost_center)  # fmt: skip
    window = Window(T0, T0 + timedelta(days=4))

    fine = costmodel.allocate(minutes, window, step, ("project", "tier"), PRICES)
    coarse = costmodel.allocate(list(rolled.values()), window, step, ("project", "tier"), PRICES)

    assert fine.total_cost == coarse.total_cost
    assert {k: v.total_cost for k, v in fine.totals().items()} == {k: v.total_cost for k, v in coarse.totals().items()}
