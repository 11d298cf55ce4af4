"""``/api/v1/notifications/``: a user's own only, filtered; read, read-all; preferences with refusals by field."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from notifications.models import Event, Notification, Preference
from notifications.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture
def told(user, other_user, project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        notify(Event.QUOTA_DECIDED, recipients=[user], project=project, text="Ads applied.", key="a")
        notify(Event.PROVISIONING_FAILED, recipients=[user], text="Platform-wide.", key="b")
        notify(Event.QUOTA_DECIDED, recipients=[other_user], text="Someone else's.", key="c")
    return {n.key: n for n in Notification.objects.all()}


@pytest.fixture
def api(api_client, user):
    api_client.force_authenticate(user)
    return api_client


def texts(answer) -> list[str]:
    return sorted(row["text"] for row in answer.json()["results"])


def test_the_list_is_the_users_own_and_filters(api, told):
    assert texts(api.get("/api/v1/notifications/")) == ["Ads applied.", "Platform-wide."]
    assert texts(api.get("/api/v1/notifications/?project=ads")) == ["Ads applied."]
    assert texts(api.get("/api/v1/notifications/?event=provisioning.failed")) == ["Platform-wide."]
    row = api.get("/api/v1/notifications/?project=ads").json()["results"][0]
    assert row["project"] == "ads" and row["read"] is False and row["event"] == "quota.decided"


def test_read_one_and_all(api, told):
    answer = api.post(f"/api/v1/notifications/{told['a'].pk}/read/")
    assert answer.status_code == 200 and answer.json()["read"] is True
    assert texts(api.get("/api/v1/notifications/?unread=true")) == ["Platform-wide."]
    assert api.post("/api/v1/notifications/read-all/").json() == {"marked": 1}
    assert texts(api.get("/api/v1/notifications/?unread=true")) == []


def test_another_users_notification_is_a_404(api, told):
    answer = api.post(f"/api/v1/notifications/{told['c'].pk}/read/")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    assert Notification.objects.get(key="c").read_at is None


def test_bad_filters_are_refused_naming_the_parameter(api, told):
    for query, field in (("event=quota.exploded", "event"), ("unread=maybe", "unread")):
        answer = api.get(f"/api/v1/notifications/?{query}")
        assert answer.status_code == 400
        assert [f["path"] for f in answer.json()["error"]["fields"]] == [field]


def test_preferences_round_trip_and_are_audited(api, user):
    assert api.get("/api/v1/notifications/preferences/").json() == {
        "muted": [],
        "in_app": True,
        "email": True,
        "digest": False,
    }
    answer = api.put(
        "/api/v1/notifications/preferences/", {"muted": ["quota.requested"], "digest": True}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["muted"] == ["quota.requested"] and answer.json()["digest"]
    assert AuditEvent.objects.filter(action="notifications.preferences", actor=user).count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"muted": ["quota.exploded"]}, "muted"),
        ({"muted": "quota.requested"}, "muted"),
        ({"email": "yes"}, "email"),
        ({"webhook": True}, "webhook"),
    ],
)
def test_bad_preferences_are_refused_naming_the_field_and_change_nothing(api, user, body, field):
    answer = api.put("/api/v1/notifications/preferences/", body, format="json")

    assert answer.status_code == 400
    assert [f["path"] for f in answer.json()["error"]["fields"]] == [field]
    assert not Preference.objects.filter(user=user).exists()


@pytest.mark.parametrize(
    "path", ["/api/v1/notifications/", "/api/v1/notifications/preferences/", "/api/v1/notifications/read-all/"]
)
def test_options_describes_each_operation_without_a_server_error(api, path):
    assert api.options(path).status_code == 200
