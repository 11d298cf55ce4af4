"""The dev stack's stand-in for Celery beat's minute task (``devtools.devusage.SamplingLoop``): started as the dev
command starts it, it samples at once and keeps sampling, so the usage and cost pages fill on the local stack; it
stops when asked."""

from __future__ import annotations

import pytest

from devtools.devusage import SamplingLoop, beat_interval
from devtools.waiting import wait_for
from tests.support.factories import fill
from tests.support.pods import running_pod
from usage import queries
from usage.models import SampleRun, UsageSample

pytestmark = pytest.mark.django_db(transaction=True)  # the loop's thread has its own connection


def test_the_dev_loop_samples_at_once_and_on_its_interval_so_the_cost_page_fills(project, caches, owner, client):
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads")])
    fill(caches, "member-b", pods=[])
    loop = SamplingLoop(interval=0.2).start()
    try:
        wait_for(lambda: loop.runs >= 3, 60, interval=0.1, what="three passes of the loop")
    finally:
        loop.stop()

    assert not loop._thread.is_alive()
    assert set(SampleRun.objects.values_list("cluster", flat=True)) >= {"member-a", "member-b"}
    assert UsageSample.objects.filter(project=project, workload="PinApp/web", cluster="member-a").exists()
    _, report = queries.project_cost("ads", {"window": "1h", "step": "window"}, actor=owner)
    assert report.total_cost > 0
    client.force_login(owner)
    assert "No samples in this window yet" not in client.get("/usage/projects/ads/?window=24h").content.decode()


def test_by_default_it_samples_as_often_as_beat_does_in_production(settings):
    assert SamplingLoop().interval == beat_interval() == settings.CELERY_BEAT_SCHEDULE["sample-usage"]["schedule"]
