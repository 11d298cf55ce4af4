"""The usage time series (minute samples rolled up hourly), pool capacity samples, and the price sheet.

Amounts are resource-seconds over the row's interval ``[start, start + resolution)``: milli-core-seconds,
byte-seconds, GPU-seconds. Summing rows is therefore exact, and a roll-up is a plain SUM. A row's key is unique,
so a sampling run repeated for the same minute inserts nothing (``ignore_conflicts``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from projects.models import Project

MINUTE, HOUR = 60, 3600


class Resolution(models.IntegerChoices):
    MINUTE = MINUTE, "minute"
    HOUR = HOUR, "hour"


class Amounts(models.Model):
    """Requested, used and billed resource-seconds. Billed is by use (OpenCost): per container and minute the larger
    of request and use; use is Prometheus' where scraped, else the request (``usage.sample_use``)."""

    cpu_request = models.BigIntegerField(default=0)
    memory_request = models.BigIntegerField(default=0)
    gpu_request = models.BigIntegerField(default=0)
    cpu_billable = models.BigIntegerField(default=0)
    memory_billable = models.BigIntegerField(default=0)
    gpu_billable = models.BigIntegerField(default=0)
    cpu_use = models.BigIntegerField(default=0)
    memory_use = models.BigIntegerField(default=0)
    gpu_use = models.BigIntegerField(default=0)
    measured_pod_seconds = models.BigIntegerField(
        default=0, help_text="pod-seconds whose every container's use was scraped"
    )
    pod_seconds = models.BigIntegerField(default=0)
    seconds = models.PositiveIntegerField(default=0, help_text="sampled seconds (a minute row 60; an hour's sum)")

    class Meta:
        abstract = True


class UsageSample(Amounts):
    """One workload's pods in one tier on one cluster over one interval. ``workload`` is ``Kind/name`` ("" for
    pods without a workload label); the ``__unused_reservation__`` row (cluster "": grants are regional) holds the
    part of a Reserved grant no workload requested, which is charged too."""

    resolution = models.PositiveIntegerField(choices=Resolution.choices)
    start = models.DateTimeField()
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    tier = models.CharField(max_length=12)
    cluster = models.CharField(max_length=63, blank=True)
    workload = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["resolution", "start", "project", "tier", "cluster", "workload"], name="one_usage_sample"
            )
        ]
        indexes = [models.Index(fields=["resolution", "start"], name="usage_by_time")]

    def __str__(self) -> str:
        return f"{self.start:%Y-%m-%d %H:%M} {self.project_id} {self.tier} {self.cluster} {self.workload}"


class CapacitySample(models.Model):
    """One member cluster's pool for a tier against that tier's running requests (every namespace) over one
    interval, and the pool's idle part (``costmodel.idle_by_tier``); the ``use_`` columns the same by use."""

    resolution = models.PositiveIntegerField(choices=Resolution.choices)
    start = models.DateTimeField()
    cluster = models.CharField(max_length=63)
    tier = models.CharField(max_length=12)
    cpu_capacity = models.BigIntegerField(default=0)
    memory_capacity = models.BigIntegerField(default=0)
    gpu_capacity = models.BigIntegerField(default=0)
    cpu_allocated = models.BigIntegerField(default=0)
    memory_allocated = models.BigIntegerField(default=0)
    gpu_allocated = models.BigIntegerField(default=0)
    cpu_idle = models.BigIntegerField(default=0)
    memory_idle = models.BigIntegerField(default=0)
    gpu_idle = models.BigIntegerField(default=0)
    # by use: the tier's running requests plus what its project containers used beyond them, and the idle left
    cpu_use_allocated = models.BigIntegerField(default=0)
    memory_use_allocated = models.BigIntegerField(default=0)
    gpu_use_allocated = models.BigIntegerField(default=0)
    cpu_use_idle = models.BigIntegerField(default=0)
    memory_use_idle = models.BigIntegerField(default=0)
    gpu_use_idle = models.BigIntegerField(default=0)
    seconds = models.PositiveIntegerField(default=0, help_text="sampled seconds (a minute row 60; an hour's sum)")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["resolution", "start", "cluster", "tier"], name="one_capacity_sample")
        ]
        indexes = [models.Index(fields=["cluster", "resolution", "start"], name="capacity_by_cluster")]

    def __str__(self) -> str:
        return f"{self.start:%Y-%m-%d %H:%M} {self.cluster} {self.tier}"


class SampleRun(models.Model):
    """A minute sampled for a cluster ("" for the region's Reserved grants): the watermark a run fills gaps from,
    and the coverage a report shows. ``filled`` minutes were missed and carry the next run's observation."""

    minute = models.DateTimeField()
    cluster = models.CharField(max_length=63, blank=True)
    filled = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["minute", "cluster"], name="one_run_per_minute")]

    def __str__(self) -> str:
        return f"{self.minute:%Y-%m-%d %H:%M} {self.cluster or 'region'}"


class Watermark(models.Model):
    """Hours before ``at`` are rolled up: reports read hourly rows before it and minute rows from it on."""

    name = models.CharField(max_length=20, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name}: {self.at:%Y-%m-%d %H:%M}"


class Price(models.Model):
    """The price sheet: per tier and resource, per unit-hour (core-hour, GiB-hour, GPU-hour)."""

    tier = models.CharField(max_length=12)
    resource = models.CharField(max_length=8)
    per_hour = models.DecimalField(max_digits=12, decimal_places=6)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["tier", "resource"]
        constraints = [models.UniqueConstraint(fields=["tier", "resource"], name="one_price")]

    def __str__(self) -> str:
        return f"{self.tier} {self.resource}: {self.per_hour}/h"
