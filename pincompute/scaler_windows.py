"""Scheduled scaling windows of a PinScaler, evaluated against a clock the caller supplies."""

from __future__ import annotations

from datetime import datetime, timedelta

from pincompute.cron import parse_cron, zone
from pincompute.specs import PinScaler


def active_schedule_bounds(scaler: PinScaler, now: datetime) -> tuple[int, int] | None:
    """(minReplicas, maxReplicas) of the active window, or None when no window is open.

    A window is open when its cron last fired within ``durationMinutes`` before ``now`` (evaluated in
    the window's timeZone). If several are open, the most recently opened wins; ties go to list order.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    best: tuple[datetime, int, int] | None = None
    for window in scaler.schedules:
        local_now = now.astimezone(zone(window.time_zone))
        fired = parse_cron(window.cron).last_fire(local_now, timedelta(minutes=window.duration_minutes))
        if fired is not None and (best is None or fired > best[0]):
            best = (fired, window.min_replicas, window.max_replicas)
    return (best[1], best[2]) if best else None
