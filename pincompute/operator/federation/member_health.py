"""Whether the federation reaches each member, since when, and what nodes it has.

A loop probes every member's apiserver (``/version``, short timeouts) every ``period`` seconds and lists its
nodes every ``node_period`` seconds; a change of reachability calls ``on_change(member)`` so the host
objects with a shard there show it (an unreachable shard is Unknown "since ..."; its placement stays:
a member that comes back converges, nothing is moved for a blip). The result is also written into the
``MemberCluster`` object's status on the host (Ready, node count, largest node, allocatable), which is
what an operator running ``kubectl get memberclusters`` sees.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from pincompute.errors import CoreError, NotFound
from pincompute.federation.failover import NO_NODES, UNREACHABLE, MemberLoss
from pincompute.federation.members import NodeSummary, member_status
from pincompute.operator.cluster import ClusterRuntime
from pincompute.operator.federation.host import MEMBERS, HostRuntime
from pincompute.operator.kubeio import NODE

log = logging.getLogger(__name__)
PROBE_TIMEOUT = (1.5, 2.0)


@dataclass(frozen=True)
class MemberState:
    reachable: bool
    since: datetime
    message: str = ""
    nodes: NodeSummary | None = None
    nodes_at: float = 0.0
    no_nodes_since: datetime | None = None  # reachable, but no schedulable node since


class MemberHealth:
    def __init__(
        self,
        host: HostRuntime,
        members: Mapping[str, ClusterRuntime],
        on_change: Callable[[str], None],
        *,
        period: float = 2.0,
        node_period: float = 30.0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host, self.members, self.on_change = host, members, on_change
        self.period, self.node_period, self.now = period, node_period, now
        self.clock = clock
        self.states: dict[str, MemberState] = {}
        self._written: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def reachable(self, member: str) -> bool:
        state = self.states.get(member)
        return state is not None and state.reachable

    def state(self, member: str) -> MemberState | None:
        return self.states.get(member)

    def nodes(self, member: str) -> NodeSummary | None:
        state = self.states.get(member)
        return state.nodes if state else None

    def losses(self) -> dict[str, MemberLoss]:
        """Every member that cannot run shards now: unreachable, or without a schedulable node, and since when."""
        out = {}
        for name, state in list(self.states.items()):
            if not state.reachable:
                out[name] = MemberLoss(name, UNREACHABLE, state.since)
            elif state.no_nodes_since is not None:
                out[name] = MemberLoss(name, NO_NODES, state.no_nodes_since)
        return out

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(self.period):
            self.check_all()

    def check_all(self) -> None:
        for name in list(self.members):
            try:
                self.check(name)
            except Exception:  # a bug in one member's probe must not end the loop for the others
                log.exception("member health of %s", name)

    def check(self, name: str) -> MemberState:
        kube = self.members[name].kube
        before = self.states.get(name)
        try:
            kube.request("GET", "/version", timeout=PROBE_TIMEOUT)
            ok, message = True, ""
        except CoreError as exc:
            ok, message = False, f"{name}: {exc}"[:300]
        if before is None or before.reachable != ok:
            since = self._recorded_since(name, ok) if before is None else self.now()
            state = MemberState(ok, since, message, before.nodes if before else None, 0.0, None)
        else:
            state = replace(before, message=message)
        if ok and (state.nodes is None or self.clock() - state.nodes_at >= self.node_period):
            state = self._list_nodes(name, state)
        with self._lock:
            self.states[name] = state
        if before is None or before.reachable != ok:
            log.info("member %s %s", name, "reachable" if ok else f"unreachable: {message}")
            self.on_change(name)
        self._write_status(name, state)
        return state

    def _list_nodes(self, name: str, state: MemberState) -> MemberState:
        try:
            nodes = self.members[name].kube.list(NODE, limit=500).get("items") or []
        except CoreError as exc:
            log.warning("%s: cannot list nodes (%s)", name, exc)
            return state
        summary = NodeSummary.of(nodes)
        if state.nodes != summary and state.nodes is not None:
            self.on_change(name)
        no_nodes = None if summary.count else (state.no_nodes_since or self.now())
        return replace(state, nodes=summary, nodes_at=self.clock(), no_nodes_since=no_nodes)

    def _recorded_since(self, name: str, reachable: bool) -> datetime:
        """Since when the host's ``MemberCluster`` says it has been as it is now (a restarted controller keeps
        counting a failover grace from there), else now."""
        obj = self.host.store.get(MEMBERS.kind, None, name) or {}
        ready: Mapping[str, Any] = next(
            (c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), {}
        )
        if ready.get("status") == ("True" if reachable else "False") and ready.get("lastTransitionTime"):
            try:
                return datetime.fromisoformat(str(ready["lastTransitionTime"]).replace("Z", "+00:00"))
            except ValueError:
                pass
        return self.now()

    def _write_status(self, name: str, state: MemberState) -> None:
        obj = self.host.store.get(MEMBERS.kind, None, name)
        if obj is None:
            return  # not in the registry (yet): nothing to report on
        generation = int((obj.get("metadata") or {}).get("generation") or 0)
        message = state.message or f"probed {name}'s apiserver"
        status = member_status(
            reachable=state.reachable, since=state.since, message=message, nodes=state.nodes, generation=generation
        )
        if self._written.get(name) == status or _same(obj.get("status") or {}, status):
            self._written[name] = status
            return
        try:
            result = self.host.kube.patch(MEMBERS, None, name, {"status": status}, sub="status")
        except NotFound:
            return
        except CoreError as exc:
            log.info("cannot write %s's status (%s)", name, exc)
            return
        self._written[name] = status
        self.host.remember(result)


def _same(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    return all(old.get(k) == v for k, v in new.items())
