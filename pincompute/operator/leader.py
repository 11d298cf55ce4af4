"""Leader election through a coordination.k8s.io/v1 Lease, like client-go's leaderelection.

Expiry is judged by OUR monotonic clock since we last saw the lease record change, never by comparing
the holder's renewTime with our wall clock, so clock skew between replicas cannot cause two leaders.
Writes carry the resourceVersion read, so two candidates racing for an expired lease cannot both win.

Not the client's ``kubernetes.leaderelection`` (kubernetes 33.1): it locks only through an annotation on a
ConfigMap (no Lease lock), judges expiry by ``time.time()`` (the wall clock), ``run()`` loops forever with no stop
event and starts the leader's callback in a new non-daemon thread, and its modules call ``logging.basicConfig`` at
import, which would configure the operator's root logger.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from pincompute.errors import Conflict, CoreError, NotFound
from pincompute.operator.kubeio import LEASE, Kube

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeaseRecord:
    holder: str
    duration: float
    transitions: int = 0
    renew_time: str = ""
    resource_version: str = ""


class LeaseStore(Protocol):
    def get(self) -> LeaseRecord | None: ...
    def create(self, record: LeaseRecord) -> LeaseRecord: ...
    def update(self, record: LeaseRecord) -> LeaseRecord: ...  # raises Conflict on a stale resourceVersion


class LeaderElector:
    """``step()`` is one round of the state machine; ``run()`` calls it every ``retry_period``.

    Leading: renew; a renewal failing for longer than ``renew_deadline`` means leadership is lost.
    Standing by: acquire once the holder's record has not changed for ``lease_duration``.
    """

    def __init__(
        self,
        store: LeaseStore,
        identity: str,
        *,
        lease_duration: float = 10.0,
        renew_deadline: float = 7.0,
        retry_period: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] | None = None,
    ) -> None:
        self.store, self.identity = store, identity
        self.lease_duration, self.renew_deadline, self.retry_period = lease_duration, renew_deadline, retry_period
        self._clock = clock
        self._wall = wall or (lambda: datetime.now(UTC))
        self.leading = False
        self._observed: LeaseRecord | None = None
        self._observed_at = 0.0
        self._last_renew = 0.0
        self.last_step_at: float | None = None  # clock() of the latest round: liveness (health.py)

    def _now_string(self) -> str:
        return self._wall().strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def step(self) -> bool:
        """One attempt to acquire or renew; returns whether we lead afterwards."""
        now = self.last_step_at = self._clock()
        try:
            ok = self._try_acquire_or_renew(now)
        except CoreError as exc:
            log.info("lease: %s", exc)
            ok = False
        if ok:
            self._last_renew = now
            self.leading = True
        elif self.leading and now - self._last_renew > self.renew_deadline:
            log.warning("lease: could not renew for %.1fs; leadership lost", now - self._last_renew)
            self.leading = False
        return self.leading

    def _try_acquire_or_renew(self, now: float) -> bool:
        current = self.store.get()
        fresh = LeaseRecord(self.identity, self.lease_duration, 0, self._now_string())
        if current is None:
            self._see(self.store.create(fresh), now)
            return True
        if self._observed is None or (current.holder, current.renew_time, current.resource_version) != (
            self._observed.holder,
            self._observed.renew_time,
            self._observed.resource_version,
        ):
            self._see(current, now)
        held_by_other = current.holder not in ("", self.identity)
        if held_by_other and now < self._observed_at + current.duration:
            return False  # someone else's lease is still valid
        transitions = current.transitions if current.holder == self.identity else current.transitions + 1
        record = replace(fresh, transitions=transitions, resource_version=current.resource_version)
        try:
            self._see(self.store.update(record), now)
        except Conflict:
            return False  # another candidate won the race; see its record next round
        return True

    def _see(self, record: LeaseRecord, now: float) -> None:
        self._observed, self._observed_at = record, now

    def release(self) -> bool:
        """Give the lease up (empty holder, 1 s duration) so a standby takes over at its next round."""
        if not self.leading:
            return False
        self.leading = False
        current = self.store.get() if self._observed is None else self._observed
        if current is None or current.holder != self.identity:
            return False
        try:
            self.store.update(LeaseRecord("", 1.0, current.transitions, self._now_string(), current.resource_version))
        except CoreError as exc:
            log.info("lease release failed: %s", exc)
            return False
        return True

    def run(self, stop: threading.Event, on_started: Callable[[], None], on_lost: Callable[[], None]) -> None:
        """Block until ``stop``; calls ``on_started`` when leadership is gained and ``on_lost`` if lost."""
        was_leading = False
        while not stop.is_set():
            leading = self.step()
            if leading and not was_leading:
                log.info("lease: %s is the leader", self.identity)
                on_started()
            elif was_leading and not leading:
                on_lost()
            was_leading = leading
            stop.wait(self.retry_period)


class KubeLeaseStore:
    """A Lease object on one cluster (normally the host cluster)."""

    def __init__(self, kube: Kube, namespace: str, name: str) -> None:
        self.kube, self.namespace, self.name = kube, namespace, name

    @staticmethod
    def _record(obj: dict[str, Any]) -> LeaseRecord:
        spec = obj.get("spec") or {}
        return LeaseRecord(
            str(spec.get("holderIdentity") or ""),
            float(spec.get("leaseDurationSeconds") or 0),
            int(spec.get("leaseTransitions") or 0),
            str(spec.get("renewTime") or ""),
            str((obj.get("metadata") or {}).get("resourceVersion") or ""),
        )

    def _body(self, record: LeaseRecord) -> dict[str, Any]:
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if record.resource_version:
            metadata["resourceVersion"] = record.resource_version
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": {
                "holderIdentity": record.holder,
                "leaseDurationSeconds": max(1, round(record.duration)),
                "leaseTransitions": record.transitions,
                "renewTime": record.renew_time,
                "acquireTime": record.renew_time,
            },
        }

    def get(self) -> LeaseRecord | None:
        try:
            return self._record(self.kube.get(LEASE, self.namespace, self.name))
        except NotFound:
            return None

    def create(self, record: LeaseRecord) -> LeaseRecord:
        return self._record(self.kube.create(LEASE, self.namespace, self._body(record)))

    def update(self, record: LeaseRecord) -> LeaseRecord:
        return self._record(self.kube.update(LEASE, self.namespace, self.name, self._body(record)))
