"""Stored chargeback samples where one workload used more than it requested and another less, and a member pool's
idle by request and by use (tests/usage/test_cost_by_use_api.py, tests/sdk/test_cli_cost.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from usage.models import MINUTE, CapacitySample, Resolution, UsageSample
from usage.prices import DEFAULTS

CORE = 1000 * MINUTE  # one core for a minute, in milli-core-seconds
OD_CPU = float(DEFAULTS[("ondemand", "cpu")])  # per core-hour


@pytest.fixture
def samples(project: Any) -> None:
    """Three minutes: web requests 100 cores and uses 150 (billed 150); batch requests 200 and uses 50 (billed
    200). member-a's OnDemand pool: 1000 cores, 700 idle by request, 650 by use."""
    now = timezone.now().replace(second=0, microsecond=0)
    for back in (3, 2, 1):
        at = now - timedelta(minutes=back)
        for workload, request, billed, used in (("PinApp/web", 100, 150, 150), ("PinApp/batch", 200, 200, 50)):
            UsageSample.objects.create(
                resolution=Resolution.MINUTE, start=at, project=project, tier="ondemand", cluster="member-a",
                workload=workload, cpu_request=request * CORE, cpu_billable=billed * CORE,
                cpu_use=used * CORE, pod_seconds=MINUTE, measured_pod_seconds=MINUTE, seconds=MINUTE,
            )  # fmt: skip
        CapacitySample.objects.create(
            resolution=Resolution.MINUTE, start=at, cluster="member-a", tier="ondemand", cpu_capacity=1000 * CORE,
            cpu_allocated=300 * CORE, cpu_idle=700 * CORE, cpu_use_allocated=350 * CORE, cpu_use_idle=650 * CORE,
            seconds=MINUTE,
        )  # fmt: skip


def cost(cores: float) -> float:
    """``cores`` for the three sampled minutes at the OnDemand CPU price."""
    return cores * 3 / 60 * OD_CPU
