"""Mail notifications: each new occurrence at once (users who want mail and no digest), or once a day as a digest.
Both claim a row before sending (``emailed_at``), so a task run twice mails nothing twice."""

from __future__ import annotations

import logging
import smtplib
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.utils import timezone

from notifications.models import Notification, Preference

log = logging.getLogger(__name__)


def _line(row: Notification) -> str:
    times = f" ({row.count} times)" if row.count > 1 else ""
    link = f"\n  {settings.PORTAL_URL.rstrip('/')}{row.link}" if row.link else ""
    return f"- {row.text}{times}{link}"


def _send(to: str, subject: str, body: str) -> bool:
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to])
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("notifications: mail to %s not sent: %s", to, exc)
        return False
    return True


def _wants_mail_now(user_id: int, prefs: dict[int, Preference]) -> bool:
    pref = prefs.get(user_id)
    return pref is None or (pref.email and not pref.digest)


@shared_task(name="notifications.send_emails")
def send_notification_emails(notification_ids: list[int]) -> int:
    """Mail each of these notifications not mailed yet to its recipient, if they want mail at once; how many sent."""
    unsent = Notification.objects.filter(pk__in=notification_ids, emailed_at__isnull=True)
    rows = list(unsent.select_related("recipient"))
    prefs = {p.user_id: p for p in Preference.objects.filter(user_id__in={r.recipient_id for r in rows})}
    sent = 0
    for row in rows:
        if not row.recipient.email or not _wants_mail_now(row.recipient_id, prefs):
            continue
        if not Notification.objects.filter(pk=row.pk, emailed_at__isnull=True).update(emailed_at=timezone.now()):
            continue  # another run has it
        if _send(row.recipient.email, f"[PinConsole] {row.get_event_display()}", _line(row)):
            sent += 1
        else:
            Notification.objects.filter(pk=row.pk).update(emailed_at=None)  # the next digest or occurrence retries
    return sent


@shared_task(name="notifications.send_digests")
def send_digests() -> int:
    """One mail per user who chose the daily digest, listing the notifications of the last day not mailed yet."""
    since = timezone.now() - timedelta(days=1)
    sent = 0
    users = get_user_model().objects.filter(pk__in=Preference.objects.filter(digest=True, email=True).values("user"))
    for user in users.exclude(email=""):
        rows = list(Notification.objects.filter(recipient=user, emailed_at__isnull=True, updated_at__gte=since))
        if not rows:
            continue
        claimed = Notification.objects.filter(pk__in=[r.pk for r in rows], emailed_at__isnull=True)
        if claimed.update(emailed_at=timezone.now()) == 0:
            continue
        body = "What happened in the last day:\n\n" + "\n".join(_line(r) for r in rows)
        if _send(user.email, f"[PinConsole] {len(rows)} notifications today", body):
            sent += 1
        else:
            Notification.objects.filter(pk__in=[r.pk for r in rows]).update(emailed_at=None)
    return sent
