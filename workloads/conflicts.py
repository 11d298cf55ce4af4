"""Writes of the host object that race the operator and the federation.

They write its status and metadata all the time, so a write conditional on the resourceVersion just read often
lands on a newer one and the apiserver answers 409. Such a loss is worth a fresh read: the change is made again on
what is live, its checks run again (a caller's If-Match compares the spec's version, which a status write does not
move), and only a spec that moved past the caller's version is the caller's 409.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from base.errors import Conflict
from pincompute.kube.retry import backoff

ATTEMPTS = 5  # writes tried on a conflict with a concurrent status or metadata write
BACKOFF_SECONDS = 0.02  # doubled each attempt, full jitter: the writers that raced us are done in milliseconds
BACKOFF_CAP_SECONDS = 0.5
T = TypeVar("T")


class Raced(Exception):
    """A conditional write lost to a concurrent one (the apiserver's 409 on a stale resourceVersion)."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__(conflict.message)
        self.conflict = conflict


def raced(write: Callable[[], T]) -> T:
    """``write``, a conditional write of the host object: its 409 becomes ``Raced`` (worth a fresh read)."""
    try:
        return write()
    except Conflict as exc:
        raise Raced(exc) from exc


def retried_on_conflict(change: Callable[[], T], attempts: int = ATTEMPTS) -> T:
    """``change`` (a read of the live object, checks, then a ``raced`` write) tried again when the write lost
    the race: the concurrent writer was the operator or the federation, and the next read includes its change.
    Every refusal of the checks (a stale If-Match's 409 among them) ends it at once; when every attempt lost,
    the last write's 409."""
    for number in range(1, attempts + 1):
        try:
            return change()
        except Raced as exc:
            if number == attempts:
                raise exc.conflict from None
            time.sleep(backoff(number - 1, BACKOFF_SECONDS, BACKOFF_CAP_SECONDS))
    raise AssertionError("unreachable: the last attempt returns or raises")
