"""Readiness checks: database, channel layer, broker and every registered cluster.

The checks run at most once per ``READYZ_CACHE_SECONDS`` per process, whoever asks and however often (one caller
runs them, concurrent callers wait for that run), so a probe storm on /readyz never becomes one on the clusters.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable
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


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    millis: float


def _timed(name: str, fn: Callable[[], str]) -> CheckResult:
    start = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except CHECK_FAILURES as exc:
        detail, ok = f"{type(exc).__name__}: {exc}", False
    return CheckResult(name, ok, detail, round((time.perf_counter() - start) * 1000, 1))


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
        received = await asyncio.wait_for(layer.receive(channel), timeout=5)
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


def run_checks() -> list[CheckResult]:
    results = [
        _timed("database", check_database),
        _timed("channel_layer", check_channel_layer),
        _timed("broker", check_broker),
    ]
    from clusters.health import cluster_checks

    for name, probe in cluster_checks():
        results.append(_timed(f"cluster:{name}", probe))
    return results


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
