"""Hourly roll-up and retention. An hour is rolled once it is over (plus a grace minute for the last sample):
its hourly rows are replaced by the SUM of its minute rows, then the watermark moves past it. Reports read hourly
rows before the watermark and minute rows from it on, so no sample is counted twice; re-rolling an hour writes
the same rows. Minute rows older than ``USAGE_MINUTE_RETENTION_HOURS`` behind the watermark, and hourly rows older
than ``USAGE_HOURLY_RETENTION_DAYS``, are deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Min, Sum

from usage.models import HOUR, CapacitySample, Resolution, SampleRun, UsageSample, Watermark

GRACE = timedelta(minutes=2)
USAGE_KEY = ("project_id", "tier", "cluster", "workload")
USAGE_SUMS = (
    *(f"{r}_{m}" for r in ("cpu", "memory", "gpu") for m in ("request", "billable", "use")), "pod_seconds",
    "measured_pod_seconds", "seconds",
)  # fmt: skip
CAPACITY_KEY = ("cluster", "tier")
CAPACITY_COLUMNS = ("capacity", "allocated", "idle", "use_allocated", "use_idle")
CAPACITY_SUMS = (*(f"{r}_{m}" for r in ("cpu", "memory", "gpu") for m in CAPACITY_COLUMNS), "seconds")
HOURLY = "hourly"


@dataclass(frozen=True)
class RollupResult:
    hours: int
    watermark: datetime | None
    purged_minute_rows: int
    purged_hourly_rows: int


def hour_of(at: datetime) -> datetime:
    return at.replace(minute=0, second=0, microsecond=0)


def watermark() -> datetime | None:
    """The start of the first hour not rolled up (None before the first roll-up)."""
    found = Watermark.objects.filter(name=HOURLY).first()
    return found.at if found else None


def _roll(model: type[UsageSample] | type[CapacitySample], key: tuple[str, ...], sums: tuple[str, ...],
          hour: datetime) -> int:  # fmt: skip
    minutes = model.objects.filter(resolution=Resolution.MINUTE, start__gte=hour, start__lt=hour + timedelta(hours=1))
    groups = minutes.values(*key).annotate(**{f"s_{name}": Sum(name) for name in sums}).order_by()
    rows = [
        model(resolution=Resolution.HOUR, start=hour, **{k: g[k] for k in key}, **{n: g[f"s_{n}"] for n in sums})
        for g in groups
    ]
    model.objects.filter(resolution=Resolution.HOUR, start=hour).delete()
    model.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def roll_up(now: datetime) -> RollupResult:
    """Roll every finished hour since the watermark (the first sampled hour the first time), then purge."""
    done = 0
    with transaction.atomic():
        mark, _ = Watermark.objects.select_for_update().get_or_create(name=HOURLY, defaults={"at": _first_hour(now)})
        hour = mark.at
        while hour + timedelta(hours=1) + GRACE <= now:
            _roll(UsageSample, USAGE_KEY, USAGE_SUMS, hour)
            _roll(CapacitySample, CAPACITY_KEY, CAPACITY_SUMS, hour)
            hour += timedelta(hours=1)
            done += 1
        if hour != mark.at:
            mark.at = hour
            mark.save(update_fields=["at"])
    minute_cutoff = hour - timedelta(hours=settings.USAGE_MINUTE_RETENTION_HOURS)
    hourly_cutoff = hour_of(now) - timedelta(days=settings.USAGE_HOURLY_RETENTION_DAYS)
    purged_minutes = 0
    for model in (UsageSample, CapacitySample):
        purged_minutes += model.objects.filter(resolution=Resolution.MINUTE, start__lt=minute_cutoff).delete()[0]
    SampleRun.objects.filter(minute__lt=minute_cutoff).delete()
    purged_hours = sum(
        model.objects.filter(resolution=HOUR, start__lt=hourly_cutoff).delete()[0]
        for model in (UsageSample, CapacitySample)
    )
    return RollupResult(done, hour, purged_minutes, purged_hours)


def _first_hour(now: datetime) -> datetime:
    first = UsageSample.objects.filter(resolution=Resolution.MINUTE).aggregate(m=Min("start"))["m"]
    first_capacity = CapacitySample.objects.filter(resolution=Resolution.MINUTE).aggregate(m=Min("start"))["m"]
    candidates = [at for at in (first, first_capacity) if at is not None]
    return hour_of(min(candidates)) if candidates else hour_of(now)
