"""How long the cyclic garbage collector stopped this process, per generation, for /metrics.

A full collection (generation 2) walks every object the collector tracks, and every thread of the process waits for
it: 100k cached pods are ~470k such objects and add ~330 ms to one (``bench/read_path.py``). CPython runs one once
the objects that survived into the oldest generation since the last one reach a quarter of those there, so a busy
watch cache at scale makes such stalls. Recorded from ``gc.callbacks`` into plain numbers, without a metric's lock:
a callback runs inside whatever allocation triggered the collection, possibly while that very thread holds the lock
of a metric it is updating. ``console.metrics`` reads them when scraped.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any

GENERATIONS = (0, 1, 2)


@dataclass
class Pauses:
    collections: int = 0
    seconds: float = 0.0
    longest: float = 0.0


PAUSES: dict[int, Pauses] = {generation: Pauses() for generation in GENERATIONS}
_started = 0.0


def _timed(phase: str, info: dict[str, Any]) -> None:
    global _started
    if phase == "start":
        _started = time.perf_counter()
        return
    took = time.perf_counter() - _started
    pauses = PAUSES.get(info.get("generation", -1))
    if pauses is not None:  # one collection at a time (the GIL is held throughout): no race on these
        pauses.collections += 1
        pauses.seconds += took
        pauses.longest = max(pauses.longest, took)


def install() -> None:
    """Time every collection of this process from now on (once, however often called)."""
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)
