"""The dev stack's usage: its Prometheus (scraping the kwok nodes' emulated use) and the sampling loop that stands
in for Celery beat's minute task (``CELERY_BEAT_SCHEDULE["sample-usage"]``), so the usage and cost pages fill within
minutes on the local stack."""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from devtools.localcp import LocalControlPlane
from devtools.localcp.prometheus import Prometheus

log = logging.getLogger("devtools.usage")


def start_metrics(url: str, cp: LocalControlPlane | None = None) -> Prometheus:
    """The dev stack's Prometheus on ``url``'s port, its data in ``var/prometheus`` (kept across runs), scraping
    every ``PROMETHEUS_SCRAPE_SECONDS``; ``cp``'s nodes are its targets (``scrape`` again when they change)."""
    port = int(url.rsplit(":", 1)[1])
    metrics = Prometheus(settings.VAR_DIR / "prometheus", port, scrape_seconds=settings.PROMETHEUS_SCRAPE_SECONDS)
    metrics.start()
    if cp is not None:
        metrics.scrape(cp.clusters)
    return metrics


def beat_interval() -> float:
    """What beat runs the sampler at in production (the settings' schedule), so dev samples the same minutes."""
    return float(settings.CELERY_BEAT_SCHEDULE["sample-usage"]["schedule"])


class SamplingLoop:
    """Runs ``usage.tasks.sample_usage`` at once, then every ``interval`` seconds until stopped. The task is
    idempotent per minute, so a run beside a real beat (or two dev loops) changes nothing twice."""

    def __init__(self, interval: float | None = None) -> None:
        self.interval = interval if interval is not None else beat_interval()
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="usage-sampling", daemon=True)

    def start(self) -> SamplingLoop:
        self._thread.start()
        return self

    def stop(self, timeout: float = 30) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        from django.db import DatabaseError, close_old_connections

        from base.errors import ServiceError
        from usage.tasks import sample_usage

        while not self._stop.is_set():
            close_old_connections()
            try:
                result = sample_usage()
                self.runs += 1
                if result["skipped"]:
                    log.info("usage sample skipped %s", result["skipped"])
            except (ServiceError, DatabaseError) as exc:  # a missed minute is a gap (usage.sampling)
                log.warning("usage sampling failed: %s", exc)
            finally:
                close_old_connections()
            self._stop.wait(self.interval)
