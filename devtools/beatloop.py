"""The dev stack's stand-in for Celery beat: the embedded default runs Celery eagerly and has no beat, so a thread
runs the periodic work every ``interval`` seconds. Each pass gets fresh database connections, and a pass that fails
on a service or database error is logged and the next one runs (the tasks are idempotent)."""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from typing import Self


class BeatLoop(ABC):
    name = "beat"
    first_at_once = False  # True: a pass at start, then every interval; False: the first after one interval

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self.log = logging.getLogger(f"devtools.{self.name}")

    @abstractmethod
    def tick(self) -> None:
        """One pass."""

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self, timeout: float = 30) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        from django.db import DatabaseError, close_old_connections

        from base.errors import ServiceError

        if not self.first_at_once and self._stop.wait(self.interval):
            return
        while not self._stop.is_set():
            close_old_connections()
            try:
                self.tick()
                self.runs += 1
            except (ServiceError, DatabaseError) as exc:
                self.log.warning("%s pass failed: %s", self.name, exc)
            finally:
                close_old_connections()
            self._stop.wait(self.interval)
