"""Celery beat's minute task (``CELERY_BEAT_SCHEDULE["sample-usage"]``): sample, then roll up finished hours.
Both steps are idempotent, so a doubled or late run is harmless and a missed one is a gap (``usage.sampling``)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.utils import timezone

from usage.rollup import roll_up
from usage.sampling import sample


@shared_task(name="usage.sample")
def sample_usage() -> dict[str, Any]:
    now = timezone.now()
    sampled = sample(now)
    rolled = roll_up(now)
    return {
        "minute": sampled.minute.isoformat(),
        "clusters": sampled.clusters,
        "skipped": sampled.skipped,
        "rows": sampled.rows,
        "filled_minutes": sampled.filled_minutes,
        "use_missing": sampled.use_missing,  # why no use was read (pods then billed at their requests)
        "hours_rolled": rolled.hours,
    }
