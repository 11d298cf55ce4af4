"""What the periodic pass tells besides a preemption: a workload waiting for admission too long, Degraded, Failed,
crash-looping (to the project's members, with the diagnosis' cause, once per state change), and a tier's use crossing
80% and 100% of its grant (to its owners); another tenant hears nothing."""

from __future__ import annotations

import pytest

from notifications.models import Event, Notification
from tests.support.factories import HOST, fill, make_quota, workload_cr
from tests.support.fake_host import pod
from workloads.tasks import tell_changes

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_pass(django_capture_on_commit_callbacks):
    def run() -> None:
        with django_capture_on_commit_callbacks(execute=True):
            tell_changes()

    return run


def with_uid(cr: dict, uid: str) -> dict:
    cr["metadata"]["uid"] = uid
    return cr


def degraded(name: str, when: str, *, failed: bool = False) -> dict:
    cr = with_uid(workload_cr(name), f"uid-{name}")
    cr["status"]["conditions"].append({"type": "Degraded", "status": "True", "reason": "Failed",
                                       "message": "web-0: image missing", "lastTransitionTime": when})  # fmt: skip
    cr["status"]["phase"] = "Failed" if failed else "Degraded"
    return cr


def told(event: Event) -> dict:
    return {n.recipient.username: n for n in Notification.objects.filter(event=event)}


def test_degraded_and_failed_reach_the_members_once_per_change(
    caches, project, other_project, other_user, run_pass, owner, developer, viewer
):
    fill(caches, HOST, degraded("web", "2026-11-28T01:00:00Z"), degraded("batch", "2026-11-28T01:00:00Z", failed=True))
    run_pass()
    run_pass()  # seen again: nothing twice

    rows = told(Event.WORKLOAD_DEGRADED)
    assert set(rows) == {owner.username, developer.username, viewer.username}
    row = rows[developer.username]
    assert row.text.startswith("PinApp web in ads is degraded: Degraded: Failed, web-0: image missing")
    assert row.link == "/workloads/ads/PinApp/web/" and row.count == 1
    failed = told(Event.WORKLOAD_FAILED)[viewer.username]
    assert failed.text.startswith("PinApp batch in ads failed:") and failed.count == 1
    assert not Notification.objects.filter(recipient=other_user).exists()

    fill(caches, HOST, degraded("web", "2026-11-28T02:00:00Z"))  # healed, then degraded again
    run_pass()
    assert told(Event.WORKLOAD_DEGRADED)[developer.username].count == 2


def test_a_workload_waiting_past_the_setting_is_told(caches, project, run_pass, settings, developer):
    settings.WORKLOAD_ADMISSION_WAIT_SECONDS = 600
    recent = with_uid(workload_cr("fresh", admitted=None, created="2999-01-01T00:00:00Z"), "uid-fresh")
    old = with_uid(workload_cr("old", admitted=False, created="2026-01-01T00:00:00Z"), "uid-old")
    fill(caches, HOST, recent, old)
    run_pass()
    rows = Notification.objects.filter(event=Event.WORKLOAD_WAITING, recipient=developer)
    assert [r.text.split(":")[0] for r in rows] == ["PinApp old in ads has waited for admission too long"]
    assert "OnDemand cpu" in rows[0].text  # the diagnosis' cause: what it waits for


def test_crash_looping_pods_are_told_once_per_pod(caches, project, run_pass, developer, other_user):
    fill(caches, HOST, with_uid(workload_cr("web"), "uid-web"))
    looping = pod("web-local-1a-abc")
    looping["status"] = {"phase": "Running", "containerStatuses": [
        {"name": "app", "ready": False, "restartCount": 7, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
         "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}}]}  # fmt: skip
    fill(caches, "member-a", pods=[looping])
    run_pass()
    run_pass()
    row = Notification.objects.get(event=Event.WORKLOAD_CRASHLOOP, recipient=developer)
    assert (
        row.text
        == "PinApp web in ads has pods crash-looping: Container app crash-loops on member-a: exit 1 after 7 restarts."
    )
    assert row.count == 1 and row.occurrence == "member-a/web-local-1a-abc"
    assert not Notification.objects.filter(recipient=other_user).exists()


def test_a_tier_crossing_80_and_100_percent_tells_the_owners(caches, project, run_pass, owner, developer):
    make_quota("ondemand", 10)
    fill(caches, HOST, workload_cr("web", cpu="2", replicas=2))  # 4 of 10 cores: nothing
    run_pass()
    assert not Notification.objects.filter(event=Event.TIER_USAGE).exists()

    fill(caches, HOST, workload_cr("web", cpu="2", replicas=4))  # 8 of 10
    run_pass()
    run_pass()
    row = Notification.objects.get(event=Event.TIER_USAGE)
    assert row.recipient == owner and "past 80%" in row.text and row.link == "/projects/ads/quota/"

    fill(caches, HOST, workload_cr("web", cpu="2", replicas=5))  # 10 of 10
    run_pass()
    row.refresh_from_db()
    assert "past 100%" in row.text and row.count == 2
    fill(caches, HOST, workload_cr("web", cpu="2", replicas=1))  # back under 80%: re-armed
    run_pass()
    fill(caches, HOST, workload_cr("web", cpu="2", replicas=5))
    run_pass()
    row.refresh_from_db()
    assert row.count == 3
    assert not Notification.objects.filter(event=Event.TIER_USAGE, recipient=developer).exists()
