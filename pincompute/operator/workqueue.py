"""A client-go style work queue: dedup, per-key serialization, delayed and rate-limited requeues.

Why not ``queue.Queue``: a key must never be reconciled by two workers at once, a key dirtied while it
is being processed must run again afterwards (level-triggered), and failing keys must back off
individually while an overall token bucket keeps a burst of failures from hammering the apiservers.
"""

from __future__ import annotations

import heapq
import itertools
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from pincompute.kube.retry import exponential

K = TypeVar("K", bound=Hashable)


class KeyBackoff(Generic[K]):
    """Per-key exponential backoff: base * 2**failures, capped; ``forget`` resets a key after success.

    The one backoff's ``exponential`` without its full jitter: as client-go's per-item limiter, a key's delays
    double exactly (``add_rate_limited`` adds at most 10 %), so a failing key never comes straight back."""

    def __init__(self, base: float = 0.05, cap: float = 60.0) -> None:
        self.base, self.cap = base, cap
        self._failures: dict[K, int] = {}

    def next_delay(self, key: K) -> float:
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        return exponential(failures, self.base, self.cap)

    def failures(self, key: K) -> int:
        return self._failures.get(key, 0)

    def forget(self, key: K) -> None:
        self._failures.pop(key, None)


class TokenBucket:
    """Overall limit on rate-limited requeues: ``rate`` per second, ``burst`` at once.

    ``reserve`` never blocks; it returns how long the caller must wait for its token, so delays from
    many failing keys spread out instead of piling into one instant.
    """

    def __init__(self, rate: float = 50.0, burst: int = 500, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self._clock = rate, float(burst), clock
        self._tokens, self._last = float(burst), clock()

    def reserve(self) -> float:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


class WorkQueue(Generic[K]):
    """Thread-safe queue of keys; ``get`` hands a key to one worker, ``done`` releases it."""

    def __init__(
        self,
        *,
        backoff: KeyBackoff[K] | None = None,
        bucket: TokenBucket | None = None,
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self._clock, self._jitter = clock, jitter
        self._backoff = backoff or KeyBackoff()
        self._bucket = bucket or TokenBucket(clock=clock)
        self._cond = threading.Condition()
        self._queue: deque[K] = deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        self._waiting: list[tuple[float, int, K]] = []  # heap of (ready_at, seq, key)
        self._waiting_at: dict[K, float] = {}
        # why each queued key was added (the first cause since it was last taken) and why each taken key runs:
        # the operator counts reconciles by cause (an own write's echo, a shard's status, a resync, a requeue)
        self._causes: dict[K, str] = {}
        self._waiting_cause: dict[K, str] = {}
        self._running_cause: dict[K, str] = {}
        self._seq = itertools.count()
        self._shutdown = False

    # -- adding ---------------------------------------------------------------------------------

    def add(self, key: K, cause: str = "other") -> None:
        with self._cond:
            self._add_locked(key, cause)

    def _add_locked(self, key: K, cause: str) -> None:
        if self._shutdown or key in self._dirty:
            return
        self._dirty.add(key)
        self._causes[key] = cause
        if key not in self._processing:
            self._queue.append(key)
            self._cond.notify()

    def add_after(self, key: K, delay: float, cause: str = "requeue") -> None:
        """Add once ``delay`` seconds have passed; an earlier pending time for the key wins."""
        if delay <= 0:
            self.add(key, cause)
            return
        with self._cond:
            if self._shutdown:
                return
            ready_at = self._clock() + delay
            if self._waiting_at.get(key, float("inf")) <= ready_at:
                return
            self._waiting_at[key] = ready_at
            self._waiting_cause[key] = cause
            heapq.heappush(self._waiting, (ready_at, next(self._seq), key))
            self._cond.notify()

    def add_rate_limited(self, key: K) -> float:
        """Requeue a failed key after its backoff (with up to 10 % jitter) or the bucket's wait."""
        with self._cond:
            delay = max(self._backoff.next_delay(key), self._bucket.reserve())
        delay *= 1.0 + 0.1 * self._jitter()
        self.add_after(key, delay, "backoff")
        return delay

    def forget(self, key: K) -> None:
        with self._cond:
            self._backoff.forget(key)

    def failures(self, key: K) -> int:
        with self._cond:
            return self._backoff.failures(key)

    # -- taking ---------------------------------------------------------------------------------

    def get(self, timeout: float | None = None) -> K | None:
        """Next key (now owned by the caller until ``done``); None on shutdown or timeout."""
        deadline = None if timeout is None else self._clock() + timeout
        with self._cond:
            while True:
                if self._shutdown:
                    return None
                self._promote_locked()
                if self._queue:
                    key = self._queue.popleft()
                    self._processing.add(key)
                    self._dirty.discard(key)
                    self._running_cause[key] = self._causes.pop(key, "other")
                    return key
                wait = self._waiting[0][0] - self._clock() if self._waiting else None
                if deadline is not None:
                    left = deadline - self._clock()
                    if left <= 0:
                        return None
                    wait = left if wait is None else min(wait, left)
                self._cond.wait(None if wait is None else max(wait, 0.001))

    def _promote_locked(self) -> None:
        now = self._clock()
        while self._waiting and self._waiting[0][0] <= now:
            ready_at, _, key = heapq.heappop(self._waiting)
            if self._waiting_at.get(key) == ready_at:
                del self._waiting_at[key]
                self._add_locked(key, self._waiting_cause.pop(key, "requeue"))

    def cause(self, key: K) -> str:
        """Why the taken ``key`` runs: the cause it was first added with since it was last taken."""
        with self._cond:
            return self._running_cause.get(key, "other")

    def done(self, key: K) -> None:
        """Release ``key``; if it was added while processing it goes back in the queue now."""
        with self._cond:
            self._processing.discard(key)
            self._running_cause.pop(key, None)
            if key in self._dirty and not self._shutdown:
                self._queue.append(key)
                self._cond.notify()

    # -- lifecycle ------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop handing out keys; workers blocked in ``get`` return None."""
        with self._cond:
            self._shutdown = True
            self._cond.notify_all()

    @property
    def shutting_down(self) -> bool:
        return self._shutdown

    def depth(self) -> tuple[int, int, int]:
        """(ready, processing, waiting) counts for metrics."""
        with self._cond:
            return len(self._queue), len(self._processing), len(self._waiting_at)

    def wait_idle(self, timeout: float) -> bool:
        """True once nothing is queued or processing (delayed keys do not count); for shutdown and tests."""
        deadline = self._clock() + timeout
        with self._cond:
            while self._queue or self._processing:
                left = deadline - self._clock()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
            return True
