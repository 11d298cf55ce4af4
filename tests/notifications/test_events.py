"""Each event is made once, where it is decided, for the people it concerns and nobody else."""

from __future__ import annotations

import pytest

from clusters.models import Cluster
from notifications.models import Event, Notification
from notifications.services import notify
from projects.grants import QuotaInput
from projects.models import ClusterProvisioning, ProvisioningState
from projects.quota import approve_request, change_quota, reject_request
from projects.tasks import provision_on_cluster

pytestmark = pytest.mark.django_db


def ask(project, owner, commit):
    with commit(execute=True):
        change = change_quota(project, "reserved", QuotaInput(cpu="60", memory="32Gi", pods="50"), actor=owner)
    assert change.request is not None
    return change.request


def test_a_quota_request_tells_the_platform_admins_and_nobody_else(
    project, owner, developer, admin_user, other_user, other_project, django_capture_on_commit_callbacks
):
    request = ask(project, owner, django_capture_on_commit_callbacks)

    told = Notification.objects.get()
    assert told.recipient == admin_user and told.event == Event.QUOTA_REQUESTED and told.project == project
    assert f"#{request.pk}" in told.text and told.link == "/projects/requests/" and told.read_at is None


def test_the_decision_reaches_the_requester_only(
    project, owner, developer, admin_user, django_capture_on_commit_callbacks
):
    request = ask(project, owner, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        reject_request(request.pk, actor=admin_user, reason="The region is full until March.")

    told = Notification.objects.get(recipient=owner)
    assert told.event == Event.QUOTA_DECIDED and "rejected: The region is full until March." in told.text
    assert not Notification.objects.filter(recipient=developer).exists()


def test_an_approval_is_told_and_a_rolled_back_decision_is_not(
    project, owner, admin_user, django_capture_on_commit_callbacks
):
    request = ask(project, owner, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        approve_request(request.pk, actor=admin_user, reason="ok")
    assert "approved and applied" in Notification.objects.get(recipient=owner).text

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        notify(Event.QUOTA_DECIDED, recipients=[owner], text="never", key="x")
    assert len(callbacks) == 1 and not Notification.objects.filter(text="never").exists()


def test_the_same_occurrence_is_told_once_and_repeats_fold_with_a_count(owner, django_capture_on_commit_callbacks):
    def tell(occurrence: str) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            notify(
                Event.PROVISIONING_FAILED,
                recipients=[owner],
                text=f"failed {occurrence}",
                key="k",
                occurrence=occurrence,
            )

    tell("1")
    tell("1")
    assert Notification.objects.get().count == 1
    Notification.objects.update(read_at="2026-01-01T00:00:00Z")
    tell("2")
    row = Notification.objects.get()
    assert row.count == 2 and row.text == "failed 2" and row.read_at is None


def test_a_failed_provisioning_tells_the_projects_owners(
    project, owner, developer, other_user, other_project, django_capture_on_commit_callbacks
):
    """member-a's registry row names a kubeconfig that is not there: the run fails, as a real one can."""
    cluster = Cluster.objects.get(name="member-a")
    with django_capture_on_commit_callbacks(execute=True):
        state = provision_on_cluster(project.pk, cluster.pk)

    assert state == ProvisioningState.FAILED
    told = Notification.objects.get()
    assert told.recipient == owner and told.event == Event.PROVISIONING_FAILED
    assert "Provisioning ads on member-a failed:" in told.text and told.link == "/projects/ads/"
    assert ClusterProvisioning.objects.get(project=project, cluster=cluster).last_error in told.text
