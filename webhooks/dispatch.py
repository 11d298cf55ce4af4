"""From a project's event to its webhooks: a ``Delivery`` per enabled hook routed to the event, once per (hook, key,
occurrence) however often the event is reported, then the delivery task (``webhooks.tasks``) after commit."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from base.queueing import enqueue
from webhooks.models import Delivery, Format, Webhook
from webhooks.payloads import generic_body, slack_body


def queue_delivery(
    hook: Webhook, *, event: str, text: str, link: str, severity: str, key: str, occurrence: str
) -> Delivery:
    """The hook's delivery of this occurrence (made now, or the one made before), sent after commit."""
    found = Delivery.objects.filter(webhook=hook, key=key, occurrence=occurrence).first()
    if found is not None:
        return found
    shape = slack_body if hook.format == Format.SLACK else generic_body
    body = shape(event=event, project=hook.project.name, text=text, link=link, severity=severity, key=key,
                 occurrence=occurrence)  # fmt: skip
    try:
        with transaction.atomic():
            delivery = Delivery.objects.create(webhook=hook, event=event, key=key, occurrence=occurrence, body=body)
    except IntegrityError:  # another process made it first
        return Delivery.objects.get(webhook=hook, key=key, occurrence=occurrence)
    from webhooks.tasks import deliver

    transaction.on_commit(lambda: enqueue(deliver, delivery.pk))
    return delivery


def on_project_event(sender: Any, *, event: Any, project_id: int, text: str, link: str, severity: str, key: str,
                     occurrence: str, **_: Any) -> None:  # fmt: skip
    """``notifications.signals.project_event``'s receiver."""
    hooks = Webhook.objects.filter(project_id=project_id, enabled=True).select_related("project")
    for hook in hooks:
        if str(event) in hook.events:
            queue_delivery(hook, event=str(event), text=text, link=link, severity=str(severity), key=key,
                           occurrence=occurrence)  # fmt: skip
