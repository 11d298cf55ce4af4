"""The portal's Prometheus metrics (prometheus-client), defined once and updated where the work is done.

Services count their own outcomes with one line (``counted`` on the function, or an ``inc``); requests are
counted by ``RequestMetricsMiddleware``; what the process holds (watch caches, breakers) is read when scraped
(``console.metrics``). Labels are bounded: a route's name, never a raw path; an error's taxonomy code, never its text.

Several processes (uvicorn ``--workers N``, Celery's prefork children): set ``PROMETHEUS_MULTIPROC_DIR`` to an empty
directory they share. Each process then writes its values to files there and any of them reports the sum when
scraped, so a scrape through a load-balanced port sees every worker. Without it the values are this process's own
(one worker, tests, ``manage.py dev``).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    multiprocess,
)

from pincompute.errors import ServiceError

P = ParamSpec("P")
R = TypeVar("R")
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROC_DIR:  # a process that died with our (reused) pid must not lend us its open-session gauges
    multiprocess.mark_process_dead(os.getpid(), MULTIPROC_DIR)

disable_created_metrics()  # no *_created series: multiprocess mode has none either, so one shape everywhere
REGISTRY = CollectorRegistry()
# prometheus-client's standard families of the process that answers a scrape (process_* from /proc: CPU, resident
# memory, open files; python_info; python_gc_*): read at scrape time, never summed across processes.
STANDARD = CollectorRegistry()
ProcessCollector(registry=STANDARD)
PlatformCollector(registry=STANDARD)
GCCollector(registry=STANDARD)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
TASK_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

REQUESTS = Counter(
    "pinconsole_http_requests",
    "HTTP requests answered, by route name, method and status class",
    ["view", "method", "status"],
    registry=REGISTRY,
)
REQUEST_SECONDS = Histogram(
    "pinconsole_http_request_duration_seconds",
    "Time to answer an HTTP request (the response's headers; a streamed body is not included)",
    ["view", "method"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
OPEN_SESSIONS = Gauge(
    "pinconsole_debug_sessions_open",
    "Shells and log streams open now (admitted websockets not yet ended)",
    ["kind"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)
WS_REFUSALS = Counter(
    "pinconsole_websocket_refusals",
    "Debugging websockets refused, by reason (the error taxonomy's code of the close code)",
    ["reason"],
    registry=REGISTRY,
)
CELERY_TASKS = Counter(
    "pinconsole_celery_tasks", "Celery tasks run, by task name and final state", ["task", "outcome"], registry=REGISTRY
)
CELERY_TASK_SECONDS = Histogram(
    "pinconsole_celery_task_duration_seconds",
    "Time a Celery task ran",
    ["task"],
    buckets=TASK_BUCKETS,
    registry=REGISTRY,
)
SUBMISSIONS = Counter(
    "pinconsole_workload_submissions",
    "Workload submissions (form, YAML, API): created, updated, dry_run, or the refusal's code",
    ["outcome"],
    registry=REGISTRY,
)
PROVISIONING = Counter(
    "pinconsole_provisioning_runs",
    "Runs that made one cluster match one project (apply) or removed it (remove): ok or the error's code",
    ["action", "outcome"],
    registry=REGISTRY,
)
PROVISIONING_SECONDS = Histogram(
    "pinconsole_provisioning_duration_seconds",
    "Time one provisioning run took on one cluster",
    ["action"],
    buckets=TASK_BUCKETS,
    registry=REGISTRY,
)


def outcome_of(exc: BaseException) -> str:
    """A refusal's taxonomy code (``invalid``, ``conflict``, ``unavailable``, ...); ``error`` for anything else."""
    return exc.code if isinstance(exc, ServiceError) else "error"


def ok(_result: object) -> str:
    return "ok"


def counted(
    counter: Counter,
    histogram: Histogram | None = None,
    *,
    outcome: Callable[[Any], str] = ok,
    **labels: str,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Count every call of the decorated service by outcome (``outcome(result)``, or the error's code) and time it."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            started = time.perf_counter()
            try:
                result = fn(*args, **kwargs)
            except Exception as exc:
                counter.labels(**labels, outcome=outcome_of(exc)).inc()
                raise
            finally:
                if histogram is not None:
                    histogram.labels(**labels).observe(time.perf_counter() - started)
            counter.labels(**labels, outcome=outcome(result)).inc()
            return result

        return wrapper

    return decorate


def submission_outcome(accepted: Any) -> str:
    return "dry_run" if accepted.dry_run else "created" if accepted.created else "updated"


def refusal(code: int) -> None:
    """Count one refused websocket under the taxonomy code of its close code (``not_found`` for 4404)."""
    WS_REFUSALS.labels(_close_codes().get(code, f"close_{code}" if 4000 <= code < 5000 else "other")).inc()


@functools.cache
def _close_codes() -> dict[int, str]:
    """Close code -> code of the taxonomy (read on first use: every ``ServiceError`` subclass is imported by then)."""
    seen: dict[int, str] = {}
    pending: list[type[ServiceError]] = [ServiceError]
    while pending:
        cls = pending.pop()
        seen.setdefault(cls.close_code, cls.code)  # the family's first class names the code (Invalid, not SpecInvalid)
        pending.extend(cls.__subclasses__())
    return seen
