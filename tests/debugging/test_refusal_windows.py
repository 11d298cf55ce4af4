"""The refusal audit's windows, interleaved as concurrent sockets interleave them (debugging.refusals)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from base.models import AuditEvent
from debugging import refusals

pytestmark = pytest.mark.django_db


def scope_of(user) -> dict:
    return {"user": user, "path": "/ws/exec/member-x/proj-ml/train-1/app/", "client": ("127.0.0.1", 1)}


def test_refusals_counted_before_the_window_opener_reads_its_count_are_not_in_its_row(user, settings):
    settings.DEBUG_REFUSAL_AUDIT_SECONDS = 60
    cache.clear()
    key = f"debug-refused:user:{user.pk}:4404"
    # the opener's first step (as record_refusal takes it), then three sockets refused on other threads at once,
    # before the opener reads the count its row reports
    opened = refusals._open_or_count(key, 60)
    for _ in range(3):
        assert refusals._open_or_count(key, 60) is None

    assert cache.get(f"{key}:count:{opened}") == 3  # counted in the window they were refused in
    assert cache.get(f"{key}:last") is None  # so the opener's row (no previous window) reports none suppressed


def test_the_first_refusal_of_a_window_reports_none_suppressed(user, settings):
    settings.DEBUG_REFUSAL_AUDIT_SECONDS = 60
    cache.clear()

    assert refusals.record_refusal(scope_of(user), 4404, "No such pod.")
    for _ in range(4):
        assert refusals.record_refusal(scope_of(user), 4404, "No such pod.") is False

    (row,) = AuditEvent.objects.filter(action=refusals.ACTION)
    assert row.after["suppressed"] == 0
