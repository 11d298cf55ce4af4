"""The dev stack's usage: its Prometheus, scraping the kwok nodes' emulated use. (Sampling into the cost pages is
beat's ``sample-usage`` entry, which the dev stack runs in-process: ``devtools.devbeat``.)"""

from __future__ import annotations

from django.conf import settings

from devtools.localcp import LocalControlPlane
from devtools.localcp.prometheus import Prometheus


def start_metrics(url: str, cp: LocalControlPlane | None = None) -> Prometheus:
    """The dev stack's Prometheus on ``url``'s port, its data in ``var/prometheus`` (kept across runs), scraping
    every ``PROMETHEUS_SCRAPE_SECONDS``; ``cp``'s nodes are its targets (``scrape`` again when they change)."""
    port = int(url.rsplit(":", 1)[1])
    metrics = Prometheus(settings.VAR_DIR / "prometheus", port, scrape_seconds=settings.PROMETHEUS_SCRAPE_SECONDS)
    metrics.start()
    if cp is not None:
        metrics.scrape(cp.clusters)
    return metrics
