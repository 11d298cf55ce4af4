"""Add, change, route, test and remove a project's webhooks (owners and platform admins only; audited). The secret
is made here and shown once, in the answer to the create."""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from base import audit
from base.errors import Conflict, Invalid, NotFound
from notifications.models import Event
from projects.access import require_active, require_role
from projects.models import Project
from webhooks.dispatch import queue_delivery
from webhooks.models import Format, Webhook
from webhooks.signing import new_secret
from webhooks.urlcheck import check_url

NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
MAX_WEBHOOKS_PER_PROJECT = 20
FIELDS = ("url", "format", "enabled", "events")


def list_webhooks(project: Project, *, actor: Any) -> list[Webhook]:
    require_role(project, actor)
    return list(project.webhooks.all())


def find_webhook(project: Project, name: str, *, actor: Any) -> Webhook:
    require_role(project, actor)
    hook = project.webhooks.filter(name=name).first()
    if hook is None:
        raise NotFound(f"{project.name} has no webhook {name!r}.")
    return hook


def check_events(events: Any) -> list[str]:
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise Invalid.on("events", "A list of event names.")
    unknown = [e for e in events if e not in Event.values]
    if unknown:
        raise Invalid.on("events", f"Unknown event {unknown[0]!r}; one of: {', '.join(Event.values)}.")
    return sorted(set(events))


def _cleaned(data: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise Invalid.on_fields({name: "Unknown field." for name in unknown})
    cleaned: dict[str, Any] = {}
    if "url" in data:
        cleaned["url"] = check_url(data["url"] if isinstance(data["url"], str) else "")
    if "format" in data:
        if data["format"] not in Format.values:
            raise Invalid.on("format", f"One of: {', '.join(Format.values)}.")
        cleaned["format"] = data["format"]
    if "enabled" in data:
        if not isinstance(data["enabled"], bool):
            raise Invalid.on("enabled", "true or false.")
        cleaned["enabled"] = data["enabled"]
    if "events" in data:
        cleaned["events"] = check_events(data["events"])
    return cleaned


def _state(hook: Webhook) -> dict[str, Any]:
    return {"url": hook.url, "format": hook.format, "enabled": hook.enabled, "events": hook.events}


@transaction.atomic
def create_webhook(project: Project, *, name: str, data: dict[str, Any], actor: Any) -> tuple[Webhook, str]:
    """The new hook and its secret (returned this once; the generic body's signature is keyed by it)."""
    require_role(project, actor)
    require_active(project)
    name = (name or "").strip() if isinstance(name, str) else ""
    if not NAME.match(name):
        raise Invalid.on("name", "1 to 40 lowercase letters, digits and '-', starting with a letter.")
    if "url" not in data:
        raise Invalid.on("url", "Required.")
    cleaned = _cleaned(data)
    if project.webhooks.filter(name=name).exists():
        raise Conflict.on("name", f"{project.name} already has a webhook named {name!r}.")
    if project.webhooks.count() >= MAX_WEBHOOKS_PER_PROJECT:
        raise Conflict.on("name", f"{project.name} has {MAX_WEBHOOKS_PER_PROJECT} webhooks; remove one first.")
    secret = new_secret()
    hook = Webhook.objects.create(project=project, name=name, secret=secret, created_by=actor.get_username(), **cleaned)
    audit.record("webhook.create", actor=actor, target_kind="Webhook", target_name=name, project=project.name,
                 after=_state(hook))  # fmt: skip
    return hook, secret


@transaction.atomic
def update_webhook(project: Project, name: str, *, data: dict[str, Any], actor: Any) -> Webhook:
    """Change some of url, format, enabled, events (the routes). Enabling again clears the failure count."""
    hook = find_webhook(project, name, actor=actor)
    cleaned = _cleaned(data)
    hook = Webhook.objects.select_for_update().get(pk=hook.pk)
    before = _state(hook)
    for field, value in cleaned.items():
        setattr(hook, field, value)
    if cleaned.get("enabled") and not before["enabled"]:
        hook.failures, hook.disabled_reason = 0, ""
    hook.save()
    if _state(hook) != before:
        audit.record("webhook.update", actor=actor, target_kind="Webhook", target_name=name, project=project.name,
                     before=before, after=_state(hook))  # fmt: skip
    return hook


def set_routes(project: Project, name: str, *, events: Any, actor: Any) -> Webhook:
    """Which events go to this hook (the whole list)."""
    return update_webhook(project, name, data={"events": events}, actor=actor)


@transaction.atomic
def delete_webhook(project: Project, name: str, *, actor: Any) -> None:
    hook = find_webhook(project, name, actor=actor)
    before = _state(hook)
    hook.delete()
    audit.record("webhook.delete", actor=actor, target_kind="Webhook", target_name=name, project=project.name,
                 before=before)  # fmt: skip


@transaction.atomic
def send_test(project: Project, name: str, *, actor: Any) -> int:
    """Queue a test event to the hook (enabled or not); the delivery's id (its log shows the attempts)."""
    hook = find_webhook(project, name, actor=actor)
    audit.record("webhook.test", actor=actor, target_kind="Webhook", target_name=name, project=project.name)
    delivery = queue_delivery(
        hook,
        event="webhook.test",
        text=f"A test from PinConsole to the webhook {name} of {project.name}, sent by {actor.get_username()}.",
        link=f"/projects/{project.name}/webhooks/",
        severity="info",
        key=f"test/{hook.pk}",
        occurrence=str(hook.deliveries.filter(event="webhook.test").count() + 1),
    )
    return delivery.pk
