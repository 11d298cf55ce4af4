"""``pincompute capacity cluster/NAME`` against the real portal (``live_server``) with a real API token: the tier
pools as last sampled and the forecast's sentence with its slope and error (the arithmetic: tests/usage/
test_forecast.py); a target that is not cluster/NAME is a usage error."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.utils import timezone
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from usage.models import CapacitySample, Resolution


@pytest.mark.django_db(transaction=True)
def test_the_cli_prints_the_pools_and_when_each_fills(live_server, region, admin_user, monkeypatch):
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for back, cores in ((3, 2), (2, 4), (1, 6)):  # two cores more each hour, of twelve
        CapacitySample.objects.create(resolution=Resolution.MINUTE, start=hour - timedelta(hours=back),
                                      cluster="member-a", tier="ondemand", cpu_capacity=12 * 1000 * 60,
                                      cpu_allocated=cores * 1000 * 60, seconds=60)  # fmt: skip
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=admin_user, name="ops", days=1)[1])
    out, err = io.StringIO(), io.StringIO()

    code = main(["capacity", "cluster/member-a"], out=out, err=err)

    lines = out.getvalue().splitlines()
    assert code == 0, err.getvalue()
    assert lines[0].split() == ["TIER", "CPU(alloc/cap)", "MEM", "GiB(alloc/cap)", "GPU(alloc/cap)"]
    assert lines[1].split()[:2] == ["ondemand", "6.0/12.0"]
    said = "OnDemand pool CPU: full in about 0.1 days at this rate (slope +48.00/day, fit error ±0.00 cores)"
    assert lines[-1] == said
    assert main(["capacity", "member-a"], out=io.StringIO(), err=io.StringIO()) == 2
