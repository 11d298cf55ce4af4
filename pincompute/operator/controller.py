"""The operator process: leader election, informers on every member cluster, N workers, resync.

Error handling follows the core taxonomy: Conflict -> re-read the CR and retry at once (3 times);
TemporaryError -> per-key exponential backoff; PermanentError -> Degraded, no retry until the CR
changes; SpecInvalid never escapes the reconciler (it becomes a Degraded status).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pincompute.errors import Conflict, CoreError, NotFound, PermanentError, TemporaryError
from pincompute.operator.cluster import ClusterRuntime, Key
from pincompute.operator.leader import LeaderElector
from pincompute.operator.metrics import Metrics
from pincompute.operator.reconciler import Reconciler
from pincompute.operator.workqueue import WorkQueue
from pincompute.runtime import RuntimeProfile

if TYPE_CHECKING:
    from pincompute.operator.federation.controller import Federation

log = logging.getLogger(__name__)
CONFLICT_RETRIES = 3


@dataclass(frozen=True)
class Options:
    workers: int = 4
    resync_seconds: float = 300.0
    shutdown_timeout: float = 20.0
    sync_timeout: float = 60.0


class Operator:
    def __init__(
        self,
        clusters: Mapping[str, ClusterRuntime],
        profile: RuntimeProfile,
        stop: threading.Event,
        *,
        options: Options | None = None,
        elector: LeaderElector | None = None,
        metrics: Metrics | None = None,
        federation: Callable[[Operator], Federation] | None = None,
    ) -> None:
        self.clusters, self.stop = clusters, stop
        self.options = options or Options()
        self.elector = elector
        self.metrics = metrics or Metrics()
        self.queue: WorkQueue[Key] = WorkQueue()
        # The federation's keys have their own queue and workers: a burst of host workloads never waits
        # behind member reconciles (nor they behind it), so a shard starts as soon as it is propagated.
        self.host_queue: WorkQueue[Key] = WorkQueue()
        self.reconciler = Reconciler(clusters, profile)
        self._workers: list[threading.Thread] = []
        self._reconciled_at: dict[Key, float] = {}  # when each key last ran: the resync skips recent ones
        self._started = False
        self.exit_code = 0
        self.metrics.live.queues.update(member=self.queue.depth, federation=self.host_queue.depth)
        self.metrics.live.leading = lambda: self._started and not self.stop.is_set()
        self.federation: Federation | None = None
        if federation is not None:
            self.federation = federation(self)

    # -- lifecycle ------------------------------------------------------------------------------

    def run(self) -> int:
        """Block until ``stop`` is set (signal) or leadership is lost; then drain and release."""
        if self.elector is None:
            self._start()
            self.stop.wait()
        else:
            self.elector.run(self.stop, self._start, self._lost)
        self._shutdown()
        return self.exit_code

    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        log.info("starting: clusters %s, %d workers", ", ".join(self.clusters), self.options.workers)
        for cluster in self.clusters.values():
            cluster.start()
        if self.federation is not None:
            self.federation.start()
        queues = [("worker", self.queue)] + ([("federation", self.host_queue)] if self.federation else [])
        for prefix, queue in queues:
            for index in range(self.options.workers):
                thread = threading.Thread(target=self._work, args=(queue,), name=f"{prefix}-{index}", daemon=True)
                thread.start()
                self._workers.append(thread)
        threading.Thread(target=self._resync_loop, name="resync", daemon=True).start()

    @property
    def started(self) -> bool:
        """True once this replica leads (or runs without election) and its informers and workers started."""
        return self._started

    def dead_workers(self) -> list[str]:
        """Reconcile threads that ended while the operator runs (a bug escaped a reconcile): liveness fails."""
        if self.stop.is_set():
            return []
        return [thread.name for thread in self._workers if not thread.is_alive()]

    def _lost(self) -> None:
        """Another replica may already be reconciling: stop at once; a supervisor restarts us as standby."""
        log.error("leadership lost; stopping")
        self.exit_code = 1
        self.stop.set()

    def _shutdown(self) -> None:
        self.queue.shutdown()
        self.host_queue.shutdown()
        deadline = time.monotonic() + self.options.shutdown_timeout
        for thread in self._workers:
            thread.join(max(0.0, deadline - time.monotonic()))
        stuck = [t.name for t in self._workers if t.is_alive()]
        if stuck:
            log.warning("shutdown: %s still busy after %.0fs", ", ".join(stuck), self.options.shutdown_timeout)
        for cluster in self.clusters.values():
            if not cluster.close(timeout=max(1.0, deadline - time.monotonic())):
                log.warning("shutdown: %s watches still running", cluster.name)
        if self.federation is not None and not self.federation.close(timeout=max(1.0, deadline - time.monotonic())):
            log.warning("shutdown: host watches still running")
        if self.elector is not None and self.elector.release():
            log.info("lease released")
        log.info("stopped: %s", self.metrics.snapshot())

    def _resync_loop(self) -> None:
        """Level-triggered safety net: requeue every CR periodically, even if no event arrives; a key reconciled
        within the last period is not requeued (during a burst every key is, and a resync of them all would double
        the backlog: a resync storm), so each key still runs at least once a period."""
        while not self.stop.wait(self.options.resync_seconds):
            due = time.monotonic() - self.options.resync_seconds
            keys = [(self.queue, key) for cluster in self.clusters.values() for key in cluster.all_cr_keys()]
            if self.federation is not None:
                keys += [(self.host_queue, key) for key in self.federation.all_keys()]
            for queue, key in keys:
                if self._reconciled_at.get(key, due) <= due:
                    queue.add(key, "resync")
            current = {key for _, key in keys}
            for key in [k for k in list(self._reconciled_at) if k not in current]:
                self._reconciled_at.pop(key, None)
            self.metrics.resyncs.inc()

    def enqueue(self, key: Key, cause: str = "other", /) -> None:
        federation = self.federation
        (self.host_queue if federation is not None and key.cluster == federation.name else self.queue).add(key, cause)

    def enqueue_after(self, key: Key, delay: float, cause: str) -> None:
        federation = self.federation
        queue = self.host_queue if federation is not None and key.cluster == federation.name else self.queue
        queue.add_after(key, delay, cause)

    def ignored(self, cause: str, controller: str = "federation") -> None:
        """A watch event that queued nothing (``Metrics.ignored``)."""
        self.metrics.ignored.labels(controller, cause).inc()

    # -- workers --------------------------------------------------------------------------------

    def _work(self, queue: WorkQueue[Key]) -> None:
        while True:
            key = queue.get()
            if key is None:
                return
            started, result = time.monotonic(), "error"
            controller = "federation" if queue is self.host_queue else "member"
            # a project's admission key (kind "@Admission") is counted apart: it is per project, not per workload
            self.metrics.caused("admission" if key.kind.startswith("@") else controller, queue.cause(key))
            try:
                result = self._process(key)
            finally:
                self._reconciled_at[key] = time.monotonic()
                self.metrics.finished(controller, key.kind, result, time.monotonic() - started)
                queue.done(key)

    def _process(self, key: Key) -> str:
        """Reconcile one member key; returns the result the metrics count it under."""
        if self.federation is not None and key.cluster == self.federation.name:
            return self._process_host(key, self.federation)
        cluster = self.clusters[key.cluster]
        for _attempt in range(CONFLICT_RETRIES):
            try:
                outcome = self.reconciler.reconcile(key)
            except Conflict as exc:
                self.metrics.retried("member", key.kind, "conflict")
                log.info("%s: conflict (%s); re-reading", key, exc)
                if not self._reread(cluster, key):
                    return "conflict"
                continue
            except NotFound:
                self.queue.forget(key)
                return "not_found"
            except TemporaryError as exc:
                self.metrics.retried("member", key.kind, "backoff")
                delay = max(self.queue.add_rate_limited(key), 0.0)
                log.warning("%s: %s; retry in %.2fs", key, exc, delay)
                self._record(cluster, key, "Warning", "ReconcileError", str(exc))
                return "temporary_error"
            except PermanentError as exc:
                log.warning("%s: permanent: %s", key, exc)
                self._degrade(cluster, key, "ReconcileFailed", str(exc))
                self.queue.forget(key)
                return "permanent_error"
            self.metrics.writes.inc(outcome.wrote)
            self.queue.forget(key)
            if outcome.requeue_after is not None:
                self.queue.add_after(key, outcome.requeue_after)
            return "success"
        self.metrics.retried("member", key.kind, "backoff")
        self.queue.add_rate_limited(key)
        return "conflict"

    def _process_host(self, key: Key, federation: Federation) -> str:
        """A federation key: a conflict means the store was re-read (``HostRuntime``): decide again at once."""
        for _attempt in range(CONFLICT_RETRIES):
            try:
                outcome = federation.process(key)
            except Conflict as exc:
                self.metrics.retried("federation", key.kind, "conflict")
                log.info("%s: conflict (%s); deciding again", key, exc)
                continue
            except NotFound:
                self.host_queue.forget(key)
                return "not_found"
            except TemporaryError as exc:
                self.metrics.retried("federation", key.kind, "backoff")
                delay = max(self.host_queue.add_rate_limited(key), 0.0)
                log.warning("%s: %s; retry in %.2fs", key, exc, delay)
                return "temporary_error"
            except CoreError as exc:
                self.metrics.retried("federation", key.kind, "backoff")
                log.warning("%s: %s", key, exc)
                self.host_queue.add_rate_limited(key)
                return "permanent_error"
            self.metrics.writes.inc(outcome.wrote)
            self.host_queue.forget(key)
            if outcome.requeue_after is not None:
                self.host_queue.add_after(key, outcome.requeue_after)
            return "success"
        self.metrics.retried("federation", key.kind, "backoff")
        self.host_queue.add_rate_limited(key)
        return "conflict"

    def _reread(self, cluster: ClusterRuntime, key: Key) -> bool:
        res = cluster.cr_resource(key.kind)
        if res is None:
            return False
        try:
            cluster.remember(cluster.kube.get(res, key.namespace, key.name))
        except NotFound:
            return False
        except CoreError as exc:
            log.info("%s: re-read failed (%s)", key, exc)
            self.queue.add_rate_limited(key)
            return False
        return True

    def _degrade(self, cluster: ClusterRuntime, key: Key, reason: str, message: str) -> None:
        cr = cluster.get_cr(key.kind, key.namespace, key.name)
        if cr is None:
            return
        try:
            self.reconciler.degrade(cluster, cr, reason, message)
        except CoreError as exc:
            log.warning("%s: cannot record Degraded (%s); retrying", key, exc)
            self.queue.add_rate_limited(key)

    def _record(self, cluster: ClusterRuntime, key: Key, type_: str, reason: str, message: str) -> None:
        cr = cluster.get_cr(key.kind, key.namespace, key.name)
        if cr is not None:
            cluster.events.record(cr, type_, reason, message)
