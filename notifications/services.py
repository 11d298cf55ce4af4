"""Make notifications and change what a user reads or receives.

The emitter other apps call, after the decision is written and inside its transaction::

    notify(Event.QUOTA_DECIDED, recipients=[user], project=project, text="One sentence.", link="/path/",
           key="quota-request/12", occurrence="applied", severity=Severity.INFO)

- ``recipients``: users (or their ids) the caller resolved from the project's membership or roles
  (``projects.audience``); nobody else is told, so a notification never reaches another project's users.
- ``key`` names what it is about, ``occurrence`` which instance: the same (key, occurrence) twice changes nothing
  (one notification per workload per state change); a new occurrence of a key folds into its row with a count.
- An event made with a ``project`` also reaches the project's webhooks routed to it (``notifications.signals``).
- Nothing happens until the transaction commits (``transaction.on_commit``); a rolled-back decision tells nobody.
- Each recipient's ``Preference`` decides whether it is stored as unread (in the app), mailed at once, or kept for
  the daily digest; a muted event is not made for them at all.

Where each event is made: ``projects.grants``/``projects.quota`` (quota requested, decided), ``projects.tasks``
(provisioning failed), ``workloads.notices`` (a workload preempted, from the host's watch cache),
``projects.access_requests.notices`` (access requested, decided, about to end, ended), ``debugging.notices`` (a shell
opened in a project whose policy asks for it).
The writes a user makes (mark read, preferences) are below; preference changes are audited.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from base import audit
from base.errors import Invalid, NotFound
from base.queueing import enqueue
from notifications.live import announce_unread
from notifications.models import Event, Notification, Preference, Severity
from notifications.signals import send_project_event
from notifications.tasks import send_notification_emails

log = logging.getLogger(__name__)

PREFERENCE_FIELDS = ("muted", "in_app", "email", "digest")


def notify(
    event: Event | str,
    *,
    recipients: Iterable[Any],
    text: str,
    link: str = "",
    key: str,
    occurrence: str = "",
    project: Any = None,
    severity: Severity | str = Severity.INFO,
) -> None:
    """Tell ``recipients`` once ``event`` happened, when the current transaction commits (see the module)."""
    event = Event(event)
    ids = sorted({r if isinstance(r, int) else r.pk for r in recipients})
    project_id = project if project is None or isinstance(project, int) else project.pk
    fields = {"text": text[:500], "link": link[:500], "severity": Severity(severity), "project_id": project_id}

    def deliver() -> None:
        told = _store(event, ids, key=key[:200], occurrence=occurrence[:200], fields=fields)
        if told:
            _after_store(told)
        if project_id is not None:
            send_project_event(event=event, key=key[:200], occurrence=occurrence[:200], **fields)

    transaction.on_commit(deliver)


def forget_occurrence(key: str) -> None:
    """The state ``key`` is about has ended (a tier back under its threshold): its next occurrence is told again even
    when it equals the last one (it folds into the row with a count)."""
    Notification.objects.filter(key=key[:200]).exclude(occurrence="").update(occurrence="")


def _store(event: Event, ids: list[int], *, key: str, occurrence: str, fields: dict[str, Any]) -> list[int]:
    """Write or fold one row per recipient who wants ``event``; the ids of the rows that changed."""
    prefs = {p.user_id: p for p in Preference.objects.filter(user_id__in=ids)}
    changed: list[int] = []
    now = timezone.now()
    with transaction.atomic():
        for user_id in ids:
            pref = prefs.get(user_id)
            if pref is not None and event.value in pref.muted:
                continue
            read_at = None if pref is None or pref.in_app else now  # kept for the history and the mail only
            row = Notification.objects.select_for_update().filter(recipient_id=user_id, key=key).first()
            if row is None:
                row = Notification.objects.create(
                    recipient_id=user_id, event=event, key=key, occurrence=occurrence, read_at=read_at, **fields
                )
            elif row.occurrence == occurrence:
                continue
            else:
                Notification.objects.filter(pk=row.pk).update(
                    count=F("count") + 1,
                    occurrence=occurrence,
                    read_at=read_at,
                    emailed_at=None,
                    updated_at=now,
                    event=event,
                    **fields,
                )
            changed.append(row.pk)
    return changed


def _after_store(notification_ids: list[int]) -> None:
    enqueue(send_notification_emails, notification_ids)
    for user_id in set(Notification.objects.filter(pk__in=notification_ids).values_list("recipient_id", flat=True)):
        announce_unread(user_id)


def unread_count(user: Any) -> int:
    return Notification.objects.filter(recipient=user).unread().count()


def mark_read(notification_id: int, *, user: Any) -> Notification:
    """Mark one of ``user``'s notifications read (another user's is a 404)."""
    row = Notification.objects.filter(pk=notification_id, recipient=user).first()
    if row is None:
        raise NotFound("No such notification.")
    if row.read_at is None:
        row.read_at = timezone.now()
        row.save(update_fields=["read_at"])
        transaction.on_commit(lambda: announce_unread(user.pk))
    return row


def mark_all_read(*, user: Any) -> int:
    """Mark every unread notification of ``user`` read; how many were."""
    count = Notification.objects.filter(recipient=user).unread().update(read_at=timezone.now())
    if count:
        transaction.on_commit(lambda: announce_unread(user.pk))
    return count


def preferences_of(user: Any) -> Preference:
    """The user's preferences (the defaults, unsaved, when they never changed them)."""
    return Preference.objects.filter(user=user).first() or Preference(user=user)


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(data) - set(PREFERENCE_FIELDS))
    if unknown:
        raise Invalid.on_fields({name: "Unknown field." for name in unknown})
    errors: dict[str, str] = {}
    cleaned: dict[str, Any] = {}
    if "muted" in data:
        muted = data["muted"]
        if not isinstance(muted, list) or not all(isinstance(m, str) for m in muted):
            errors["muted"] = "A list of event names."
        else:
            names = set(Event.values)
            bad = [m for m in muted if m not in names]
            if bad:
                errors["muted"] = f"Unknown event {bad[0]!r}; one of: {', '.join(Event.values)}."
            cleaned["muted"] = sorted(set(muted))
    for name in ("in_app", "email", "digest"):
        if name in data:
            if not isinstance(data[name], bool):
                errors[name] = "true or false."
            cleaned[name] = data[name]
    if errors:
        raise Invalid.on_fields(errors)
    return cleaned


def set_preferences(data: dict[str, Any], *, user: Any) -> Preference:
    """Change some of ``user``'s preferences (the fields given); unknown fields or event names are refused."""
    cleaned = _clean(data)
    with transaction.atomic():
        pref, _ = Preference.objects.select_for_update().get_or_create(user=user)
        before = {name: getattr(pref, name) for name in PREFERENCE_FIELDS}
        for name, value in cleaned.items():
            setattr(pref, name, value)
        pref.save()
        after = {name: getattr(pref, name) for name in PREFERENCE_FIELDS}
        if after != before:
            audit.record(
                "notifications.preferences",
                actor=user,
                target_kind="NotificationPreference",
                target_name=user.get_username(),
                before=before,
                after=after,
            )
    return pref
