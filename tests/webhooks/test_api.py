"""``/api/v1/projects/<p>/webhooks/``: owners add, change, route and remove hooks (audited, the secret once);
viewers and developers are refused, another tenant gets 404; bad input is refused naming the field."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db
BASE = "/api/v1/projects/ads/webhooks/"


@pytest.fixture
def as_user(api_client):
    def login(user):
        api_client.force_authenticate(user)
        return api_client

    return login


def test_an_owner_adds_routes_lists_and_removes_a_hook_audited(as_user, owner, project, private_allowed):
    api = as_user(owner)
    made = api.post(BASE, {"name": "team", "url": "http://127.0.0.1:9/x", "events": ["workload.failed"]}, format="json")
    assert made.status_code == 201, made.content
    secret = made.json()["secret"]
    assert secret.startswith("whsec_") and Webhook.objects.get(name="team").secret == secret
    assert "secret" not in api.get(f"{BASE}team/").json()  # shown once
    routed = api.put(f"{BASE}team/routes/", {"events": ["tier.usage", "workload.degraded"]}, format="json")
    assert routed.json()["events"] == ["tier.usage", "workload.degraded"]
    assert api.patch(f"{BASE}team/", {"format": "slack", "enabled": False}, format="json").json()["format"] == "slack"
    assert [h["name"] for h in api.get(BASE).json()] == ["team"]
    assert api.get(f"{BASE}team/deliveries/").json() == []
    assert api.delete(f"{BASE}team/").status_code == 204
    actions = list(AuditEvent.objects.filter(target_kind="Webhook").values_list("action", flat=True))
    assert sorted(actions) == ["webhook.create", "webhook.delete", "webhook.update", "webhook.update"]


@pytest.mark.parametrize("who", ["viewer", "developer"])
def test_viewers_and_developers_may_not_change_hooks(as_user, request, project, owner, private_allowed, who):
    as_user(owner).post(BASE, {"name": "team", "url": "http://127.0.0.1:9/x"}, format="json")
    api = as_user(request.getfixturevalue(who))
    assert api.get(BASE).status_code == 403
    assert api.post(BASE, {"name": "mine", "url": "http://127.0.0.1:9/x"}, format="json").status_code == 403
    assert api.patch(f"{BASE}team/", {"enabled": False}, format="json").status_code == 403
    assert api.put(f"{BASE}team/routes/", {"events": []}, format="json").status_code == 403
    assert api.post(f"{BASE}team/test/").status_code == 403
    assert api.delete(f"{BASE}team/").status_code == 403
    assert Webhook.objects.get(name="team").enabled and Webhook.objects.count() == 1


def test_another_tenants_hooks_are_404(as_user, owner, other_user, project, other_project, private_allowed):
    as_user(owner).post(BASE, {"name": "team", "url": "http://127.0.0.1:9/x"}, format="json")
    api = as_user(other_user)
    assert api.get(BASE).status_code == 404
    assert api.get(f"{BASE}team/deliveries/").status_code == 404
    assert api.delete(f"{BASE}team/").status_code == 404
    assert Webhook.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Bad Name", "url": "http://127.0.0.1:9/"}, "name"),
        ({"name": "a", "url": "ftp://example.com/"}, "url"),
        ({"name": "a", "url": "http://127.0.0.1:9/", "events": ["no.such"]}, "events"),
        ({"name": "a", "url": "http://127.0.0.1:9/", "format": "xml"}, "format"),
        ({"name": "a", "url": "http://127.0.0.1:9/", "colour": "red"}, "colour"),
    ],
)
def test_bad_input_is_refused_naming_the_field(as_user, owner, project, private_allowed, body, field):
    answer = as_user(owner).post(BASE, body, format="json")
    assert answer.status_code == 400 and field in str(answer.json()), answer.json()
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/x", "http://10.1.2.3/x", "http://169.254.169.254/latest", "http://[::1]/x",
            "http://localhost/x", "http://192.168.0.10/x"],
)  # fmt: skip
def test_production_refuses_private_loopback_and_link_local_urls_naming_the_field(as_user, owner, project, url):
    answer = as_user(owner).post(BASE, {"name": "a", "url": url}, format="json")
    assert answer.status_code == 400, answer.json()
    errors = answer.json()
    assert "url" in str(errors) and "private, loopback or link-local" in str(errors)
    assert not Webhook.objects.exists()


def test_the_delivery_log_refuses_a_bad_limit(as_user, owner, project, private_allowed):
    api = as_user(owner)
    api.post(BASE, {"name": "team", "url": "http://127.0.0.1:9/x"}, format="json")
    answer = api.get(f"{BASE}team/deliveries/?limit=lots")
    assert answer.status_code == 400 and "limit" in str(answer.json())
