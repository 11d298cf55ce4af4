"""Exponential backoff with full jitter for Kubernetes API calls.

Only failures that another attempt can fix are retried: throttling, apiserver 5xx and transport errors.
Any other 4xx is the caller's problem and is raised at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    MaxRetryError,
    ProtocolError,
    NewConnectionError,
    ReadTimeoutError,
    ConnectTimeoutError,
    OSError,
)
MAX_RETRY_AFTER = 60.0


def is_transient(exc: BaseException) -> bool:
    """True when the same request may succeed later (and when the cluster's health should suffer)."""
    if isinstance(exc, ApiException):
        if exc.status in RETRY_STATUSES:
            return True
        # rest.py turns TLS handshake failures into status 0: transport trouble, not a bad request.
        return exc.status == 0 and str(exc.reason or "").startswith("SSLError")
    return isinstance(exc, TRANSPORT_ERRORS)


def describe(exc: BaseException) -> str:
    """One line for health pages: ApiException's own str() is a multi-line dump with headers."""
    status = getattr(exc, "status", None)
    if isinstance(exc, ApiException):
        return f"{type(exc).__name__}: {status} {exc.reason or ''}".strip()
    text = str(exc).splitlines()[0][:300] if str(exc) else ""
    return f"{type(exc).__name__}: {text}".rstrip(": ")


def retry_after(exc: BaseException) -> float | None:
    """Seconds from a Retry-After header (delta form only; the apiserver never sends dates)."""
    if not isinstance(exc, ApiException) or not exc.headers:
        return None
    value = exc.headers.get("Retry-After") or exc.headers.get("retry-after")
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER) if value is not None else None
    except ValueError:
        return None


def backoff(attempt: int, base: float, cap: float, rng: Callable[[], float]) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt)) so retries from many threads spread out."""
    return rng() * min(cap, base * (2.0**attempt))


def call_with_retry(
    fn: Callable[[], T],
    *,
    attempts: int = 5,
    base: float = 0.2,
    cap: float = 5.0,
    sleep: Callable[[float], object] = time.sleep,
    rng: Callable[[], float] = random.random,
    retryable: Callable[[BaseException], bool] = is_transient,
) -> T:
    """Call ``fn`` up to ``attempts`` times; the last transient error is re-raised unchanged."""
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    for attempt in range(attempts):
        try:
            return fn()
        except (ApiException, *TRANSPORT_ERRORS) as exc:
            if not retryable(exc) or attempt == attempts - 1:
                raise
            delay = backoff(attempt, base, cap, rng)
            hinted = retry_after(exc)
            if hinted is not None:
                delay = max(delay, hinted)
            sleep(delay)
    raise AssertionError("unreachable")
