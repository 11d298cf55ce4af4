"""Whether a previewed workload's pods find a node now, beyond the grant and the federation's cluster filters: the
preview's "fits later" explanation (``pincompute.largest_fit.room_now``: "12 cpu free in OnDemand on member-a but at
most 3 on one node"), and the tier's largest pod that fits now on each member (``projects.fit_now``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pincompute.federation.propagation import placement_request
from pincompute.largest_fit import room_now
from pincompute.placement import Placement
from pincompute.specs import Workload
from projects.fit_now import fit_now
from projects.models import Project
from workloads import submission


@dataclass(frozen=True)
class RoomNow:
    """``later``: per chosen member (every member when none is chosen) where no node takes one pod now, why;
    ``largest``: the tier's largest fitting pod per member, as people read it."""

    later: list[str] = field(default_factory=list)
    largest: list[str] = field(default_factory=list)


def room_of(project: Project, workload: Workload, shards: Sequence[Placement]) -> RoomNow | None:
    """None for a kind that runs no pods of its own (a PinScaler)."""
    request = placement_request(workload, submission.profile())
    if request is None:
        return None
    fit = fit_now(project)
    tier = fit.tier(request.tier)
    chosen = {p.cluster for p in shards}
    later = []
    for member in fit.members:
        if chosen and member.candidate.name not in chosen:
            continue
        why = room_now(request.tier, member.candidate, member.nodes, request.request_per_replica, request.tolerations)
        if why:
            later.append(why)
    return RoomNow(later, [c.describe() for c in tier.clusters])
