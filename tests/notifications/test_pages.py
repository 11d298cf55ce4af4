"""The notification centre's pages: the bell on every page, the list and its filters, mark read, preferences."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from notifications.models import Event, Notification, Preference
from notifications.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture
def told(user, other_user, project, other_project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        notify(Event.QUOTA_DECIDED, recipients=[user], project=project, text="Ads request applied.", key="a")
        notify(Event.PROVISIONING_FAILED, recipients=[user], project=other_project, text="Ml failed.", key="b")
        notify(Event.QUOTA_DECIDED, recipients=[other_user], text="Someone else's.", key="c")
    return {n.key: n for n in Notification.objects.all()}


def test_the_bell_shows_the_unread_count_on_every_page(user_client, told):
    for path in ("/", "/projects/", "/tokens/"):
        page = user_client.get(path).content.decode()
        assert 'id="nav-notifications"' in page and ">2</span>" in page.split('id="nav-notifications"')[1][:120]


def test_the_list_shows_only_the_users_own_and_filters_them(user_client, told):
    page = user_client.get("/notifications/").content.decode()
    assert "Ads request applied." in page and "Ml failed." in page and "Someone else" not in page

    by_project = user_client.get("/notifications/?project=ads").content.decode()
    assert "Ads request applied." in by_project and "Ml failed." not in by_project
    by_event = user_client.get("/notifications/?event=provisioning.failed").content.decode()
    assert "Ml failed." in by_event and "Ads request applied." not in by_event


def test_mark_read_and_read_all(user_client, user, told):
    user_client.post(f"/notifications/{told['a'].pk}/read/")
    unread = user_client.get("/notifications/?unread=1").content.decode()
    assert "Ads request applied." not in unread and "Ml failed." in unread

    answer = user_client.post("/notifications/read-all/", headers={"HX-Request": "true"})
    assert answer.status_code == 200 and "0 unread" in answer.content.decode()
    assert not Notification.objects.filter(recipient=user, read_at__isnull=True).exists()


def test_another_users_notification_is_a_404_and_stays_unread(user_client, told):
    answer = user_client.post(f"/notifications/{told['c'].pk}/read/")
    assert answer.status_code == 404
    assert Notification.objects.get(key="c").read_at is None


def test_preferences_mute_an_event_and_are_audited(user_client, user, django_capture_on_commit_callbacks):
    answer = user_client.post(
        "/notifications/preferences/", {"events": [Event.QUOTA_DECIDED], "in_app": "on", "email": "on"}
    )
    assert answer.status_code == 302
    pref = Preference.objects.get(user=user)
    assert pref.muted == sorted(e for e in Event.values if e != Event.QUOTA_DECIDED) and pref.in_app and not pref.digest
    assert AuditEvent.objects.get(action="notifications.preferences").after["muted"] == pref.muted

    with django_capture_on_commit_callbacks(execute=True):
        notify(Event.PROVISIONING_FAILED, recipients=[user], text="muted", key="m")
        notify(Event.QUOTA_DECIDED, recipients=[user], text="wanted", key="w")
    assert list(Notification.objects.values_list("text", flat=True)) == ["wanted"]


def test_an_unknown_event_in_the_preferences_form_is_refused_and_nothing_changes(user_client, user):
    answer = user_client.post("/notifications/preferences/", {"events": ["quota.exploded"]})
    assert answer.status_code == 400 and "quota.exploded" in answer.content.decode()
    assert not Preference.objects.filter(user=user).exists()
