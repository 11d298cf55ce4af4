"""A project's event reaches its routed hooks: signed (the receiver verifies it), once per occurrence, Slack-shaped
for a Slack hook; unrouted hooks and other projects' hooks get nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest

from notifications.models import Event
from notifications.services import notify
from tests.support.factories import HOST, fill, make_quota, workload_cr
from webhooks.models import Delivery, DeliveryState
from webhooks.services import create_webhook
from webhooks.tasks import deliver
from workloads.tasks import tell_changes

pytestmark = pytest.mark.django_db


def event(project, key="workload/u1/failed", occurrence="t1"):
    notify(Event.WORKLOAD_FAILED, recipients=[], project=project, text="PinApp web in ads failed.",
           link="/workloads/ads/PinApp/web/", key=key, occurrence=occurrence)  # fmt: skip


def verify(secret: str, timestamp: str, body: bytes, header: str) -> bool:
    """What a receiver does (docs/projects.md, "Verifying a webhook"), written out here, not imported."""
    expected = "v1=" + hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return abs(time.time() - int(timestamp)) <= 300 and hmac.compare_digest(expected, header)


def send_pending() -> None:
    for pk in Delivery.objects.filter(state=DeliveryState.PENDING).values_list("pk", flat=True):
        deliver.apply(args=[pk])


def test_a_routed_hook_gets_a_signed_body_once_per_occurrence(
    project, owner, other_project, other_user, receiver, private_allowed, django_capture_on_commit_callbacks
):
    hook, secret = create_webhook(project, name="team", data={"url": receiver.url, "events": ["workload.failed"]},
                                  actor=owner)  # fmt: skip
    create_webhook(project, name="unrouted", data={"url": receiver.url, "events": ["tier.usage"]}, actor=owner)
    create_webhook(other_project, name="theirs", data={"url": receiver.url, "events": ["workload.failed"]},
                   actor=other_user)  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        event(project)
        event(project)  # the same occurrence reported again
    send_pending()

    assert receiver.count() == 1
    got = receiver.received[0]
    stamp, signed = got.headers["x-pinconsole-timestamp"], got.headers["x-pinconsole-signature"]
    assert verify(secret, stamp, got.body, signed)
    assert not verify("whsec_wrong", stamp, got.body, signed)
    assert not verify(secret, stamp, got.body.replace(b"failed", b"healed"), signed)
    body = json.loads(got.body)
    assert body["event"] == "workload.failed" and body["project"] == "ads"
    assert body["url"].endswith("/workloads/ads/PinApp/web/") and body["text"] == "PinApp web in ads failed."
    assert got.headers["x-pinconsole-event"] == "workload.failed"
    delivery = Delivery.objects.get(webhook=hook)
    assert delivery.state == DeliveryState.DELIVERED
    assert [(a.number, a.status_code) for a in delivery.attempts.all()] == [(1, 200)]


def test_a_slack_hook_gets_text_and_blocks(project, owner, receiver, private_allowed,
                                           django_capture_on_commit_callbacks):  # fmt: skip
    create_webhook(project, name="slack", data={"url": receiver.url, "format": "slack", "events": ["workload.failed"]},
                   actor=owner)  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        event(project)
    send_pending()
    body = json.loads(receiver.received[0].body)
    assert body["text"].startswith("[ads] PinApp web in ads failed.")
    assert body["blocks"][0]["type"] == "section"
    assert "x-pinconsole-signature" not in receiver.received[0].headers


def test_a_url_that_became_private_is_not_posted_to_in_production(
    project, owner, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    hook, _ = create_webhook(project, name="team", data={"url": receiver.url, "events": ["workload.failed"]},
                             actor=owner)  # fmt: skip
    settings.WEBHOOK_ALLOW_PRIVATE = False  # the name now resolves to a private address (checked at each POST)
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    with django_capture_on_commit_callbacks(execute=True):
        event(project)
    send_pending()
    assert receiver.count() == 0
    attempt = Delivery.objects.get(webhook=hook).attempts.get()
    assert attempt.status_code is None and "private, loopback or link-local" in attempt.error


def test_the_beat_pass_events_reach_the_hooks_routed_to_them(
    caches, project, owner, receiver, private_allowed, django_capture_on_commit_callbacks
):
    tiers, _ = create_webhook(project, name="quota", data={"url": receiver.url, "events": ["tier.usage"]}, actor=owner)
    other, _ = create_webhook(project, name="other", data={"url": receiver.url, "events": ["workload.failed"]},
                              actor=owner)  # fmt: skip
    make_quota("ondemand", 10)
    fill(caches, HOST, workload_cr("web", cpu="2", replicas=5))
    with django_capture_on_commit_callbacks(execute=True):
        tell_changes()
    send_pending()
    assert [d.event for d in Delivery.objects.filter(webhook=tiers)] == ["tier.usage"]
    assert not Delivery.objects.filter(webhook=other).exists()
    assert "past 100%" in json.loads(receiver.received[0].body)["text"]
