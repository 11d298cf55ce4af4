"""The dev stack's Celery beat: every entry of ``CELERY_BEAT_SCHEDULE``, run in-process on the schedule beat keeps.

The embedded default runs Celery eagerly (no broker, no beat process), so periodic work would never run. One thread
walks the same schedule with Celery's own schedule objects (``celery.schedules.maybe_schedule``: numbers, timedeltas
and crontabs alike) and calls each due task in turn, as a worker would. An entry added to the settings runs in dev
with no change here. A task that fails is logged and the others go on, as on a worker.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

from celery.schedules import BaseSchedule, maybe_schedule

log = logging.getLogger("devtools.beat")


@dataclass
class Entry:
    name: str
    task: str
    schedule: BaseSchedule
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    last_run_at: datetime | None = None

    def due(self, now: datetime) -> bool:
        """Celery's rule: an entry first runs one period after start, then every period after its last run."""
        if self.last_run_at is None:
            self.last_run_at = now
        return bool(self.schedule.is_due(self.last_run_at).is_due)


class DevBeat:
    """A thread that checks the schedule every ``resolution`` seconds and runs what is due, one task at a time (the
    embedded default's SQLite takes one writer at a time; beat's own tasks are short). Each pass gets fresh database
    connections."""

    def __init__(self, schedule: Mapping[str, Mapping[str, Any]] | None = None, resolution: float = 1.0) -> None:
        from django.conf import settings

        from console.celery import app

        self.app, self.resolution = app, resolution
        app.loader.import_default_modules()  # the apps' tasks modules, as a worker imports them at start
        entries = settings.CELERY_BEAT_SCHEDULE if schedule is None else schedule
        unknown = sorted(f"{name} ({e['task']})" for name, e in entries.items() if e["task"] not in app.tasks)
        if unknown:
            raise ValueError(f"beat entries name tasks no app defines: {', '.join(unknown)}")
        self.entries = [
            Entry(
                name,
                str(entry["task"]),
                maybe_schedule(entry["schedule"], app=app),
                tuple(entry.get("args") or ()),
                dict(entry.get("kwargs") or {}),
            )
            for name, entry in entries.items()
        ]
        self.ran: Counter[str] = Counter()  # entry name -> runs (the banner and the tests read it)
        self.failed: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dev-beat", daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self, timeout: float = 30) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        from django.db import close_old_connections

        while not self._stop.is_set():
            close_old_connections()
            try:
                self.tick()
            finally:
                close_old_connections()
            self._stop.wait(self.resolution)

    def tick(self) -> None:
        for entry in self.entries:
            now = entry.schedule.now()
            if not entry.due(now):
                continue
            entry.last_run_at = now
            try:
                self.app.tasks[entry.task](*entry.args, **entry.kwargs)
                self.ran[entry.name] += 1
            except Exception:  # as a worker: log the task's failure, run the rest
                self.failed[entry.name] += 1
                log.exception("beat entry %s (%s) failed", entry.name, entry.task)

    def describe(self) -> str:
        """One line for the dev banner: how many entries and the shortest period."""
        shortest = min((e.schedule.remaining_estimate(e.schedule.now()) for e in self.entries), default=None)
        every = f", the most frequent every {shortest.total_seconds():.0f}s" if shortest is not None else ""
        return f"{len(self.entries)} beat entries run in-process{every}"
