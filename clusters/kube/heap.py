"""Short full garbage collections beside large watch caches: once a list has filled a cache, the objects then alive
are frozen out of the collector's generations (``gc.freeze``), so a later full collection no longer walks every
cached pod.

A web replica's caches hold about 1.5 KB of small dicts and strings per pod; at 100k pods Python's full collection
(run now and then on its own, on whichever request allocates at that moment) took 262 ms walking them
(bench/gc_pause.py), most of an admin search's p99. Frozen objects are still freed by reference counting when the
cache drops them (a deleted or changed pod); only cyclic garbage alive at the freeze would be kept, so a collection
runs first. Lists come in bursts (every collection of every cluster at start, after a relist), so one freeze runs
``delay`` seconds after the last list of a burst. Off (``WATCH_CACHE_GC_FREEZE``) in the test suite's processes,
which start hundreds of caches among objects that would then never be collected.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger(__name__)
DELAY_SECONDS = 2.0


class HeapFreezer:
    def __init__(self, delay: float = DELAY_SECONDS, enabled: bool = True) -> None:
        self.delay, self.enabled = delay, enabled
        self.freezes = 0
        self._lock = threading.Lock()
        self._due: float | None = None
        self._thread: threading.Thread | None = None

    def after_list(self) -> None:
        """A list just filled a cache: freeze once the burst of lists is over."""
        if not self.enabled:
            return
        with self._lock:
            self._due = time.monotonic() + self.delay
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._wait_then_freeze, name="heap-freeze", daemon=True)
                self._thread.start()

    def _wait_then_freeze(self) -> None:
        while True:
            with self._lock:
                due = self._due
                if due is None:
                    return
                left = due - time.monotonic()
                if left <= 0:
                    self._due = None
                    break
            time.sleep(left)
        took = freeze_heap()
        self.freezes += 1
        log.info("froze %d objects out of the collector's generations in %.0f ms", gc.get_freeze_count(), took * 1000)


def freeze_heap() -> float:
    """Collect, then freeze what is alive; the seconds it took."""
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - started


FREEZER = HeapFreezer()
