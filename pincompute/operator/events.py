"""core/v1 Events on custom resources, aggregated so a hot reconcile loop cannot flood the apiserver.

The same (object, type, reason, message) becomes ONE Event whose ``count`` grows; repeats within
``min_interval`` are only counted in memory and written with the next repeat after it.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pincompute.errors import CoreError, NotFound
from pincompute.operator.kubeio import EVENT, Kube

log = logging.getLogger(__name__)
COMPONENT = "pincompute-operator"
EventKey = tuple[str, str, str, str]  # (uid, type, reason, message)


@dataclass
class _Seen:
    name: str
    count: int
    written_count: int
    first: float
    last_write: float


@dataclass(frozen=True)
class Decision:
    """What to send: ``create`` a new Event, ``patch`` the count of the existing one, or ``skip``."""

    action: str
    name: str
    count: int
    first: float


class EventAggregator:
    """Pure bookkeeping (clock injected) so the dedupe policy is unit-testable without an apiserver."""

    def __init__(
        self, min_interval: float = 10.0, max_keys: int = 10000, clock: Callable[[], float] = time.time
    ) -> None:
        self.min_interval, self.max_keys, self._clock = min_interval, max_keys, clock
        self._seen: dict[EventKey, _Seen] = {}

    def decide(self, key: EventKey, object_name: str) -> Decision:
        now = self._clock()
        seen = self._seen.get(key)
        if seen is None:
            if len(self._seen) >= self.max_keys:
                self._seen.pop(next(iter(self._seen)))
            digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:10]
            seen = _Seen(f"{object_name}.{digest}"[:253], 1, 1, now, now)
            self._seen[key] = seen
            return Decision("create", seen.name, 1, now)
        seen.count += 1
        if now - seen.last_write < self.min_interval:
            return Decision("skip", seen.name, seen.count, seen.first)
        seen.last_write, seen.written_count = now, seen.count
        return Decision("patch", seen.name, seen.count, seen.first)

    def forget_object(self, uid: str) -> None:
        for key in [k for k in self._seen if k[0] == uid]:
            del self._seen[key]


def _ts(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class EventRecorder:
    """Writes Events for one cluster off the reconcile path (a bounded queue drained by one thread):
    an Event is best effort, so it must never add apiserver round trips to a reconcile or fail one."""

    def __init__(
        self, kube: Kube, instance: str, aggregator: EventAggregator | None = None, background: bool = True
    ) -> None:
        self.kube, self.instance = kube, instance
        self.aggregator = aggregator or EventAggregator()
        self._lock = threading.Lock()
        self._pending: queue.Queue[tuple[Mapping[str, Any], str, str, str]] | None = None
        if background:
            self._pending = queue.Queue(maxsize=10000)
            threading.Thread(target=self._drain, name=f"events-{kube.name}", daemon=True).start()

    def record(self, cr: Mapping[str, Any], type_: str, reason: str, message: str) -> None:
        if self._pending is None:
            self.write(cr, type_, reason, message)
            return
        try:
            self._pending.put_nowait((cr, type_, reason, message))
        except queue.Full:
            log.info("event queue full; dropping %s %s", reason, message)

    def _drain(self) -> None:
        assert self._pending is not None
        while True:
            self.write(*self._pending.get())

    def write(self, cr: Mapping[str, Any], type_: str, reason: str, message: str) -> None:
        metadata = cr.get("metadata") or {}
        uid, namespace = str(metadata.get("uid") or ""), str(metadata.get("namespace") or "default")
        message = message[:1000]
        with self._lock:
            decision = self.aggregator.decide((uid, type_, reason, message), str(metadata.get("name")))
        if decision.action == "skip":
            return
        now = time.time()
        try:
            if decision.action == "patch":
                try:
                    body = {"count": decision.count, "lastTimestamp": _ts(now)}
                    self.kube.patch(EVENT, namespace, decision.name, body)
                    return
                except NotFound:
                    pass  # expired (event TTL) or never written: create it again below
            body = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": decision.name, "namespace": namespace},
                "involvedObject": {
                    "apiVersion": cr.get("apiVersion"),
                    "kind": cr.get("kind"),
                    "name": metadata.get("name"),
                    "namespace": namespace,
                    "uid": uid,
                    "resourceVersion": metadata.get("resourceVersion"),
                },
                "type": type_,
                "reason": reason,
                "message": message,
                "count": decision.count,
                "firstTimestamp": _ts(decision.first),
                "lastTimestamp": _ts(now),
                "source": {"component": COMPONENT},
                "reportingComponent": COMPONENT,
                "reportingInstance": self.instance,
            }
            self.kube.create(EVENT, namespace, body)
        except CoreError as exc:  # Conflict (already exists), throttling, ...: an Event is best effort
            log.info("event %s/%s %s not recorded: %s", namespace, decision.name, reason, exc)

    def forget(self, uid: str) -> None:
        with self._lock:
            self.aggregator.forget_object(uid)
