"""Celery beat's hourly ``history.prune`` (``CELERY_BEAT_SCHEDULE["prune-history"]``)."""

from __future__ import annotations

from celery import shared_task

from workloads.history import services


@shared_task(name="history.prune")
def prune() -> dict[str, int]:
    return services.prune()
