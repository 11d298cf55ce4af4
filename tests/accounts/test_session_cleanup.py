"""Expired sessions and wizard drafts are removed by the hourly task beat runs; live ones stay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.tasks import clear_expired_sessions

pytestmark = pytest.mark.django_db


def test_expired_session_rows_are_removed_and_live_ones_kept():
    now = timezone.now()
    Session.objects.create(session_key="expired-signin-0001", session_data="", expire_date=now - timedelta(days=1))
    Session.objects.create(session_key="wizardexpired000001", session_data="", expire_date=now - timedelta(seconds=1))
    Session.objects.create(session_key="live-signin-000001", session_data="", expire_date=now + timedelta(days=1))

    assert clear_expired_sessions() == 2

    assert list(Session.objects.values_list("session_key", flat=True)) == ["live-signin-000001"]


def test_beat_runs_it_every_hour():
    entry = settings.CELERY_BEAT_SCHEDULE["clear-expired-sessions"]
    assert (entry["task"], entry["schedule"]) == ("accounts.clear_expired_sessions", 3600.0)
