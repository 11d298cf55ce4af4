"""Delivered by a real Celery worker over Redis: a receiver that answers 500 twice then 200 gets the body three times
(the log shows each attempt); one that always fails disables its hook and the project's owners are told."""

from __future__ import annotations

import pytest

from devtools.waiting import wait_for
from notifications.models import Event, Notification
from notifications.services import notify
from tests.support.provisioning import start_worker, stop_worker
from webhooks.models import Delivery, DeliveryState, Webhook
from webhooks.services import create_webhook

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WORKER_ENV = {
    "WEBHOOK_ALLOW_PRIVATE": "true",
    "WEBHOOK_RETRY_BACKOFF_SECONDS": "1",
    "WEBHOOK_MAX_ATTEMPTS": "3",
    "WEBHOOK_DISABLE_AFTER": "3",
}


@pytest.fixture
def worker(tmp_path):
    log = tmp_path / "worker.log"
    proc = start_worker(log, **WORKER_ENV)
    yield log
    stop_worker(proc)


def failed(project, occurrence: str) -> None:
    notify(Event.WORKLOAD_FAILED, recipients=[], project=project, text="PinApp web in ads failed.",
           key="workload/u1/failed", occurrence=occurrence)  # fmt: skip


def test_500_twice_then_200_is_delivered_on_the_third_attempt(project, owner, receiver, private_allowed, worker):
    receiver.answers = [500, 500]
    hook, _ = create_webhook(project, name="team", data={"url": receiver.url, "events": ["workload.failed"]},
                             actor=owner)  # fmt: skip
    failed(project, "t1")  # no transaction around it: on_commit runs at once, the worker takes it
    delivery = wait_for(
        lambda: Delivery.objects.filter(webhook=hook, state=DeliveryState.DELIVERED).first(),
        timeout=120,
        what=f"the delivery to succeed (worker log: {worker})",
    )
    assert receiver.count() == 3
    assert len({r.body for r in receiver.received}) == 1  # the same body each time
    assert [(a.number, a.status_code) for a in delivery.attempts.all()] == [(1, 500), (2, 500), (3, 200)]
    assert "HTTP 500" in delivery.attempts.first().error
    hook.refresh_from_db()
    assert hook.enabled and hook.failures == 0


def test_a_receiver_that_always_fails_disables_the_hook_and_tells_the_owners(
    project, owner, other_project, receiver, private_allowed, worker
):
    receiver.default = 503
    hook, _ = create_webhook(project, name="team", data={"url": receiver.url, "events": ["workload.failed"]},
                             actor=owner)  # fmt: skip
    failed(project, "t1")
    wait_for(
        lambda: not Webhook.objects.get(pk=hook.pk).enabled,
        timeout=120,
        what=f"the hook to be disabled (worker log: {worker})",
    )
    assert receiver.count() == 3
    # stored when the disabling transaction has committed (notify's on_commit), a moment after the hook reads disabled
    wait_for(lambda: Notification.objects.filter(event=Event.WEBHOOK_DISABLED).exists(), timeout=30, what="the notice")
    told = Notification.objects.get(event=Event.WEBHOOK_DISABLED)  # one: the owner's, not the developer's or dev2's
    assert told.recipient == owner and "team" in told.text and told.link == "/projects/ads/webhooks/"
    delivery = wait_for(lambda: Delivery.objects.filter(webhook=hook, state=DeliveryState.FAILED).first(), timeout=60)
    assert [a.status_code for a in delivery.attempts.all()] == [503, 503, 503]

    failed(project, "t2")  # a disabled hook is sent nothing
    assert Delivery.objects.filter(webhook=hook).count() == 1
