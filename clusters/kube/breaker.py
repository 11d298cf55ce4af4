"""Per-cluster circuit breaker.

A dead member cluster must cost the portal one fast exception, not a connect timeout per page and per
watch thread. Every watch thread of a cluster shares its breaker, so a few failed attempts open it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from kubernetes.client.exceptions import ApiException

from pincompute.kube.retry import describe, is_transient

T = TypeVar("T")
State = Literal["closed", "open", "half_open"]


class CircuitOpen(Exception):
    """Raised instead of calling a cluster whose breaker is open."""

    def __init__(self, cluster: str, retry_in: float) -> None:
        super().__init__(f"cluster {cluster!r} unavailable (circuit open), retry in {retry_in:.1f}s")
        self.cluster = cluster
        self.retry_in = retry_in


class CircuitBreaker:
    """closed -> open after ``threshold`` consecutive failures -> half_open after a cool-off -> closed.

    In half_open one trial call goes through; its failure re-opens with a doubled cool-off (capped).
    Only failures for which ``is_failure`` is true count: a 404 proves the cluster is up.
    """

    def __init__(
        self,
        cluster: str,
        *,
        threshold: int = 5,
        cooloff: float = 15.0,
        max_cooloff: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        is_failure: Callable[[BaseException], bool] = is_transient,
    ) -> None:
        self.cluster = cluster
        self.threshold = threshold
        self.base_cooloff = cooloff
        self.max_cooloff = max_cooloff
        self._clock = clock
        self._wall = wall
        self._is_failure = is_failure
        self._lock = threading.Lock()
        self._open = False
        self._trial = False  # a half_open trial call is in flight
        self.failures = 0
        self.cooloff = cooloff
        self.opened_at: float | None = None  # clock() value
        self.last_error: str | None = None
        self.last_success_at: float | None = None  # wall-clock, for display
        self.last_failure_at: float | None = None

    @property
    def state(self) -> State:
        with self._lock:
            return self._state()

    def _state(self) -> State:
        if not self._open:
            return "closed"
        assert self.opened_at is not None
        return "half_open" if self._clock() >= self.opened_at + self.cooloff else "open"

    def retry_in(self) -> float:
        with self._lock:
            if not self._open or self.opened_at is None:
                return 0.0
            elapsed = self._clock() - self.opened_at  # elapsed first: opened_at + cooloff loses precision
            return min(self.cooloff, max(0.0, self.cooloff - elapsed))

    def before_call(self) -> None:
        """Raise CircuitOpen unless a call may go ahead now (claims the half_open trial slot)."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return
            if state == "half_open" and not self._trial:
                self._trial = True
                return
            assert self.opened_at is not None
            retry = max(0.0, self.opened_at + self.cooloff - self._clock())
            raise CircuitOpen(self.cluster, retry if state == "open" else min(1.0, self.cooloff))

    def record_success(self) -> None:
        with self._lock:
            self._open = self._trial = False
            self.failures = 0
            self.cooloff = self.base_cooloff
            self.opened_at = None
            self.last_success_at = self._wall()

    def record_failure(self, exc: BaseException) -> None:
        with self._lock:
            self.failures += 1
            self.last_error = describe(exc, cluster=self.cluster)
            self.last_failure_at = self._wall()
            if self._open and self._trial:
                self.cooloff = min(self.max_cooloff, self.cooloff * 2)
                self._trial = False
                self.opened_at = self._clock()
            elif not self._open and self.failures >= self.threshold:
                self._open = True
                self.opened_at = self._clock()

    def _release_trial(self) -> None:
        with self._lock:
            self._trial = False

    def call(self, fn: Callable[[], T]) -> T:
        self.before_call()
        try:
            result = fn()
        except BaseException as exc:
            if self._is_failure(exc):
                self.record_failure(exc)
            elif isinstance(exc, ApiException):
                self.record_success()  # the cluster answered, even if with a 4xx
            else:
                self._release_trial()  # our bug or an interrupt: says nothing about the cluster
            raise
        self.record_success()
        return result
