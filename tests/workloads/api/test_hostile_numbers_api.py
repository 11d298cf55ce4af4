"""Numbers ``str.isdigit`` accepts but ``int`` refuses (``²``, over 4,300 digits) in a CronJob schedule or a rollout
percentage, through the API: a 400 in the one error body naming the field, and nothing written; never a 500."""

from __future__ import annotations

import pytest

from tests.support.workloads_api import DRY_RUN, paths, quiet

pytestmark = pytest.mark.django_db
NINES = "9" * 5000
CRONJOB = """apiVersion: pincompute.io/v1
kind: PinterestCronJob
metadata:
  name: nightly
spec:
  schedule: "{schedule}"
  containers:
  - name: c
    image: registry.local/app:1
    resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
"""
PINAPP = """apiVersion: pincompute.io/v1
kind: PinApp
metadata:
  name: web2
spec:
  zones: [local-1a]
  rollout: {{maxUnavailable: "{percent}"}}
  template:
    containers:
    - name: c
      image: registry.local/app:1
      resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
"""


def short(value: str) -> str:
    return value if len(value) < 30 else f"{value[:8]}...({len(value)} chars)"


@pytest.mark.parametrize(
    "schedule", ["² * * * *", "*/² * * * *", "1-² * * * *", f"{NINES} * * * *", f"1-{NINES} * * * *"], ids=short
)
@pytest.mark.parametrize("url", [DRY_RUN, "/api/v1/projects/ads/workloads/"])
def test_a_cron_schedule_int_cannot_read_is_a_400_naming_the_schedule(fake_host, developer, schedule, url):
    response = quiet(developer).post(url, CRONJOB.format(schedule=schedule), content_type="application/yaml")

    found = paths(response)
    assert "spec.schedule" in found and "is not a valid cron schedule" in found["spec.schedule"]
    assert len(found["spec.schedule"]) < 300
    assert fake_host.objects == {}


@pytest.mark.parametrize("percent", [f"{'9' * 4400}%", "²%"], ids=short)
def test_a_rollout_percentage_int_cannot_read_is_a_400_naming_it(fake_host, developer, percent):
    response = quiet(developer).post(DRY_RUN, PINAPP.format(percent=percent), content_type="application/yaml")

    found = paths(response)
    assert "must be a count or a percentage" in found["spec.rollout.maxUnavailable"]
    assert fake_host.objects == {}
