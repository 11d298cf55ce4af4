"""Access requests and grants reach the people they concern: a request its project's owners (never another
project's), the decision its requester, a grant about to end and an ended one its user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications.models import Event, Notification
from projects.access_requests.services import (
    approve_access_request,
    deny_access_request,
    grant_access,
    request_access,
    revoke_access_grant,
)
from projects.access_requests.tasks import expire_access_grants

pytestmark = pytest.mark.django_db


def told(user) -> list[tuple[str, str]]:
    return [(n.event, n.text) for n in Notification.objects.filter(recipient=user).order_by("pk")]


def test_a_request_tells_the_owners_and_its_decision_the_requester(
    project, owner, developer, viewer, other_project, other_user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        row = request_access(project, access="developer", duration_seconds=7200, reason="incident 42", actor=viewer)

    [(event, text)] = told(owner)
    assert event == Event.ACCESS_REQUESTED and text == "vic asks for developer in ads for 2 h: incident 42"
    assert told(developer) == [] and told(viewer) == [] and told(other_user) == []
    assert Notification.objects.get(recipient=owner).link == "/projects/ads/access/"

    with django_capture_on_commit_callbacks(execute=True):
        approve_access_request(row, actor=owner)
    [(event, text)] = told(viewer)
    assert event == Event.ACCESS_DECIDED and text.startswith("You have developer in ads until ")

    with django_capture_on_commit_callbacks(execute=True):
        again = request_access(project, access="owner", duration_seconds=3600, reason="more", actor=viewer)
        deny_access_request(again, actor=owner, reason="not for this")
    assert told(viewer)[-1] == (Event.ACCESS_DECIDED, "Your request for owner in ads was denied: not for this")


def test_a_grant_about_to_end_and_ended_tells_its_user(project, owner, other_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        grant = grant_access(project, username=other_user.username, access="viewer", duration_seconds=3600,
                             reason="on call", actor=owner)  # fmt: skip
    assert told(other_user)[0][0] == Event.ACCESS_DECIDED

    grant.ends_at = timezone.now() + timedelta(seconds=60)
    grant.save(update_fields=["ends_at"])
    with django_capture_on_commit_callbacks(execute=True):
        expire_access_grants()
    assert told(other_user)[-1][0] == Event.ACCESS_EXPIRING

    with django_capture_on_commit_callbacks(execute=True):
        revoke_access_grant(grant, actor=owner)
    assert told(other_user)[-1] == (
        Event.ACCESS_EXPIRED,
        "Your viewer in ads was revoked; its open shells and streams are closed.",
    )
