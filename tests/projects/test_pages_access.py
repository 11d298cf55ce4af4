"""The time-limited access page: a viewer asks (htmx swaps the section), the owner approves from the pending list,
the grant shows its time left with a revoke button; bad input names its field; a developer may not decide (403);
another tenant's project is a 404."""

from __future__ import annotations

import pytest
from django.test import Client

from projects.access_requests.models import AccessGrant, AccessRequest

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
URL = "/projects/ads/access/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_ask_approve_and_revoke_through_the_page(project, owner, viewer):
    page = signed_in(viewer).get(URL)
    assert (
        page.status_code == 200
        and b"Ask for access" in page.content
        and b"Grant access for a while" not in page.content
    )

    asked = signed_in(viewer).post(
        URL, {"op": "request", "access": "developer", "duration_seconds": "14400", "reason": "INC-9"}, **HTMX
    )
    assert asked.status_code == 200 and b'id="access"' in asked.content and b"<html" not in asked.content
    row = AccessRequest.objects.get()
    pending = signed_in(owner).get(URL).content.decode()
    assert "INC-9" in pending and 'value="approve"' in pending

    approved = signed_in(owner).post(URL, {"op": "approve", "id": str(row.pk), "reason": "ok"}, **HTMX)
    assert approved.status_code == 200 and b"Revoke" in approved.content and b"3\xc2\xa0hours" in approved.content
    grant = AccessGrant.objects.get()
    assert signed_in(owner).post(URL, {"op": "revoke", "id": str(grant.pk)}).status_code == 302  # a plain POST
    assert AccessGrant.objects.get().end == "revoked"


def test_bad_input_is_shown_naming_the_field_and_changes_nothing(project, viewer, settings):
    too_long = str(settings.ACCESS_GRANT_MAX_SECONDS * 2)
    answer = signed_in(viewer).post(
        URL, {"op": "request", "access": "root", "duration_seconds": too_long, "reason": "x"}, **HTMX
    )
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "<strong>access</strong>" in text and "<strong>duration_seconds</strong>" in text
    assert not AccessRequest.objects.exists()


def test_a_developer_may_not_decide_and_another_tenant_is_404(project, owner, developer, viewer, other_user):
    signed_in(viewer).post(URL, {"op": "request", "access": "owner", "duration_seconds": "3600", "reason": "r"})
    row = AccessRequest.objects.get()
    assert signed_in(developer).post(URL, {"op": "approve", "id": str(row.pk)}, **HTMX).status_code == 403
    assert signed_in(other_user).get(URL).status_code == 404
    assert signed_in(other_user).post(URL, {"op": "approve", "id": str(row.pk)}).status_code == 404
    assert AccessRequest.objects.get().state == "pending"
