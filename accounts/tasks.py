"""Housekeeping of sign-in state."""

from __future__ import annotations

from celery import shared_task
from django.contrib.sessions.models import Session
from django.utils import timezone


@shared_task(name="accounts.clear_expired_sessions")
def clear_expired_sessions() -> int:
    """Remove expired rows of the session table (sign-ins, and the project wizard's drafts, which are rows of their
    own there): Django never removes them by itself (``clearsessions`` is left to a cron). Returns how many."""
    removed, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    return removed
