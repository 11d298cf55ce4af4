"""The dev stack's Celery beat (``devtools.devbeat.DevBeat``): every ``CELERY_BEAT_SCHEDULE`` entry runs in-process
on beat's schedule, so the usage and cost pages fill on the local stack (the embedded default has no beat); a
failing task is logged and the others go on; an entry naming no task is refused at start."""

from __future__ import annotations

import pytest
from django.conf import settings

from console.celery import app
from devtools.devbeat import DevBeat
from devtools.waiting import wait_for
from tests.support.factories import fill
from tests.support.pods import running_pod
from usage import queries
from usage.models import SampleRun, UsageSample

pytestmark = pytest.mark.django_db(transaction=True)  # the beat's thread has its own connection


@app.task(name="tests.dev_beat_fails")
def _fails() -> None:
    raise RuntimeError("this task always fails")


def test_the_sampling_entry_runs_on_its_period_so_the_cost_page_fills(project, caches, owner, client):
    fill(caches, "member-a", pods=[running_pod("web-1", "ads"), running_pod("web-2", "ads")])
    fill(caches, "member-b", pods=[])
    beat = DevBeat({"sample-usage": {"task": "usage.sample", "schedule": 0.2}}, resolution=0.05).start()
    try:
        wait_for(lambda: beat.ran["sample-usage"] >= 3, 60, interval=0.1, what="three runs of the entry")
    finally:
        beat.stop()

    assert not beat._thread.is_alive()
    assert set(SampleRun.objects.values_list("cluster", flat=True)) >= {"member-a", "member-b"}
    assert UsageSample.objects.filter(project=project, workload="PinApp/web", cluster="member-a").exists()
    _, report = queries.project_cost("ads", {"window": "1h", "step": "window"}, actor=owner)
    assert report.total_cost > 0
    client.force_login(owner)
    assert "No samples in this window yet" not in client.get("/usage/projects/ads/?window=24h").content.decode()


def test_a_failing_task_is_counted_and_the_next_entry_still_runs(caches):
    fill(caches, "member-a", pods=[])
    schedule = {
        "fails": {"task": "tests.dev_beat_fails", "schedule": 0.1},
        "expire": {"task": "projects.expire_access_grants", "schedule": 0.1},
    }
    beat = DevBeat(schedule, resolution=0.05).start()
    try:
        wait_for(lambda: beat.failed["fails"] >= 2 and beat.ran["expire"] >= 2, 60, interval=0.1, what="both")
    finally:
        beat.stop()
    assert beat.ran["fails"] == 0


def test_every_entry_of_the_settings_runs_with_its_own_period():
    beat = DevBeat()
    assert [e.name for e in beat.entries] == list(settings.CELERY_BEAT_SCHEDULE)
    periods = {e.name: e.schedule.run_every.total_seconds() for e in beat.entries}
    assert periods == {name: float(e["schedule"]) for name, e in settings.CELERY_BEAT_SCHEDULE.items()}


def test_an_entry_naming_no_task_is_refused_with_its_name():
    with pytest.raises(ValueError, match=r"nightly \(nobody.defines_this\)"):
        DevBeat({"nightly": {"task": "nobody.defines_this", "schedule": 60}})
