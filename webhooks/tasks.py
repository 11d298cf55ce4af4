"""POST a delivery to its hook, with Celery's retries and exponential backoff (``WEBHOOK_MAX_ATTEMPTS``,
``WEBHOOK_RETRY_BACKOFF_SECONDS``). Each try is an ``Attempt`` row; a hook that fails ``WEBHOOK_DISABLE_AFTER`` tries
in a row is disabled and its project's owners told. Idempotent: a delivery already delivered or failed is not sent
again, and an attempt number is written once."""

from __future__ import annotations

import logging
import time

import httpx
from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from base.errors import Invalid
from notifications.models import Event, Severity
from notifications.services import notify
from projects.audience import members_of
from webhooks.models import Attempt, Delivery, DeliveryState, Format, Webhook
from webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signature
from webhooks.urlcheck import check_url

log = logging.getLogger(__name__)


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx: Celery retries with backoff."""


def _headers(delivery: Delivery, hook: Webhook) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "User-Agent": "PinConsole-Webhooks/1"}
    if hook.format == Format.GENERIC:
        now = int(time.time())
        headers |= {
            TIMESTAMP_HEADER: str(now),
            SIGNATURE_HEADER: signature(hook.secret, now, delivery.body.encode()),
            EVENT_HEADER: delivery.event,
            DELIVERY_HEADER: str(delivery.pk),
        }
    return headers


def _post(delivery: Delivery, hook: Webhook) -> tuple[int | None, str]:
    try:
        check_url(hook.url)
    except Invalid as exc:
        return None, str(exc.fields[0].message if exc.fields else exc)[:500]
    try:
        answer = httpx.post(hook.url, content=delivery.body.encode(), headers=_headers(delivery, hook),
                            timeout=settings.WEBHOOK_TIMEOUT_SECONDS, follow_redirects=False)  # fmt: skip
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]
    ok = 200 <= answer.status_code < 300
    return answer.status_code, "" if ok else f"HTTP {answer.status_code}: {answer.text[:200]}"


def _disable(hook: Webhook) -> None:
    reason = f"Disabled after {hook.failures} failed attempts in a row."
    if not Webhook.objects.filter(pk=hook.pk, enabled=True).update(enabled=False, disabled_reason=reason):
        return  # disabled already: the owners were told then
    project = hook.project
    notify(
        Event.WEBHOOK_DISABLED,
        recipients=members_of(project, ("owner",)),
        project=project,
        text=f"The webhook {hook.name} of {project.name} was disabled: {reason} Fix its receiver, then enable it.",
        link=reverse("webhooks:page", args=[project.name]),
        key=f"webhook/{hook.pk}/disabled",
        occurrence=timezone.now().isoformat(),
        severity=Severity.ERROR,
    )


def _record(delivery: Delivery, number: int, status: int | None, error: str, started: float) -> bool:
    """Write the attempt and its consequences; whether it succeeded."""
    ok = status is not None and 200 <= status < 300
    with transaction.atomic():
        hook = Webhook.objects.select_for_update().select_related("project").get(pk=delivery.webhook_id)
        Attempt.objects.create(delivery=delivery, number=number, status_code=status, error=error,
                               duration_ms=int((time.monotonic() - started) * 1000))  # fmt: skip
        if ok:
            Webhook.objects.filter(pk=hook.pk).update(failures=0)
            Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.DELIVERED, finished_at=timezone.now())
        else:
            Webhook.objects.filter(pk=hook.pk).update(failures=F("failures") + 1)
            hook.refresh_from_db(fields=["failures"])
            if hook.failures >= settings.WEBHOOK_DISABLE_AFTER:
                _disable(hook)
    return ok


def _give_up(delivery_id: int) -> None:
    Delivery.objects.filter(pk=delivery_id, state=DeliveryState.PENDING).update(
        state=DeliveryState.FAILED, finished_at=timezone.now()
    )


@shared_task(
    name="webhooks.deliver",
    autoretry_for=(DeliveryFailed,),
    retry_backoff=settings.WEBHOOK_RETRY_BACKOFF_SECONDS,
    retry_backoff_max=settings.WEBHOOK_RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=False,
    max_retries=None,  # the attempts written decide (``WEBHOOK_MAX_ATTEMPTS``), a redelivered message included
)
def deliver(delivery_id: int) -> str:
    """One attempt; raises ``DeliveryFailed`` for Celery to retry while attempts remain."""
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.state != DeliveryState.PENDING:
        return "done"
    hook = delivery.webhook
    if not hook.enabled and delivery.event != "webhook.test":
        _give_up(delivery_id)
        return "disabled"
    number = delivery.attempts.count() + 1
    started = time.monotonic()
    status, error = _post(delivery, hook)
    if _record(delivery, number, status, error, started):
        return "delivered"
    hook.refresh_from_db(fields=["enabled"])
    if number >= settings.WEBHOOK_MAX_ATTEMPTS or not hook.enabled:
        _give_up(delivery_id)
        return "failed"
    raise DeliveryFailed(error)
