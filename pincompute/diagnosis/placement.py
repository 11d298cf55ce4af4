"""The cause when no member cluster fits: each cluster's first reason from ``cluster_scheduling.place``, said short
("member-a filtered by zone", "member-b's Reserved pool is full: cpu 40 of 40 used, 4 needed")."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pincompute.cluster_scheduling import ClusterCandidate
from pincompute.conditions import condition_of
from pincompute.diagnosis.admission import tier_of
from pincompute.diagnosis.model import Diagnosis, Evidence, State, Target
from pincompute.diagnosis.text import clause, names, sentence
from pincompute.quantity import Resources, format_amount
from pincompute.tiers import Tier

_HEADROOM = re.compile(r"^(\w+) headroom for (\d+) replica\(s\): (\w+) (\S+) left, (\S+) needed")
_FILTERS: tuple[tuple[str, str], ...] = (
    ("is a ", "is not a member cluster"),
    ("is not schedulable", "is closed to new workloads"),
    ("is unhealthy", "is unreachable"),
    ("is in zone ", "filtered by zone"),
    ("does not have label ", "filtered by node selector"),
)
KNOWN_FORMS = ("is a ", "is not schedulable", "is unhealthy", "is in zone ", "has no ", "does not have label ",
               "has taint ", "one replica needs ", "headroom for ")  # fmt: skip
"""The beginnings of every reason ``cluster_scheduling`` gives (its tests check that each is said short here)."""


def short_reason(cluster: str, reason: str, candidate: ClusterCandidate | None, tier: Tier | None) -> str:
    """One rejection reason of ``cluster`` as a few words starting with its name."""
    for start, said in _FILTERS:
        if reason.startswith(start):
            return f"{cluster} {said}"
    if reason.startswith("has no "):
        return f"{cluster} {clause(reason.split(' (')[0])}"
    if reason.startswith("has taint "):
        return f"{cluster} filtered by taint {reason.split()[2]}"
    if reason.startswith("one replica needs "):
        return f"{cluster}'s largest node is too small ({clause(reason.removeprefix('one replica needs '))})"
    full = _HEADROOM.match(reason)
    if full is not None:
        pool, _, resource, left, needed = full.groups()
        used = _used(candidate, tier, resource)
        said = f"{used}, {needed} needed" if used else f"{left} {resource} left, {needed} needed"
        return f"{cluster}'s {pool} pool is full: {said}"
    return f"{cluster} {clause(reason)}"


def _used(candidate: ClusterCandidate | None, tier: Tier | None, resource: str) -> str:
    """``cpu 40 of 40 used`` in ``tier``'s pool of ``candidate``, "" when unknown."""
    if candidate is None or tier is None or resource not in ("cpu", "memory", "gpu"):
        return ""
    capacity = candidate.capacity(tier).amounts()[resource]
    if tier is Tier.PREEMPTIBLE:
        requested = sum((candidate.tier_requested.get(t, Resources()) for t in Tier), Resources())
    else:
        requested = candidate.tier_requested.get(tier, Resources())
    used = requested.amounts()[resource]
    return f"{resource} {format_amount(resource, used)} of {format_amount(resource, capacity)} used"


def placement_cause(evidence: Evidence) -> Diagnosis | None:
    """Admitted, but no member cluster can run it (``Scheduled=False``, ``Unschedulable``)."""
    scheduled = condition_of(evidence.workload, "Scheduled")
    phase = str((evidence.workload.get("status") or {}).get("phase") or "")
    if phase != "Unschedulable" and scheduled.get("reason") != "Unschedulable":
        return None
    tier = tier_of(evidence.workload)
    by_name = {c.name: c for c in evidence.candidates}
    said = [
        short_reason(cluster, str(reasons[0]), by_name.get(cluster), tier)
        for cluster, reasons in sorted(evidence.rejected.items())
        if reasons
    ]
    if said:
        cause = f"No cluster fits: {names(said, most=4)}"
    elif evidence.candidates or evidence.rejected:
        cause = f"No cluster fits: {clause(scheduled.get('message') or 'every member cluster was filtered')}"
    else:
        cause = f"No cluster fits: {clause(scheduled.get('message') or 'no member cluster is registered')}"
    return Diagnosis(
        State.NO_CLUSTER_FITS,
        sentence(cause),
        _placement_step(evidence.rejected),
        Target.SPEC if _user_fixable(evidence.rejected) else Target.CLUSTERS,
    )


def _user_fixable(rejected: Mapping[str, Sequence[str]]) -> bool:
    firsts = [str(r[0]) for r in rejected.values() if r]
    return any(
        r.startswith(("is in zone ", "does not have label ", "has taint ", "has no ", "one replica")) for r in firsts
    )


def _placement_step(rejected: Mapping[str, Sequence[str]]) -> str:
    if _user_fixable(rejected):
        return (
            "Change the spec so a member can take it (its zones, node selector, tolerations, hardware or a "
            "replica's size), or ask a platform admin for room; it is placed by itself once one fits."
        )
    return (
        "Ask a platform admin for room in the members' pools or to reopen a member; it is placed by itself once one "
        "fits."
    )
