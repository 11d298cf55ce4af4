"""A workload the federation preempted (reclaimed for quota) is told to its project's members once per reclaim, with
the diagnosis' cause; another tenant hears nothing."""

from __future__ import annotations

import pytest

from notifications.models import Event, Notification
from tests.support.factories import HOST, fill, workload_cr
from workloads.tasks import tell_changes

pytestmark = pytest.mark.django_db


def reclaimed(name: str, when: str) -> dict:
    cr = workload_cr(name, tier="Preemptible")
    cr["metadata"]["uid"] = f"uid-{name}"
    cr["status"]["conditions"] = [
        {
            "type": "Admitted",
            "status": "False",
            "reason": "Reclaimed",
            "message": "Preemptible cpu: reclaimed, newest first, to fit 1 of 2",
            "lastTransitionTime": when,
        }
    ]
    return cr


def test_a_preempted_workload_is_told_to_its_members_once_per_reclaim(
    caches, project, owner, developer, viewer, other_user, other_project, django_capture_on_commit_callbacks
):
    fill(caches, HOST, reclaimed("batch", "2026-11-28T01:00:00Z"), workload_cr("web"))
    for _ in range(2):  # the pass runs again: nothing twice
        with django_capture_on_commit_callbacks(execute=True):
            assert tell_changes() == 1

    rows = Notification.objects.filter(event=Event.WORKLOAD_PREEMPTED)
    assert {n.recipient for n in rows} == {owner, developer, viewer}
    row = rows.get(recipient=developer)
    assert row.text.startswith("PinApp batch in ads was preempted: Reclaimed for quota: Preemptible cpu")  # the cause
    assert row.link == "/workloads/ads/PinApp/batch/" and row.count == 1
    assert not Notification.objects.filter(recipient=other_user).exists()

    fill(caches, HOST, reclaimed("batch", "2026-11-28T02:00:00Z"))  # admitted again meanwhile, then reclaimed again
    with django_capture_on_commit_callbacks(execute=True):
        tell_changes()
    assert Notification.objects.get(recipient=developer).count == 2
