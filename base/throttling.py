"""Per-user rate limits of the Compute API, reads and writes counted separately.

``ReadWriteThrottle`` is DRF throttling backed by the Django cache (Redis in production): a safe method
(GET, HEAD, OPTIONS) counts against the ``api-read`` rate, any other against ``api-write``; both are in
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (``API_READ_RATE_LIMIT`` / ``API_WRITE_RATE_LIMIT``). Signed-in
callers are counted per user, anonymous ones per address. A refusal is DRF's ``Throttled``, which
``base.api`` turns into the one error body: 429 with ``Retry-After``.
"""

from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle

log = logging.getLogger(__name__)
CACHE_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)

READ_SCOPE = "api-read"
WRITE_SCOPE = "api-write"


class FailOpen:
    """A rate limit protects the portal; it must not become a dependency of it. With the cache (Redis) unreachable
    the request is let through and the outage logged, instead of every API call answering 500."""

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return super().allow_request(request, view)  # type: ignore[misc]
        except CACHE_DOWN as exc:
            log.warning("rate limit not applied, the cache is unreachable: %s", exc)
            return True


class UserThrottle(FailOpen, UserRateThrottle):
    """DRF's per-user limit (``API_RATE_LIMIT``), failing open."""


class ReadWriteThrottle(FailOpen, SimpleRateThrottle):
    """``api-read`` for safe methods, ``api-write`` for the others, per user."""

    scope = READ_SCOPE

    def __init__(self) -> None:  # the scope (and so the rate) is known only with the request
        pass

    def get_rate(self) -> str | None:
        # Read at each request, not once at import (``SimpleRateThrottle.THROTTLE_RATES``): settings
        # overridden in tests and reloaded settings apply.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Any, view: Any) -> bool:
        self.scope = READ_SCOPE if request.method in SAFE_METHODS else WRITE_SCOPE
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)  # FailOpen's, then SimpleRateThrottle's

    def get_cache_key(self, request: Any, view: Any) -> str:
        user = getattr(request, "user", None)
        ident = user.pk if user is not None and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def api_throttles() -> list[Any]:
    """The throttles of the Compute API's views: the global per-user one and the read/write one."""
    return [*api_settings.DEFAULT_THROTTLE_CLASSES, ReadWriteThrottle]
