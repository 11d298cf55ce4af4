"""Sampling from the (hand-filled) watch caches into minute rows, the hourly roll-up, and the reports over them:
idempotent when doubled, a gap when missed, each sample counted once before and after the roll-up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from projects.grants import QuotaInput
from projects.quota import change_quota
from tests.support.factories import fill
from tests.support.pods import running_pod
from usage import costmodel, reports
from usage.models import CapacitySample, Resolution, SampleRun, UsageSample, Watermark
from usage.prices import DEFAULTS
from usage.rollup import roll_up
from usage.sampling import sample

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 11, 23, 9, 0, 20, tzinfo=UTC)
GIB = 1 << 30


def rows() -> list[tuple]:
    return sorted(
        UsageSample.objects.values_list("resolution", "start", "project__name", "tier", "cluster", "workload",
                                        "cpu_request", "memory_request", "gpu_request", "cpu_billable", "pod_seconds")
    )  # fmt: skip


@pytest.fixture
def running(project, other_project, caches):
    """``ads``: two OnDemand web pods on member-a, a Reserved trainer with a GPU on member-b, a finished job; ``ml``
    one Preemptible pod; a pod in kube-system."""
    fill(caches, "member-a", pods=[
        running_pod("web-1", "ads"), running_pod("web-2", "ads"),
        running_pod("done-1", "ads", workload="batch", kind="PinterestJobSet", phase="Succeeded"),
        running_pod("ml-1", "ml", cpu="500m", tier="preemptible", workload="crawl"),
        {**running_pod("dns", "x"), "metadata": {"name": "dns", "namespace": "kube-system"}},
    ])  # fmt: skip
    fill(caches, "member-b", pods=[running_pod("train-0", "ads", cpu="4", memory="16Gi", gpu="1", tier="reserved",
                                               workload="train", kind="PinTrainingJob")])  # fmt: skip
    return caches


def test_a_minute_records_each_workloads_requests_per_tier_and_cluster(running, project, owner):
    change_quota(project, "reserved", QuotaInput(cpu="6", memory="16Gi", gpu="0", pods="10"), actor=owner)

    result = sample(T0)

    minute = T0.replace(second=0)
    assert result.clusters == ["member-a", "member-b"] and not result.skipped
    assert rows() == [
        (60, minute, "ads", "ondemand", "member-a", "PinApp/web", 2000 * 60, 2 * GIB * 60, 0, 2000 * 60, 120),
        (60, minute, "ads", "reserved", "", costmodel.UNUSED_RESERVATION, 2000 * 60, 0, 0, 2000 * 60, 0),
        (60, minute, "ads", "reserved", "member-b", "PinTrainingJob/train", 4000 * 60, 16 * GIB * 60, 60, 240_000, 60),
        (60, minute, "ml", "preemptible", "member-a", "PinApp/crawl", 500 * 60, GIB * 60, 0, 500 * 60, 60),
    ]  # fmt: skip
    allocated = CapacitySample.objects.get(cluster="member-a", tier="ondemand")
    assert allocated.cpu_allocated == 3000 * 60  # every namespace's OnDemand pods (kube-system's too)
    # member-a has no burst pool: the Preemptible pod borrows OnDemand's room
    assert allocated.cpu_capacity == 32_000 * 60 and allocated.cpu_idle == (32_000 - 3000 - 500) * 60


def test_a_doubled_run_of_a_minute_changes_nothing(running):
    sample(T0)
    before = rows()
    fill(running, "member-a", pods=[running_pod("web-3", "ads")])  # the cache moved on meanwhile

    again = sample(T0 + timedelta(seconds=30))

    assert again.rows == 0 and rows() == before


def test_an_unsynced_member_is_a_gap_not_zeros(running):
    running["member-b"].synced = False

    result = sample(T0)

    assert "member-b" in result.skipped
    assert not UsageSample.objects.filter(cluster="member-b").exists()
    assert not SampleRun.objects.filter(cluster="").exists()  # the region's grants need every member


def test_a_short_gap_carries_the_next_sample_and_a_long_one_stays_a_gap(running, settings):
    settings.USAGE_GAP_FILL_MINUTES = 5
    sample(T0)

    sample(T0 + timedelta(minutes=4))
    sample(T0 + timedelta(minutes=30))

    minutes = sorted(set(SampleRun.objects.filter(cluster="member-a").values_list("minute", "filled")))
    start = T0.replace(second=0)
    assert minutes == [(start, False), *((start + timedelta(minutes=m), True) for m in (1, 2, 3)),
                       (start + timedelta(minutes=4), False), (start + timedelta(minutes=30), False)]  # fmt: skip


def test_the_hourly_roll_up_sums_its_minutes_and_reports_agree_before_and_after(running):
    for m in range(60):
        sample(T0 + timedelta(minutes=m))
    window = costmodel.Window(datetime(2026, 11, 23, 9, tzinfo=UTC), datetime(2026, 11, 23, 10, tzinfo=UTC))
    scope = reports.Scope(None, include_idle=True)
    before = reports.cost_report(window, 3600, ("project", "tier"), scope)

    first = roll_up(T0 + timedelta(hours=1, minutes=3))
    hourly = rows()
    second = roll_up(T0 + timedelta(hours=1, minutes=4))
    after = reports.cost_report(window, 3600, ("project", "tier"), scope)

    assert first.hours == 1 and second.hours == 0 and rows() == hourly
    assert Watermark.objects.get().at == datetime(2026, 11, 23, 10, tzinfo=UTC)
    web = UsageSample.objects.get(resolution=Resolution.HOUR, workload="PinApp/web")
    assert (web.cpu_request, web.seconds) == (2000 * 3600, 3600)
    assert after.total_cost == before.total_cost
    totals = after.totals()
    assert totals["ads/ondemand"].billable.cpu == 2000 * 3600  # two cores for the hour
    expected = 2 * DEFAULTS[("ondemand", "cpu")] + 2 * DEFAULTS[("ondemand", "memory")]
    assert totals["ads/ondemand"].total_cost == costmodel.Fraction(expected)
    assert costmodel.IDLE in totals


def test_old_minute_rows_go_after_retention_and_reports_never_read_them_twice(running, settings):
    settings.USAGE_MINUTE_RETENTION_HOURS = 1
    for m in range(0, 180, 20):
        sample(T0 + timedelta(minutes=m))

    roll_up(T0 + timedelta(hours=3, minutes=5))

    kept = UsageSample.objects.filter(resolution=Resolution.MINUTE)
    assert not kept.filter(start__lt=datetime(2026, 11, 23, 11, tzinfo=UTC)).exists()
    window = costmodel.Window(datetime(2026, 11, 23, 9, tzinfo=UTC), datetime(2026, 11, 23, 12, tzinfo=UTC))
    report = reports.cost_report(window, 3600, ("workload",), reports.Scope(None))
    assert report.totals()["PinApp/web"].billable.cpu == 2000 * 60 * 9  # 9 samples; gaps of 19 minutes not carried
