"""The host object's status from what each member cluster reports about its shard.

The controller watches each member's shard CR and hands over one observation per member: the shard's
status as last seen, or ``reachable=False`` with since when the member's watch is down. The
aggregation itself is ``status.aggregate_shards`` (one of each mechanism); this module turns a bag of
observations, in any order and with repeats, into its input: per cluster the newest observation wins.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pincompute.status import FederatedStatus, aggregate_shards, rfc3339


@dataclass(frozen=True)
class ShardObservation:
    """A member's shard as last observed: ``status`` is the member CR's status (None: never seen).

    ``reachable=False`` marks a member whose watch is down since ``since``; its last known ``status``
    may still be given (desired replicas, phase and conditions are kept, nothing counts as ready).
    """

    cluster: str
    zone: str = ""
    status: Mapping[str, Any] | None = None
    seen_at: datetime | None = None
    reachable: bool = True
    since: datetime | None = None

    @property
    def recency(self) -> tuple[str, str, str]:
        """Which of two observations of one cluster is newer: the later of ``seen_at``/``since``, then a
        canonical dump of the rest (so that the choice never depends on the order of the inputs)."""
        times = [rfc3339(t) for t in (self.seen_at, self.since) if t is not None]
        dump = json.dumps(
            [self.zone, self.status, self.reachable, str(self.seen_at), str(self.since)], sort_keys=True, default=str
        )
        return (max(times, default=""), "0" if self.reachable else "1", dump)


@dataclass(frozen=True)
class Aggregation:
    """The inputs of ``status.aggregate_shards`` gathered from observations."""

    statuses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    unreachable: Mapping[str, str] = field(default_factory=dict)
    zones: Mapping[str, str] = field(default_factory=dict)
    last_seen: Mapping[str, str] = field(default_factory=dict)


def latest(observations: Iterable[ShardObservation]) -> dict[str, ShardObservation]:
    """The newest observation of each cluster."""
    newest: dict[str, ShardObservation] = {}
    for observation in observations:
        known = newest.get(observation.cluster)
        if known is None or observation.recency > known.recency:
            newest[observation.cluster] = observation
    return newest


def gather(observations: Iterable[ShardObservation]) -> Aggregation:
    newest = latest(observations)
    statuses = {c: o.status for c, o in newest.items() if o.status is not None}
    unreachable = {c: rfc3339(o.since) if o.since else "unknown" for c, o in newest.items() if not o.reachable}
    zones = {c: o.zone for c, o in newest.items() if o.zone}
    seen = {c: rfc3339(o.seen_at) for c, o in newest.items() if o.seen_at is not None}
    # A reachable member that has not reported its shard yet still has a row (no Ready: not ready).
    statuses.update({c: {} for c, o in newest.items() if o.reachable and o.status is None})
    return Aggregation(statuses, unreachable, zones, seen)


def aggregate(observations: Iterable[ShardObservation]) -> FederatedStatus:
    """The host object's status: per-cluster rows, totals and Ready/Progressing/Degraded with reasons.

    Independent of the order of ``observations`` and idempotent (repeating an observation changes
    nothing): a pure function of the newest observation per cluster.
    """
    gathered = gather(observations)
    return aggregate_shards(
        gathered.statuses, unreachable=gathered.unreachable, zones=gathered.zones, last_seen=gathered.last_seen
    )
