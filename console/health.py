"""Readiness checks: can this process serve? The database decides; the rest is reported as degraded.

``/readyz`` is the web pods' readiness probe, so it fails only for what keeps this process from serving its pages
and API: the database (sessions, tokens, every page's rows). Everything else is *degraded*, named in the body for
a platform admin or the probe token, and never fails the probe:

- each registered cluster, the host included: pages and read APIs come from the watch caches (marked stale when a
  cluster is gone), writes to a cluster that does not answer fail on their own with a 503;
- ``member_sync``: the members whose MemberCluster the hosts do not hold as the registry says (the last sync's
  error, from the registry: placement runs on stale attributes until it is fixed);
- Redis (the channel layer) and the Celery broker: rate limits and queueing fail open, live sessions refuse.

Taking every pod out of the Service for one member's outage, or a Redis restart, would turn a partial outage into
a whole one.

The checks run concurrently, each on a thread of its own, and the run ends after ``CHECK_DEADLINE_SECONDS`` (well
under the chart's ``readinessProbe.timeoutSeconds``): a check still waiting then (a hung apiserver) counts as failed
with "no answer within ...". They run at most once per ``READYZ_CACHE_SECONDS`` per process, whoever asks and
however often (one caller runs them, concurrent callers wait for that run), so a probe storm on /readyz never
becomes one on the clusters.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_for_futures
from dataclasses import dataclass

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError, connection
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from base.asyncbridge import call_async

# What a failed dependency raises: the database, Redis (channel layer; redis' own ConnectionError is no builtin
# one), the Celery broker (kombu), sockets and timeouts.
CHECK_FAILURES = (DatabaseError, RedisError, OperationalError, OSError, TimeoutError, RuntimeError)
# The whole run's bound: the chart's readinessProbe.timeoutSeconds is 5, and a check that has not answered by then
# has told us enough (a cluster's probe alone may wait 1 s to connect and 3 s for the answer).
CHECK_DEADLINE_SECONDS = 2.5
CRITICAL = frozenset({"database"})  # the checks whose failure makes the process unready


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    millis: float

    @property
    def critical(self) -> bool:
        return self.name in CRITICAL


def _timed(name: str, fn: Callable[[], str]) -> CheckResult:
    start = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except CHECK_FAILURES as exc:
        detail, ok = f"{type(exc).__name__}: {exc}", False
    return CheckResult(name, ok, detail, round((time.perf_counter() - start) * 1000, 1))


def _on_own_thread(name: str, fn: Callable[[], str]) -> CheckResult:
    """``_timed`` on a worker thread, which gives back the database connection it borrowed (to the pool)."""
    try:
        return _timed(name, fn)
    finally:
        connection.close()


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def check_channel_layer() -> str:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")

    async def roundtrip() -> None:
        channel = await layer.new_channel("readyz.")
        payload = {"type": "readyz.ping", "nonce": uuid.uuid4().hex}
        await layer.send(channel, payload)
        received = await asyncio.wait_for(layer.receive(channel), timeout=CHECK_DEADLINE_SECONDS)
        if received.get("nonce") != payload["nonce"]:
            raise RuntimeError("channel layer returned a different message")

    call_async(roundtrip)
    return type(layer).__name__


def check_broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager (in-process)"
    from console.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return "reachable"


def _dependency_checks() -> list[tuple[str, Callable[[], str]]]:
    """The checks that need no registry, by name (looked up when run, so a test can replace one)."""
    return [("database", check_database), ("channel_layer", check_channel_layer), ("broker", check_broker)]


def _cluster_checks() -> list[tuple[str, Callable[[], str]]]:
    """One check per registered cluster, the registry read on the caller's thread (its transaction)."""
    from clusters.health import check_host_sync, cluster_checks

    with contextlib.suppress(DatabaseError):
        return [*((f"cluster:{name}", probe) for name, probe in cluster_checks()), ("member_sync", check_host_sync)]
    return []


def run_checks() -> list[CheckResult]:
    """Every check at once, all done within ``CHECK_DEADLINE_SECONDS``; one not done by then fails as unanswered (its
    thread finishes on its own, bounded by the check's own timeout). The clusters are listed from the registry once
    the database check has passed: with the database down there is nothing to list, and listing would wait out
    DATABASE_POOL_TIMEOUT past the probe's timeout."""
    start = time.perf_counter()
    deadline = start + CHECK_DEADLINE_SECONDS
    executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="readyz")  # threads start as needed
    try:
        checks = _dependency_checks()
        futures = [executor.submit(_on_own_thread, name, fn) for name, fn in checks]
        wait_for_futures(futures[:1], timeout=CHECK_DEADLINE_SECONDS)
        database = futures[0]
        if database.done() and database.result().ok:
            clusters = _cluster_checks()
            checks += clusters
            futures += [executor.submit(_on_own_thread, name, fn) for name, fn in clusters]
        wait_for_futures(futures, timeout=max(0.0, deadline - time.perf_counter()))
        results = []
        for (name, _), future in zip(checks, futures, strict=True):
            try:
                results.append(future.result(timeout=0))
            except FutureTimeout:
                millis = round((time.perf_counter() - start) * 1000, 1)
                results.append(CheckResult(name, False, f"no answer within {CHECK_DEADLINE_SECONDS:g} s", millis))
        return results
    finally:
        executor.shutdown(wait=False)


_cache_lock = threading.Lock()
_cached: tuple[float, list[CheckResult]] | None = None


def cached_checks() -> list[CheckResult]:
    """``run_checks`` results no older than ``READYZ_CACHE_SECONDS`` (single flight under a lock)."""
    global _cached
    with _cache_lock:
        now = time.monotonic()
        if _cached is None or now - _cached[0] >= settings.READYZ_CACHE_SECONDS:
            _cached = (time.monotonic(), run_checks())
        return _cached[1]


def forget_cached_checks() -> None:
    global _cached
    with _cache_lock:
        _cached = None
