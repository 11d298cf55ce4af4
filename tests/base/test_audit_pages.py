import pytest

from base import audit

pytestmark = pytest.mark.django_db


def test_non_admin_cannot_open_the_audit_page(user_client):
    response = user_client.get("/audit/")

    assert response.status_code == 403
    assert b"platform admins" in response.content


def test_admin_filters_the_audit_page_and_htmx_gets_rows_only(admin_client_, admin_user):
    audit.record("cluster.update", actor=admin_user, target_kind="Cluster", target_name="member-a", cluster="member-a")
    audit.record("project.create", actor=admin_user, target_kind="Project", target_name="ads", project="ads")

    full = admin_client_.get("/audit/?project=ads")
    partial = admin_client_.get("/audit/?project=ads", HTTP_HX_REQUEST="true")

    assert full.status_code == 200 and b"<html" in full.content
    assert b"<strong>ads</strong>" in full.content and b"<strong>member-a</strong>" not in full.content
    assert b"<html" not in partial.content and b"project.create" in partial.content


def test_audit_row_carries_request_id_and_before_after(admin_client_, admin_user):
    from accounts.models import ApiToken
    from base.models import AuditEvent

    response = admin_client_.post("/tokens/", {"name": "t1"})
    event = AuditEvent.objects.get(action="token.create")

    assert response.status_code == 302  # created: post/redirect/get
    assert event.request_id == response["X-Request-ID"]
    assert event.actor == admin_user and event.after["scope"] == "write"
    assert event.after["expires_at"].startswith(str(ApiToken.objects.get().expires_at.date()))


def test_audit_detail_is_admin_only(user_client, admin_user):
    event = audit.record("x.y", actor=admin_user, target_kind="K", target_name="n")

    assert user_client.get(f"/audit/{event.pk}/").status_code == 403


def test_changed_fields_keeps_only_differences():
    before, after = audit.changed_fields({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4})

    assert before == {"b": 2, "c": None} and after == {"b": 3, "c": 4}
