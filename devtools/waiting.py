"""The one polling helper of tests, benches and the dev stack."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 60, interval: float = 0.25, what: str = "") -> T:
    """Poll until ``predicate()`` is truthy and return it; AssertionError (with the last value) on timeout."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}; last: {last!r}")
