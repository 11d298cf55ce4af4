"""Celery beat's scheduler with a heartbeat: ``<schedule file>.heartbeat`` is touched on every tick, so a probe can
tell a beat that still schedules from one whose loop stopped (the chart's beat probes read the file's age). Beat
ticks at least every ``beat_max_interval`` (``CELERY_BEAT_MAX_INTERVAL``, 60 s) and at every task due."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler


class HeartbeatScheduler(PersistentScheduler):
    @property
    def heartbeat_path(self) -> Path:
        return Path(f"{self.schedule_filename}.heartbeat")

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval: float = super().tick(*args, **kwargs)
        self.heartbeat_path.touch()
        return interval
