"""A hook's delivery log, newest first, each with its attempts (one query for both)."""

from __future__ import annotations

from django.db.models import Prefetch

from webhooks.models import Attempt, Delivery, Webhook


def recent_deliveries(hook: Webhook, limit: int, *, offset: int = 0) -> list[Delivery]:
    rows = hook.deliveries.prefetch_related(Prefetch("attempts", queryset=Attempt.objects.order_by("number")))
    return list(rows[offset : offset + limit])
