"""What another attempt at a Kubernetes API call can fix, and the one backoff: exponential with full jitter.

Only failures that another attempt can fix are retried: throttling, apiserver 5xx and transport errors.
Any other 4xx is the caller's problem and is raised at once.

A call that is not idempotent (a POST create, a merge patch setting a relative value such as a restart's
``restartedAt``) is sent again only when the request surely did not reach the apiserver (``surely_unsent``:
connection refused, DNS, a connect or TLS handshake failure, 429). After a read timeout, a connection cut once
the request was sent, or a 5xx, the apiserver may have applied it: the caller resolves that (reads back what
happened) instead of a blind second write.

``backoff`` is the one delay function: the portal's call retry, the list-watch's reconnects, the log streams'
re-follow and the conflict retries of host writes wait ``backoff``; the operator's work queue grows by the same
``exponential`` with client-go's 10 % jitter instead (a key's delays double exactly, so a failing key never
comes back at once). ``call_with_retry`` stays our own loop rather than tenacity or stamina (both
installable): it is twenty lines whose rules are all ours (the Retry-After hint raises the delay, the
idempotency rule narrows what is retried, the breaker wraps each attempt in ``ClientPool.run``), and its tests
inject ``sleep`` and ``rng``; with tenacity the same needs a custom wait class reading the outcome's exception
and a retry predicate, and stamina adds a bounded jitter to the exponential (not full jitter) from the module's
own ``random``, so neither is shorter or clearer.
"""

from __future__ import annotations

import random
import re
import socket
import time
from collections.abc import Callable
from typing import TypeVar

from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
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


# Failures raised before any byte of the request reached the apiserver (NameResolutionError is a
# NewConnectionError, which is a ConnectTimeoutError).
_UNSENT: tuple[type[BaseException], ...] = (ConnectTimeoutError, ConnectionRefusedError, socket.gaierror)


def surely_unsent(exc: BaseException) -> bool:
    """True when the failed request surely never reached the apiserver, so sending it again cannot apply it
    twice: refused or unresolvable, a connect timeout, a failed TLS handshake, or the apiserver's 429 (it
    refuses before doing anything). A read timeout, a reset after sending or a 5xx are ambiguous."""
    if isinstance(exc, MaxRetryError):
        return exc.reason is not None and surely_unsent(exc.reason)
    if isinstance(exc, ApiException):
        return exc.status == 429 or (exc.status == 0 and str(exc.reason or "").startswith("SSLError"))
    return isinstance(exc, _UNSENT)


# Where an apiserver is (urllib3 and socket texts): never shown to people, logs keep the full text.
_ADDRESS = re.compile(
    r"HTTPS?ConnectionPool\([^)]*\)|https?://\S+|\[[0-9a-fA-F:]+\](?::\d+)?|\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?"
)
_TIMEOUT = re.compile(r"\((read|connect) timeout=([0-9.]+)\)")


def _scrubbed(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return re.sub(r"\s+", " ", _ADDRESS.sub("<apiserver>", first)).strip(" :")[:300]


def _reason(exc: BaseException, who: str) -> str:
    """A short reason for ``exc`` naming ``who`` (the cluster's apiserver), without its address."""
    if isinstance(exc, MaxRetryError) and exc.reason is not None:
        return _reason(exc.reason, who)
    timeout = _TIMEOUT.search(str(exc))
    within = f"within {timeout.group(2)} s" if timeout else "in time"
    if isinstance(exc, NameResolutionError):
        return f"cannot resolve the host name of {who}"
    if isinstance(exc, NewConnectionError | ConnectionRefusedError):
        refused = "refused" in str(exc).lower() or isinstance(exc, ConnectionRefusedError)
        return f"{who} refused the connection" if refused else f"cannot connect to {who}"
    if isinstance(exc, ConnectTimeoutError):
        return f"{who} did not accept the connection {within} (connect timed out)"
    if isinstance(exc, ReadTimeoutError):
        return f"{who} did not answer {within} (read timed out)"
    if isinstance(exc, ProtocolError):
        return f"the connection to {who} was cut off before its answer"
    if isinstance(exc, SSLError):
        return f"the TLS connection to {who} failed"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name of {who}"
    if isinstance(exc, ConnectionError | TimeoutError):
        return f"{_scrubbed(exc.strerror or str(exc)) or 'connection failed'} ({who})"
    return _scrubbed(str(exc))


def describe(exc: BaseException, *, cluster: str | None = None) -> str:
    """One line for health pages and error messages: the error's class and a short reason naming the cluster
    (``cluster``, else "the apiserver"), never the apiserver's address (urllib3 puts
    ``HTTPSConnectionPool(host=..., port=...)`` in its texts). ApiException's own str() is a multi-line dump
    with headers."""
    who = f"{cluster}'s apiserver" if cluster else "the apiserver"
    if isinstance(exc, ApiException):
        if exc.status == 0:  # rest.py's transport failure (a TLS handshake): its reason is urllib3's text
            return f"{type(exc).__name__}: the TLS connection to {who} failed"
        return f"{type(exc).__name__}: {exc.status} {_scrubbed(str(exc.reason or ''))}".strip()
    return f"{type(exc).__name__}: {_reason(exc, who)}".rstrip(": ")


def retry_after(exc: BaseException) -> float | None:
    """Seconds from a Retry-After header (delta form only; the apiserver never sends dates)."""
    if not isinstance(exc, ApiException) or not exc.headers:
        return None
    value = exc.headers.get("Retry-After") or exc.headers.get("retry-after")
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER) if value is not None else None
    except ValueError:
        return None


def exponential(attempt: int, base: float, cap: float) -> float:
    """``base * 2**attempt`` (``attempt`` from 0), capped at ``cap``."""
    return min(cap, base * 2.0 ** min(attempt, 30))


def backoff(attempt: int, base: float, cap: float, rng: Callable[[], float] = random.random) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt)) so retries from many threads spread out."""
    return rng() * exponential(attempt, base, cap)


def call_with_retry(
    fn: Callable[[], T],
    *,
    attempts: int = 5,
    base: float = 0.2,
    cap: float = 5.0,
    sleep: Callable[[float], object] = time.sleep,
    rng: Callable[[], float] = random.random,
    retryable: Callable[[BaseException], bool] = is_transient,
    idempotent: bool = True,
) -> T:
    """Call ``fn`` up to ``attempts`` times; the last transient error is re-raised unchanged.

    ``idempotent=False`` (a create, a patch): only a failure that surely did not reach the apiserver is
    retried (``surely_unsent``); an ambiguous one is raised at once for the caller to resolve."""
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    if not idempotent:
        policy = retryable
        retryable = lambda exc: policy(exc) and surely_unsent(exc)  # noqa: E731
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
