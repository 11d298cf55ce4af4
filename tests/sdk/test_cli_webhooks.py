"""``pincompute webhooks`` against the real portal (``live_server``) with an owner's API token: add (the secret
printed once), list, route, update, test, the delivery log, remove; a viewer is refused (permission_denied)."""

from __future__ import annotations

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from tests.support.webhooks import Receiver
from webhooks.models import Webhook


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.stop()


@pytest.mark.django_db(transaction=True)
def test_an_owner_manages_a_webhook_from_the_cli(live_server, project, owner, viewer, receiver, settings, monkeypatch):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=owner, name="cli", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, err = cli(
        "webhooks", "add", "team", "--target", receiver.url, "--events", "workload.failed", "-p", "ads"
    )
    assert code == 0, err
    assert out.splitlines()[1] == Webhook.objects.get(name="team").secret  # printed once, here
    code, out, _ = cli("webhooks", "routes", "team", "--events", "tier.usage,workload.degraded", "-p", "ads")
    assert code == 0 and out == "webhook/team gets: tier.usage, workload.degraded\n"
    assert cli("webhooks", "update", "team", "--format", "slack", "-p", "ads")[0] == 0
    code, out, _ = cli("webhooks", "list", "-p", "ads")
    assert code == 0 and out.splitlines()[1].split() == [
        "team",
        "slack",
        "enabled",
        "0",
        "tier.usage,workload.degraded",
    ]
    code, out, _ = cli("webhooks", "test", "team", "-p", "ads")
    assert code == 0 and "a test event was queued" in out
    code, out, _ = cli("webhooks", "deliveries", "team", "-p", "ads")
    assert code == 0 and "webhook.test" in out
    code, _, err = cli("webhooks", "add", "bad", "--target", "ftp://x", "-p", "ads")
    assert code != 0 and "url" in err

    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=viewer, name="cli", days=1)[1])
    code, _, err = cli("webhooks", "remove", "team", "-p", "ads")
    assert code != 0 and "permission_denied" in err
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=owner, name="cli2", days=1)[1])
    assert cli("webhooks", "remove", "team", "-p", "ads") == (0, "webhook/team removed\n", "")
    assert not Webhook.objects.exists()
