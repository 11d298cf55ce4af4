"""Per-user rate limits of the Compute API, reads and writes counted separately.

Two limits apply to every API call: ``user`` (``API_RATE_LIMIT``, any method) and ``api-read`` or ``api-write``
(``API_READ_RATE_LIMIT`` for GET, HEAD and OPTIONS, ``API_WRITE_RATE_LIMIT`` for the others), all in
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` in DRF's ``N/period`` form. Signed-in callers are counted per user,
anonymous ones per address. A refusal is DRF's ``Throttled``, which ``base.api`` turns into the one error body: 429
with ``Retry-After``.

Counted by the ``limits`` library (a moving window: at most N requests in any window of the period), in Redis when
``REDIS_URL`` is set (one Lua script per limit and request: the check and the count are one atomic step) and in the
process otherwise (the embedded default). DRF's own ``SimpleRateThrottle`` read a user's history, checked it and
wrote it back as two separate cache calls: concurrent requests read the same history and overwrote each other's
entries, so 16 parallel connections got 113 requests through a limit of 60 a minute; it also pickled the whole
history (up to the rate's N timestamps) to and from Redis on every request.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from typing import Any

from django.conf import settings
from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

log = logging.getLogger(__name__)
CACHE_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)

USER_SCOPE = "user"
READ_SCOPE = "api-read"
WRITE_SCOPE = "api-write"
KEY_PREFIX = "pinconsole:ratelimit"
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

_limiters: dict[str, MovingWindowRateLimiter] = {}
_limiters_lock = threading.Lock()


def parse_rate(rate: str) -> tuple[int, int]:
    """DRF's rate form, ``"1200/min"``: the number of requests and the period in seconds (``s``, ``m``, ``h``,
    ``d``: the unit's first letter counts)."""
    count, _, period = rate.partition("/")
    unit = period.strip()[:1].lower()
    if unit not in PERIODS or not count.strip().isdigit():
        raise ValueError(f"A rate limit is 'N/second|minute|hour|day', not {rate!r}.")
    return int(count), PERIODS[unit]


def limiter() -> MovingWindowRateLimiter:
    """This process's limiter over the storage ``REDIS_URL`` names (in memory without one)."""
    url = settings.REDIS_URL or ""
    found = _limiters.get(url)
    if found is None:
        with _limiters_lock:
            found = _limiters.get(url)
            if found is None:
                storage: Storage = (
                    # a Redis that stops answering fails the check in seconds (and the request goes through)
                    RedisStorage(url, key_prefix=KEY_PREFIX, socket_connect_timeout=2, socket_timeout=2)
                    if url
                    else MemoryStorage()
                )
                found = _limiters[url] = MovingWindowRateLimiter(storage)
    return found


def reset_limits() -> None:
    """Forget every count: this process's in-memory ones and those in Redis under ``KEY_PREFIX`` (tests)."""
    with _limiters_lock:
        memory = _limiters.pop("", None)
    if memory is not None:
        memory.storage.reset()
    if settings.REDIS_URL:
        with contextlib.suppress(*CACHE_DOWN):
            limiter().storage.reset()


class RateLimit(BaseThrottle):
    """One limit (``scope``), counted per user. A rate limit protects the portal; it must not become a dependency of
    it: with Redis unreachable the request is let through and the outage logged, instead of every call failing."""

    scope = USER_SCOPE

    def __init__(self) -> None:
        self.retry_after: int | None = None

    def scope_for(self, request: Any) -> str:
        return self.scope

    def allow_request(self, request: Any, view: Any) -> bool:
        scope = self.scope_for(request)
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)  # read each time: overridden settings apply
        if rate is None:
            return True
        item = RateLimitItemPerSecond(*parse_rate(rate))
        user = getattr(request, "user", None)
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else f"addr-{self.get_ident(request)}"
        try:
            if limiter().hit(item, scope, ident):
                return True
            reset_at = limiter().get_window_stats(item, scope, ident).reset_time
        except CACHE_DOWN as exc:
            log.warning("rate limit not applied, Redis is unreachable: %s", exc)
            return True
        self.retry_after = max(1, math.ceil(reset_at - time.time()))
        return False

    def wait(self) -> int | None:
        return self.retry_after


class UserThrottle(RateLimit):
    """Every call of a user (``API_RATE_LIMIT``)."""


class ReadWriteThrottle(RateLimit):
    """``api-read`` for safe methods, ``api-write`` for the others, per user."""

    def scope_for(self, request: Any) -> str:
        return READ_SCOPE if request.method in SAFE_METHODS else WRITE_SCOPE


def api_throttles() -> list[Any]:
    """The throttles of the Compute API's views: the global per-user one and the read/write one."""
    return [*api_settings.DEFAULT_THROTTLE_CLASSES, ReadWriteThrottle]
