"""Stable placement: an edit does not move shards unless the user asks or a cluster goes away.

The scheduler (``cluster_scheduling.place``) answers from scratch: rescoring after an edit could put a
shard elsewhere. ``stabilize`` keeps each previous shard where it is while its cluster is still
available, and takes from the fresh decision only what it must: how many shards, how many replicas
each, and where a shard goes when it has no previous home (a new zone, or its cluster was removed or
became infeasible). With ``replace`` (the user asked to re-place) the fresh decision wins outright.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from pincompute.cluster_scheduling import ClusterCandidate, PlacementRequest, place
from pincompute.errors import NoFeasibleCluster
from pincompute.placement import Placement

EVERYWHERE_KINDS = frozenset({"PinterestDaemon"})
"""Kinds placed on every feasible cluster: nothing to keep, adding or dropping a cluster moves nothing."""


def staying_clusters(request: PlacementRequest, candidates: Sequence[ClusterCandidate]) -> frozenset[str]:
    """The candidates a shard may stay on: members that pass the scheduler's filters (role, schedulable,
    healthy, zones, hardware, labels, taints, node size). Capacity is not re-checked: a running shard
    already holds what it uses, which the scheduler counts as used."""
    probe = dataclasses.replace(request, kind="PinPod", replicas=0, zones=None, spread=False)
    staying = set()
    for candidate in candidates:
        if request.zones and candidate.zone not in request.zones:
            continue
        try:
            place(probe, [candidate])
        except NoFeasibleCluster:
            continue
        staying.add(candidate.name)
    return frozenset(staying)


def stabilize(
    request: PlacementRequest,
    previous: Sequence[Placement],
    fresh: Sequence[Placement],
    *,
    available: Collection[str],
    replace: bool = False,
) -> list[Placement]:
    """The shards to run: ``fresh``'s count and replicas, ``previous``'s homes where still ``available``.

    Each fresh shard (a slot) takes, in this order: the previous shard on the same cluster and zone; the
    previous shard in the same zone; any previous shard not taken yet (a rescored spread must not move
    it); else the fresh choice. Previous shards left over once the slots are full are dropped (fewer
    shards are needed). Shard indexes follow the slots; replicas are the fresh slot's.
    """
    if replace or not previous or request.kind in EVERYWHERE_KINDS:
        return list(fresh)
    keep = [p for p in sorted(previous, key=lambda p: p.shard_index) if p.cluster in available]
    homes: list[Placement | None] = [None] * len(fresh)
    for same in (
        lambda f, p: (f.cluster, f.zone) == (p.cluster, p.zone),
        lambda f, p: f.zone == p.zone,
    ):
        for slot, shard in enumerate(fresh):
            if homes[slot] is None:
                match = next((p for p in keep if same(shard, p)), None)
                if match is not None:
                    homes[slot] = match
                    keep.remove(match)
    for slot in range(len(fresh)):
        if homes[slot] is None and keep:
            homes[slot] = keep.pop(0)
    result = []
    for slot, shard in enumerate(fresh):
        home = homes[slot] or shard  # fresh homes are distinct (place() gives one shard per zone or cluster)
        result.append(Placement(home.cluster, home.zone, home.region, slot, len(fresh), shard.replicas))
    return result
