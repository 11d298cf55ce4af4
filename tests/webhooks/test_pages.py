"""The project's webhooks page: an owner adds a hook (the secret shown once), edits its routes, sends a test and sees
the delivery log; viewers and developers are refused, another tenant gets 404; a private URL is refused beside the
field in production."""

from __future__ import annotations

import pytest

from webhooks.models import Delivery, Webhook
from webhooks.services import create_webhook
from webhooks.tasks import deliver

pytestmark = pytest.mark.django_db
PAGE = "/projects/ads/webhooks/"


def test_an_owner_adds_routes_tests_and_reads_the_log(client, owner, project, receiver, private_allowed):
    client.force_login(owner)
    added = client.post(PAGE, {"name": "team", "url": receiver.url, "format": "generic", "enabled": "on",
                               "events": ["workload.failed"]})  # fmt: skip
    assert added.status_code == 200
    secret = Webhook.objects.get(name="team").secret
    assert secret in added.content.decode()
    assert secret not in client.get(PAGE).content.decode()  # once

    saved = client.post(f"{PAGE}team/", {"url": receiver.url, "format": "slack", "enabled": "on",
                                         "events": ["tier.usage", "workload.degraded"]})  # fmt: skip
    assert saved.status_code == 302
    assert Webhook.objects.get(name="team").events == ["tier.usage", "workload.degraded"]

    assert client.post(f"{PAGE}team/test/").status_code == 302
    deliver.apply(args=[Delivery.objects.get().pk])  # what the worker does (tests/webhooks/test_worker.py)
    page = client.get(f"{PAGE}team/").content.decode()
    assert receiver.count() == 1 and 'data-attempt="1"' in page and "webhook.test" in page and "delivered" in page

    assert client.post(f"{PAGE}team/delete/").status_code == 302
    assert not Webhook.objects.exists()


def test_production_refuses_a_private_url_beside_the_field(client, owner, project):
    client.force_login(owner)
    answer = client.post(PAGE, {"name": "team", "url": "http://10.0.0.5/x", "format": "generic"})
    assert answer.status_code == 400 and "private, loopback or link-local" in answer.content.decode()
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("who", ["viewer", "developer"])
def test_viewers_and_developers_are_refused(client, request, owner, project, private_allowed, who):
    create_webhook(project, name="team", data={"url": "http://127.0.0.1:9/"}, actor=owner)
    client.force_login(request.getfixturevalue(who))
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, {"name": "x", "url": "http://127.0.0.1:9/", "format": "generic"}).status_code == 403
    assert client.post(f"{PAGE}team/", {"url": "http://127.0.0.1:9/", "format": "slack"}).status_code == 403
    assert client.post(f"{PAGE}team/delete/").status_code == 403
    assert Webhook.objects.get().format == "generic"


def test_another_tenant_gets_404(client, other_user, owner, project, other_project, private_allowed):
    create_webhook(project, name="team", data={"url": "http://127.0.0.1:9/"}, actor=owner)
    client.force_login(other_user)
    assert client.get(PAGE).status_code == 404
    assert client.get(f"{PAGE}team/").status_code == 404
    assert client.post(f"{PAGE}team/test/").status_code == 404
