"""Failover: the replicas of a lost member's shards placed on other members that fit.

A member is lost for a workload when it has been unreachable, or without a schedulable node, for longer than the
workload's ``spec.failover.afterSeconds`` (``lost_members``), or when an admin drains it (at once). ``fail_over``
moves the lost shards' replicas to the other members that pass the scheduler's filters and have the tier's headroom
(the pools, as ``place`` counts them), best score first: a replica kind's replicas may join a shard the workload
already runs on a member or split over several; any other kind's shard moves whole, to a member without one.

A lost member's pods may still be running (a partition is not a crash), so every moved replica counts as a surge
above the count until the member returns and its stale shard is removed: ``budget`` (the policy's ``maxSurge`` less
what is already in flight) bounds the replicas moved, and the placement's replicas never sum to more than the
request's. The shards that stay keep their index (a changed index would roll their pods).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place, score
from pincompute.errors import NoFeasibleCluster
from pincompute.federation.propagation import REPLICA_KINDS
from pincompute.placement import Placement
from pincompute.specs.failover import FailoverPolicy
from pincompute.specs.schema import Arr, Field, Int, Str, obj

UNREACHABLE = "unreachable"
NO_NODES = "has no schedulable node"
DRAINED = "is drained"


@dataclass(frozen=True)
class MemberLoss:
    """Why a member cannot run its shards (``UNREACHABLE``, ``NO_NODES``, ``DRAINED``), since when, and for a drain
    until when a job may finish there first."""

    member: str
    reason: str
    since: datetime
    deadline: datetime | None = None

    def describe(self) -> str:
        return f"{self.member} {self.reason} since {self.since.strftime('%Y-%m-%dT%H:%M:%SZ')}"


def lost_members(
    losses: Mapping[str, MemberLoss],
    now: datetime,
    policy: FailoverPolicy,
    *,
    serving: bool,
    finished: Collection[str] = (),
) -> dict[str, MemberLoss]:
    """The losses a workload moves off now. A drain moves a ``serving`` kind (every kind that does not run to an end:
    PinApp, PinPod, services, daemons) at once and a run-to-finish kind at the drain's deadline, unless its shard
    there has succeeded (``finished``: those members; moved, it would run again elsewhere); unreachable or node-less
    members count when the policy is enabled and its grace has passed."""
    out = {}
    for name, loss in losses.items():
        if loss.reason == DRAINED:
            due = serving or (name not in finished and loss.deadline is not None and now >= loss.deadline)
        else:
            due = policy.enabled and (now - loss.since).total_seconds() >= policy.after_seconds
        if due:
            out[name] = loss
    return out


@dataclass(frozen=True)
class Move:
    source: str
    target: str
    replicas: int
    reason: str  # the loss in words (``MemberLoss.describe``)
    cause: str = UNREACHABLE  # the loss's kind: UNREACHABLE, NO_NODES or DRAINED


@dataclass(frozen=True)
class FailoverPlan:
    """The shards to run, the moves that made them, the replicas left on lost members (no room or no budget)
    and why each other member could not take them."""

    shards: list[Placement]
    moves: list[Move] = field(default_factory=list)
    stranded: int = 0
    rejected: dict[str, list[str]] = field(default_factory=dict)


def _replicas(shard: Placement) -> int:
    return shard.replicas if shard.replicas is not None else 1


def room(request: PlacementRequest, candidate: ClusterCandidate, limit: int) -> tuple[int, list[str]]:
    """The most replicas (up to ``limit``) of ``request`` that ``candidate`` can hold, and why not more."""
    if request.zones and candidate.zone not in request.zones:
        return 0, [f"is in zone {candidate.zone}, not in the requested {', '.join(request.zones)}"]

    def fits(n: int) -> list[str]:
        probe = dataclasses.replace(request, kind="PinPod", replicas=n, zones=None, spread=False)
        try:
            place(probe, [candidate])
        except NoFeasibleCluster as exc:
            return list(exc.reasons.get(candidate.name) or [str(exc)])
        return []

    reasons = fits(0)
    if reasons:
        return 0, reasons
    low, high = 0, limit  # fits(low) holds; find the largest n <= limit that fits
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            high = mid - 1
        else:
            low = mid
    return low, ([] if low == limit else fits(low + 1))


def fail_over(
    request: PlacementRequest,
    shards: Sequence[Placement],
    candidates: Sequence[ClusterCandidate],
    lost: Mapping[str, MemberLoss],
    *,
    budget: int,
) -> FailoverPlan:
    """Move the replicas of ``shards`` on ``lost`` members to the other ``candidates`` (at most ``budget``).

    ``candidates`` count what other workloads placed (``tier_requested``), not this one's own shards: a member's
    room for this workload is for its own replicas there plus the moved ones."""
    kept = [s for s in shards if s.cluster not in lost]
    losing = sorted((s for s in shards if s.cluster in lost), key=lambda s: s.shard_index)
    if not losing:
        return FailoverPlan(list(shards))
    divisible = request.kind in REPLICA_KINDS
    own = {s.cluster: _replicas(s) for s in kept}
    others = {c.name: c for c in candidates if c.name not in lost}
    total_lost = sum(_replicas(s) for s in losing)
    rejected: dict[str, list[str]] = {}
    capacity: dict[str, int] = {}
    for name, candidate in others.items():
        fits, reasons = room(request, candidate, own.get(name, 0) + total_lost)
        capacity[name] = fits - own.get(name, 0) if divisible or name not in own else 0
        if capacity[name] < total_lost:
            rejected[name] = reasons or ["already runs a shard of this workload"]
    added: dict[str, int] = {}
    moves: list[Move] = []
    remaining = max(0, budget)
    left: dict[str, int] = {}
    for source in losing:
        want = _replicas(source)
        moved: dict[str, int] = {}
        if divisible:
            for _ in range(min(want, remaining)):
                target = _best(request, others, capacity, own, added)
                if target is None:
                    break
                moved[target] = moved.get(target, 0) + 1
                added[target] = added.get(target, 0) + 1
                capacity[target] -= 1
        elif want <= remaining:
            whole = [n for n in others if n not in own and n not in added and capacity[n] >= want]
            if whole:
                target = max(whole, key=lambda n: (score(request, others[n], want), n))
                moved[target] = added[target] = want
                capacity[target] -= want
        remaining -= sum(moved.values())
        left[source.cluster] = want - sum(moved.values())
        loss = lost[source.cluster]
        moves += [Move(source.cluster, t, n, loss.describe(), loss.reason) for t, n in sorted(moved.items())]
    out = {s.cluster: s for s in kept}
    out.update({s.cluster: dataclasses.replace(s, replicas=left[s.cluster]) for s in losing if left[s.cluster]})
    next_index = max(s.shard_index for s in shards) + 1
    for target, count in sorted(added.items()):
        if target in out:
            out[target] = dataclasses.replace(out[target], replicas=_replicas(out[target]) + count)
            continue
        home = next(s for s in losing if s.cluster == next(m.source for m in moves if m.target == target))
        sole = [m.target for m in moves if m.source == home.cluster] == [target] and not left[home.cluster]
        index = home.shard_index if sole else next_index
        next_index += 0 if sole else 1
        cluster = others[target]
        out[target] = Placement(cluster.name, cluster.zone, cluster.region, index, home.shard_count, count)
    final = sorted(out.values(), key=lambda s: (s.shard_index, s.cluster))
    return FailoverPlan(final, moves, sum(left.values()), rejected)


def _best(
    request: PlacementRequest,
    by_name: Mapping[str, ClusterCandidate],
    capacity: Mapping[str, int],
    own: Mapping[str, int],
    added: Mapping[str, int],
) -> str | None:
    fitting = [n for n, left in capacity.items() if left > 0]
    if not fitting:
        return None
    return max(
        fitting,
        key=lambda n: (score(request, by_name[n], own.get(n, 0) + added.get(n, 0) + 1), n in own, n),
    )


FAILOVER_STATUS_FIELDS = (
    Field(
        "failover",
        Arr(
            items=obj(
                Field("from", Str(description="The lost member."), required=True),
                Field("to", Str(description="The member that took its replicas."), required=True),
                Field("replicas", Int(description="How many replicas moved.")),
                Field("reason", Str(description="Why: the member's loss and since when.")),
                Field("cause", Str(description="unreachable, has no schedulable node, or is drained.")),
                Field("at", Str(description="When they moved (RFC 3339).")),
                description="Replicas moved off a lost member.",
            ),
            description="Moves still in flight: kept until the lost member is back and holds no shard of this.",
        ),
    ),
    Field("failoverMessage", Str(description="The moves in one sentence (the Scheduled condition's FailedOver).")),
)
"""``status.placement``'s failover fields (``failover_rows``, ``describe``), as the host CRDs declare them."""


def failover_rows(moves: Sequence[Move], at: str) -> list[dict[str, object]]:
    """The moves as ``status.placement.failover`` records them (kept while their source may still run pods)."""
    return [
        {"from": m.source, "to": m.target, "replicas": m.replicas, "reason": m.reason, "cause": m.cause, "at": at}
        for m in moves
    ]


def in_flight(rows: Sequence[Mapping[str, object]], lost: Collection[str]) -> int:
    """Replicas moved off members still lost: their pods there may be running beside the moved ones."""
    return sum(int(str(row.get("replicas") or 0)) for row in rows if row.get("from") in lost)


def describe(rows: Sequence[Mapping[str, object]], plan: FailoverPlan | None = None) -> str:
    """The moves (``failover_rows``) in one sentence for the host's ``Scheduled`` condition, with what ``plan``
    could not move."""
    parts = [f"{r['replicas']} replica(s) from {r['from']} to {r['to']}" for r in rows]
    reasons = sorted({str(r.get("reason")) for r in rows})
    text = f"failed over {', '.join(parts)} ({'; '.join(reasons)})" if parts else ""
    if plan is not None and plan.stranded:
        why = "; ".join(f"{name}: {', '.join(r)}" for name, r in sorted(plan.rejected.items())) or "no surge left"
        text += f"{'; ' if text else ''}{plan.stranded} replica(s) could not move ({why})"
    return text
