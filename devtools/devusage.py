"""The dev stack's usage: its Prometheus (scraping the kwok nodes' emulated use) and the sampling loop that stands
in for Celery beat's minute task (``CELERY_BEAT_SCHEDULE["sample-usage"]``), so the usage and cost pages fill within
minutes on the local stack."""

from __future__ import annotations

import logging

from django.conf import settings

from devtools.beatloop import BeatLoop
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


class SamplingLoop(BeatLoop):
    """Runs ``usage.tasks.sample_usage`` at once, then every ``interval`` seconds until stopped. The task is
    idempotent per minute, so a run beside a real beat (or two dev loops) changes nothing twice."""

    name, first_at_once = "usage-sampling", True

    def __init__(self, interval: float | None = None) -> None:
        super().__init__(interval if interval is not None else beat_interval())

    def tick(self) -> None:
        from usage.tasks import sample_usage

        result = sample_usage()  # a missed minute is a gap (usage.sampling)
        if result["skipped"]:
            log.info("usage sample skipped %s", result["skipped"])
