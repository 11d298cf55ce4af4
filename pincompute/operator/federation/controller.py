"""The federation controller, wired into the operator process (``--host-context``): it shares the
operator's leader election, work queue and workers, and the member runtimes whose shard watches report
back here.

Keys on the host cluster's name are the federation's: a project's admission key (``host.ADMISSION``)
or one host workload. Member shard events that change what its reconcile reads (``shard_news``: status
included, our own apply's echo not) requeue their host workload, coalesced over a tenth of a second (a status step
still on its way over a second); a member's reachability change requeues every host workload, and a sweep finds
shards whose host object is gone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pincompute.federation.members import NodeSummary
from pincompute.kinds import KINDS
from pincompute.labels import FEDERATED_LABEL
from pincompute.operator.cluster import ClusterRuntime, Enqueue, Key
from pincompute.operator.events import EventRecorder
from pincompute.operator.federation.admitter import Admitter
from pincompute.operator.federation.host import ADMISSION, QUOTA, HostRuntime
from pincompute.operator.federation.member_health import MemberHealth
from pincompute.operator.federation.propagator import Propagator
from pincompute.operator.federation.shard_news import ShardNews
from pincompute.operator.kubeio import Kube
from pincompute.operator.reconciler import Outcome
from pincompute.runtime import RuntimeProfile

log = logging.getLogger(__name__)
SYNC_TIMEOUT = 30.0
SWEEP_PERIOD = 30.0


class Federation:
    def __init__(
        self,
        host_kube: Kube,
        members: Mapping[str, ClusterRuntime],
        profile: RuntimeProfile,
        enqueue: Enqueue,
        stop: threading.Event,
        *,
        instance: str,
        ignored: Callable[[str], None] = lambda _cause: None,
        enqueue_after: Callable[[Key, float, str], None],
        health_period: float = 2.0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.members, self.enqueue, self.stop, self.now, self.ignored = members, enqueue, stop, now, ignored
        # required: a fallback that queued at once made every shard's news a reconcile of its own (no coalescing)
        self.enqueue_after = enqueue_after
        self.shard_news = ShardNews()
        self.host = HostRuntime(host_kube, enqueue, on_members_changed=self.requeue_all, ignored=ignored)
        self.events = EventRecorder(host_kube, instance)
        self.health = MemberHealth(self.host, members, self._member_changed, period=health_period, now=now)
        self.seen: dict[tuple[str, str, str, str], datetime] = {}
        self.admitter = Admitter(self.host, profile, self.events, enqueue, daemon_nodes=self._node_total, now=now)
        self.propagator = Propagator(
            self.host, members, self.health, profile, self.events, now=now, seen=self.seen, news=self.shard_news
        )
        for name, member in members.items():
            member.observers.append(self._shard_observer(name))

    @property
    def name(self) -> str:
        return self.host.name

    def start(self) -> None:
        """Host watches, a first probe of every member (placement needs their nodes), then the loops."""
        self.host.start()
        if not self.host.wait_synced(SYNC_TIMEOUT):
            log.warning("host watches not synced after %.0fs; going on (the store fills as they do)", SYNC_TIMEOUT)
        self.health.check_all()
        threading.Thread(target=self.health.run, args=(self.stop,), name="member-health", daemon=True).start()
        threading.Thread(target=self._sweep_loop, name="federation-sweep", daemon=True).start()
        self.requeue_all("start")

    def close(self, timeout: float = 5.0) -> bool:
        return self.host.close(timeout)

    def process(self, key: Key) -> Outcome:
        if key.kind == ADMISSION:
            self.admitter.run(key.namespace)
            return Outcome()
        return self.propagator.reconcile(key)

    def all_keys(self) -> list[Key]:
        namespaces = {k.namespace for k in self.host.all_keys()} | {
            str(q["metadata"].get("namespace")) for q in self.host.store.list(QUOTA.kind)
        }
        return [Key(self.name, ADMISSION, ns, "") for ns in sorted(namespaces)] + self.host.all_keys()

    def requeue_all(self, cause: str = "members_changed") -> None:
        for key in self.host.all_keys():
            self.enqueue(key, cause)

    # -- member side ------------------------------------------------------------------------------------

    def _shard_observer(self, cluster: str) -> Callable[[str, dict[str, Any]], None]:
        def observe(event: str, obj: dict[str, Any]) -> None:
            meta = obj.get("metadata") or {}
            if (meta.get("labels") or {}).get(FEDERATED_LABEL) != "true":
                return
            kind, namespace, name = str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name"))
            shard = (cluster, kind, namespace, name)
            self.seen[shard] = self.now()
            delay = self.shard_news.delay(shard, event, obj)
            if delay is not None:
                self.enqueue_after(Key(self.name, kind, namespace, name), delay, "shard_event")
            else:
                self.ignored("shard_echo")

        return observe

    def _member_changed(self, _member: str) -> None:
        self.requeue_all("member_health")

    def _node_total(self) -> int:
        return sum((self.health.nodes(name) or NodeSummary()).count for name in self.members) or 1

    def _sweep_loop(self) -> None:
        """Once every member's watches have synced (so an absent shard is really absent), then periodically."""
        for member in self.members.values():
            member.wait_synced(SYNC_TIMEOUT)
        self.sweep()
        while not self.stop.wait(SWEEP_PERIOD):
            self.sweep()

    def sweep(self) -> int:
        """Requeue the host key of every federated shard whose host object is gone (its reconcile prunes it):
        a host object force-deleted past its finalizer, or deleted while this controller was down."""
        if not self.host.synced():
            return 0
        found = 0
        for member in self.members.values():
            for kind in KINDS:
                for shard in member.store.list(kind, label_selector={FEDERATED_LABEL: "true"}):
                    meta = shard["metadata"]
                    if self.host.workload(kind, meta["namespace"], meta["name"]) is None:
                        self.enqueue(Key(self.name, kind, meta["namespace"], meta["name"]), "sweep")
                        found += 1
        return found
