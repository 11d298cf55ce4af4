"""Where the portal's metrics are fed from outside a service: the request middleware and Celery's signals, and the
exposition both processes serve (the web's /metrics view adds what it holds: ``console.metrics``).

Celery: ``task_prerun``/``task_postrun`` time and count every task where it runs: in a worker's pool process, or in
the web process when tasks are eager (the embedded default). A worker serves its own /metrics on
``WORKER_METRICS_ADDRESS`` (host:port), started by its main process once ready. That needs
``PROMETHEUS_MULTIPROC_DIR``: the pool's children write their values there and the main process reads them (without
it the main process would serve only its own values, none, so it refuses and logs why).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import CollectorRegistry, multiprocess, start_http_server
from prometheus_client.registry import Collector

from base import metrics

log = logging.getLogger(__name__)


class RequestMetricsMiddleware:
    """Counts and times every request by its route's name (``projects:detail``), method and status class."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match is not None else "unmatched"
        method = request.method if request.method in metrics.METHODS else "other"
        metrics.REQUESTS.labels(view, method, f"{response.status_code // 100}xx").inc()
        metrics.REQUEST_SECONDS.labels(view, method).observe(time.perf_counter() - started)
        return response


def collected(*extra: Collector) -> CollectorRegistry:
    """A registry for one scrape: every process's values (multiprocess mode) or this process's, the standard process
    and Python families of this process, plus ``extra``."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics.STANDARD)
    if metrics.MULTIPROC_DIR:
        forget_dead_processes(metrics.MULTIPROC_DIR)
        multiprocess.MultiProcessCollector(registry, metrics.MULTIPROC_DIR)
    else:
        registry.register(metrics.REGISTRY)  # a registry collects like any collector
    for collector in extra:
        registry.register(collector)
    return registry


def forget_dead_processes(directory: str) -> None:
    """Drop the live gauges (open sessions) of worker processes that died: uvicorn, unlike gunicorn, has no hook
    to say so. Their counters stay, so totals never go back. The workers share this pid namespace (one pod)."""
    for path in Path(directory).glob("gauge_live*_*.db"):
        pid = path.stem.rpartition("_")[2]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid), directory)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- Celery ---------------------------------------------------------------------------------------------------
_started: dict[str, float] = {}


def _task_prerun(task_id: str = "", **_: Any) -> None:
    _started[task_id] = time.perf_counter()


def _task_postrun(task_id: str = "", task: Any = None, state: str | None = None, **_: Any) -> None:
    started = _started.pop(task_id, None)
    name = getattr(task, "name", None) or "unknown"
    metrics.CELERY_TASKS.labels(name, (state or "unknown").lower()).inc()
    if started is not None:
        metrics.CELERY_TASK_SECONDS.labels(name).observe(time.perf_counter() - started)


def _worker_ready(**_: Any) -> None:
    address = settings.WORKER_METRICS_ADDRESS
    if not address:
        return
    if not metrics.MULTIPROC_DIR:
        log.error(
            "WORKER_METRICS_ADDRESS is set but PROMETHEUS_MULTIPROC_DIR is not: tasks run in the pool's child "
            "processes, whose values this process cannot see; not serving metrics"
        )
        return
    host, _, port = address.rpartition(":")
    start_http_server(int(port), host.strip("[]") or "0.0.0.0", registry=collected())  # noqa: S104 - ":PORT": all
    log.info("celery worker metrics on http://%s/metrics", address)


def connect_celery() -> None:
    """Connect the task and worker signals (``console.celery``: web and worker processes alike)."""
    from celery import signals

    signals.task_prerun.connect(_task_prerun, weak=False)
    signals.task_postrun.connect(_task_postrun, weak=False)
    signals.worker_ready.connect(_worker_ready, weak=False)
