"""The expiry task's pass: close the grants whose end has come, and warn about those ending soon. Idempotent and
safe to run twice or on several workers at once (rows are taken under ``SKIP LOCKED``, each once). The end holds
without it (every check compares the clock); this makes it visible: audited, RoleBindings removed, open shells and
streams closed at once, the signals sent."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from projects.access_requests.models import AccessGrant, GrantEnd
from projects.access_requests.services import end_grant
from projects.access_requests.signals import access_expiring, send_on_commit

BATCH = 200


def expire_grants() -> int:
    """Close every grant whose end has passed and that is not closed yet; how many were closed."""
    closed = 0
    while True:
        with transaction.atomic():
            due = list(
                AccessGrant.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("project", "user")
                .filter(closed_at__isnull=True, ends_at__lte=timezone.now())[:BATCH]
            )
            for grant in due:
                end_grant(grant, end=GrantEnd.EXPIRED, actor=None)
        closed += len(due)
        if len(due) < BATCH:
            return closed


def warn_expiring() -> int:
    """Send ``access_expiring`` once for each live grant ending within ``ACCESS_EXPIRY_WARNING_SECONDS``."""
    now = timezone.now()
    soon = now + timedelta(seconds=int(settings.ACCESS_EXPIRY_WARNING_SECONDS))
    with transaction.atomic():
        due = list(
            AccessGrant.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("project", "user")
            .filter(closed_at__isnull=True, warned_at__isnull=True, ends_at__gt=now, ends_at__lte=soon)[:BATCH]
        )
        for grant in due:
            grant.warned_at = now
            grant.save(update_fields=["warned_at"])
            send_on_commit(access_expiring, AccessGrant, grant=grant)
    return len(due)
