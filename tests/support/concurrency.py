"""Running calls at the same moment, each in a thread of its own (its database connections closed afterwards)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections

from base.errors import ServiceError


def run_together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run every call in its own thread, all released at once; returns each result or the ServiceError."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except ServiceError as exc:
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results
