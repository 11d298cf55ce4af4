"""The propagator's failover step: which placed members a workload has lost, the new shards, what is in flight.

Losses come from ``MemberHealth`` (unreachable, or no schedulable node, since when) and the host's
``MemberCluster`` objects (a drain). The moves are recorded in ``status.placement.failover`` with the placement
(so a crash resumes with them) and dropped once their source member is back and holds no shard of the workload;
until then they count against the policy's surge. A drained member's shard of a serving kind stays until the
shards that took its replicas are ready (``retiring``): the replicas move before the old ones go.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest
from pincompute.federation.failover import (
    DRAINED,
    FailoverPlan,
    MemberLoss,
    fail_over,
    failover_rows,
    in_flight,
    lost_members,
)
from pincompute.federation.members import drain_of
from pincompute.federation.propagation import REPLICA_KINDS
from pincompute.federation.rollout import LiveShard
from pincompute.kinds import KINDS, Category
from pincompute.operator.cluster import ClusterRuntime
from pincompute.operator.federation.host import HostRuntime
from pincompute.operator.federation.member_health import MemberHealth
from pincompute.placement import Placement
from pincompute.specs.failover import failover_policy
from pincompute.status import rfc3339

SUCCEEDED = "Succeeded"


class Failover:
    def __init__(
        self,
        host: HostRuntime,
        members: Mapping[str, ClusterRuntime],
        health: MemberHealth,
        now: Callable[[], datetime],
    ) -> None:
        self.host, self.members, self.health, self.now = host, members, health, now

    def losses(self) -> dict[str, MemberLoss]:
        out = {name: loss for name, loss in self.health.losses().items() if name in self.members}
        for member in self.host.members():
            drain = drain_of(member)
            if drain is not None and drain.member not in out:
                out[drain.member] = drain
        return out

    def plan(
        self,
        obj: Mapping[str, Any],
        request: PlacementRequest,
        shards: Sequence[Placement],
        candidates: Sequence[ClusterCandidate],
    ) -> tuple[FailoverPlan | None, list[dict[str, Any]]]:
        """The plan for ``shards`` (None: nothing placed on a lost member) and the recorded moves still kept."""
        kind = str(obj["kind"])
        losses = self.losses()
        rows = [r for r in self._rows(obj) if not self._settled(obj, r, losses)]
        policy = failover_policy(kind, obj.get("spec") or {})
        serving = KINDS[kind].category is not Category.RUN_TO_FINISH
        finished = () if serving else [name for name in losses if self._succeeded(obj, name)]
        lost = lost_members(losses, self.now(), policy, serving=serving, finished=finished)
        lost = {name: loss for name, loss in lost.items() if any(s.cluster == name for s in shards)}
        if not lost:
            return None, rows
        running = {name for name in losses if self._holds(obj, name) or not self.health.reachable(name)}
        budget = policy.surge(request.replicas) - in_flight(rows, running)
        plan = fail_over(request, shards, candidates, lost, budget=budget)
        return plan, rows + failover_rows(plan.moves, rfc3339(self.now()))

    def next_due(self, obj: Mapping[str, Any], shards: Sequence[Placement]) -> float | None:
        """Seconds until a member this workload runs on has been lost for its grace, or a drain reaches its jobs
        deadline (None: nothing pending): its reconcile comes back then, as nothing else requeues it."""
        policy = failover_policy(str(obj["kind"]), obj.get("spec") or {})
        placed = {s.cluster for s in shards}
        now = self.now()
        waits = []
        for name, loss in self.losses().items():
            if name not in placed:
                continue
            if loss.reason == DRAINED:  # a job's shard moves at the drain's deadline
                waits.append((loss.deadline - now).total_seconds() if loss.deadline else 0.0)
            elif policy.enabled:
                waits.append(policy.after_seconds - (now - loss.since).total_seconds())
        pending = [w for w in waits if w > 0]
        return min(pending) + 0.1 if pending else None

    def retiring(self, obj: Mapping[str, Any], shards: Sequence[Placement]) -> set[str]:
        """Drained members whose shard stays until the shards that took its replicas are ready."""
        if str(obj["kind"]) not in REPLICA_KINDS:
            return set()
        by_cluster = {s.cluster: s for s in shards}
        out = set()
        for row in self._rows(obj):
            source, target = str(row.get("from")), str(row.get("to"))
            if row.get("cause") != DRAINED or source in by_cluster or not self._holds(obj, source):
                continue
            if not self._ready(obj, by_cluster.get(target)):
                out.add(source)
        return out

    def _rows(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        return list(((obj.get("status") or {}).get("placement") or {}).get("failover") or [])

    def _settled(self, obj: Mapping[str, Any], row: Mapping[str, Any], losses: Mapping[str, MemberLoss]) -> bool:
        """A move is over once its source is reachable and runs no shard of the workload any more."""
        source = str(row.get("from"))
        if source not in self.members or not self.health.reachable(source):
            return False
        return not self._holds(obj, source) and (source not in losses or losses[source].reason == DRAINED)

    def _shard(self, obj: Mapping[str, Any], cluster: str) -> dict[str, Any] | None:
        """The workload's shard on member ``cluster`` as its cache holds it (None: none, or no such member)."""
        member = self.members.get(cluster)
        meta = obj["metadata"]
        return member.get_cr(str(obj["kind"]), meta["namespace"], meta["name"]) if member is not None else None

    def _holds(self, obj: Mapping[str, Any], cluster: str) -> bool:
        return self._shard(obj, cluster) is not None

    def _succeeded(self, obj: Mapping[str, Any], cluster: str) -> bool:
        """Whether the workload's shard on ``cluster`` succeeded (a Failed one may be crash-looping: not finished)."""
        live = self._shard(obj, cluster)
        return live is not None and (live.get("status") or {}).get("phase") == SUCCEEDED

    def _ready(self, obj: Mapping[str, Any], placement: Placement | None) -> bool:
        if placement is None:
            return False
        live = self._shard(obj, placement.cluster)
        if live is None:
            return False
        shard = LiveShard.of(live)
        wanted = placement.replicas if placement.replicas is not None else 1
        return shard.ready and shard.observed_generation >= shard.generation and shard.available >= wanted
