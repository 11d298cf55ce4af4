"""Kueue-like admission of a project's workloads against its tier grants.

Per project and tier a workload is admitted when its total requests (and pods) fit the tier's grant
minus what the admitted workloads already hold. Each tier's queue is first come first served, best
effort: workloads are tried oldest first (creation time, then uid), and one that does not fit waits
(``Admitted=False``, reason ``QuotaExceeded``, a message with the numbers) without blocking a later
one that fits; so a waiting workload is only ever passed by one that needs less of some resource.
A resource a workload does not request never stops it (as ``quota.check_fit`` counts).

Admissions of one project must be decided one at a time (the controller serializes them, e.g. one
work-queue key per project), each on the state the previous decision left: ``admit`` keeps the
admitted total within a grant only for the snapshot it is given.

Reclaim: when a tier's grant falls below what its admitted workloads hold, Preemptible workloads lose
their admission newest first: the admitted ones are re-admitted in admission order
(``grants.workloads_beyond``, the queue's own rule), so no workload is reclaimed to keep a newer one.
Reserved and OnDemand workloads are never reclaimed (a grant cannot shrink below their usage); such a
tier admits nothing more of an over-held resource until it fits again.

Changes of an admitted workload (a scale, an edit, a kubectl patch of the host object): an admitted
workload holds what was admitted, recorded on its host object (``status.admission``: the generation, the
spec's hash, the tier and the claim), not what its spec asks now. A change is a second claim of the same
workload (``changes``): one that grows nothing (same tier, no resource above what it holds) is admitted at
once; one that grows is tried in the workload's queue place against the grant minus what every other
admitted workload holds, and until it fits the workload keeps its admitted generation (the propagator
carries only an admitted spec to the members) and says that the change waits, with the numbers. So the
admitted total never exceeds a grant, whatever is written to the host and in whatever order (as Kubernetes
keeps a pod at its old size while a resize is pending, and Kueue admits a grown workload slice before it
replaces the old one).

PinScaler bounds (``federation.autoscaling``): a PinApp targeted by PinScalers claims ``max(replicas, reach)``
replicas, ``reach`` being the most its scalers' HPAs may run on its zones (the largest ``maxReplicas`` of base bounds
and schedule windows, at least one per zone). The claim is the PinApp's, so the admitted total stays one sum over
the records; a scaler's record holds nothing and names the target and ``maxReplicas`` admitted. A new scaler, a raise
or a retarget is a growth of its PinApp's claim (counted at the larger of old and new until admitted), admitted with
the PinApp's change or waiting (``ChangePending``; the members' HPAs keep the admitted bounds); a lower max is
admitted at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pincompute.grants import ALLOCATION_RESOURCES, Allocation, workloads_beyond
from pincompute.quantity import GPU_RESOURCE, QuantityError, Resources, format_amount, format_cpu, format_memory
from pincompute.quota import NO_OVERHEAD, workload_pods, workload_request
from pincompute.runtime.profile import RuntimeProfile
from pincompute.specs import Workload
from pincompute.status import condition_of
from pincompute.tiers import Tier

CONDITION = "Admitted"
ADMITTED = "Admitted"
QUOTA_EXCEEDED = "QuotaExceeded"
RECLAIMED = "Reclaimed"
CHANGE_PENDING = "ChangePending"
"""The condition of an admitted workload whose newer generation is not admitted (it waits, or is refused)."""

RECLAIMABLE_TIERS = frozenset({Tier.PREEMPTIBLE})


@dataclass(frozen=True)
class Claim:
    """One workload's claim on its project's grant; ``key`` is unique in the project (``Kind/name``)."""

    key: str
    tier: Tier
    request: Allocation
    created: datetime
    uid: str = ""

    @property
    def order(self) -> tuple[datetime, str, str]:
        """Queue order: first come first served (creation time, then uid, then key: a total order)."""
        return (self.created, self.uid, self.key)


def created_at(obj: Mapping[str, Any]) -> datetime:
    """A host object's creation time: its place in the queue."""
    text = str((obj.get("metadata") or {}).get("creationTimestamp") or "1970-01-01T00:00:00Z")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def claim_of(
    workload: Workload,
    created: datetime,
    *,
    profile: RuntimeProfile | None = None,
    node_count: int = 1,
    overhead: Resources = NO_OVERHEAD,
) -> Claim:
    """A workload's claim, counted as the ResourceQuota counts the pods that will exist: the runtime
    profile's containers, native sidecars added, other init containers as a maximum, pod overhead."""
    request = workload_request(workload, profile=profile, node_count=node_count, overhead=overhead)
    pods = workload_pods(workload, node_count=node_count)
    meta = workload.meta
    return Claim(f"{workload.kind}/{meta.name}", meta.tier, Allocation.of(request, pods), created, meta.uid)


@dataclass(frozen=True)
class ScalerBounds:
    """What a PinScaler may make its target run: the PinApp it targets and the largest ``maxReplicas`` it applies."""

    target: str
    max_replicas: int

    def to_status(self) -> dict[str, Any]:
        return {"target": self.target, "maxReplicas": self.max_replicas}

    @classmethod
    def from_status(cls, raw: object) -> ScalerBounds | None:
        if not isinstance(raw, Mapping) or not raw.get("target"):
            return None
        try:
            return cls(str(raw["target"]), int(raw.get("maxReplicas") or 0))
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True)
class Admission:
    """What admission granted a workload, as its host object's ``status.admission`` records it: the generation
    and spec (by hash) admitted, and the claim they hold."""

    generation: int
    spec_hash: str
    tier: Tier
    request: Allocation
    scaler: ScalerBounds | None = None  # a PinScaler's: the target and bounds admitted (``federation.autoscaling``)

    def to_status(self) -> dict[str, Any]:
        amounts = self.request
        scaler = {"scaler": self.scaler.to_status()} if self.scaler else {}
        return {
            "generation": self.generation,
            "specHash": self.spec_hash,
            "tier": self.tier.value,
            "request": {
                "cpu": format_cpu(amounts.cpu_milli),
                "memory": format_memory(amounts.memory_bytes),
                GPU_RESOURCE: str(amounts.gpu),
                "pods": amounts.pods,
            },
            **scaler,
        }


def recorded_admission(obj: Mapping[str, Any] | None) -> Admission | None:
    """The admission a host object records (None: none, or not one this module wrote)."""
    raw = ((obj or {}).get("status") or {}).get("admission")
    if not isinstance(raw, Mapping) or not isinstance(raw.get("request"), Mapping):
        return None
    request = raw["request"]
    try:
        resources = Resources.from_k8s({k: v for k, v in request.items() if k != "pods"})
        return Admission(
            int(raw.get("generation") or 0),
            str(raw.get("specHash") or ""),
            Tier(raw.get("tier")),
            Allocation.of(resources, int(request.get("pods") or 0)),
            ScalerBounds.from_status(raw.get("scaler")),
        )
    except (QuantityError, ValueError, TypeError):
        return None


def grows(held: Claim, change: Claim) -> bool:
    """Whether ``change`` asks for anything ``held`` does not hold: another tier, or more of some resource."""
    if change.tier is not held.tier:
        return change.request != Allocation()
    have = held.request.amounts()
    return any(amount > have[name] for name, amount in change.request.amounts().items())


@dataclass(frozen=True)
class Shortfall:
    """One resource a claim does not fit: ``requested`` on top of ``held`` goes beyond ``grant``."""

    tier: Tier
    resource: str
    requested: int
    held: int
    grant: int

    @property
    def over_by(self) -> int:
        return self.requested + self.held - self.grant

    @property
    def message(self) -> str:
        def fmt(amount: int) -> str:
            return format_amount(self.resource, amount)

        return (
            f"{self.tier.value} {self.resource}: requested {fmt(self.requested)} + {fmt(self.held)} held by "
            f"admitted workloads exceeds the project's grant of {fmt(self.grant)} by {fmt(self.over_by)}"
        )


@dataclass(frozen=True)
class Verdict:
    """The ``Admitted`` condition of one claim."""

    key: str
    admitted: bool
    reason: str
    message: str
    shortfalls: tuple[Shortfall, ...] = ()

    def condition(self) -> dict[str, Any]:
        """``type``/``status``/``reason``/``message``, for ``status.set_condition``."""
        status = "True" if self.admitted else "False"
        return {"type": CONDITION, "status": status, "reason": self.reason, "message": self.message}


@dataclass(frozen=True)
class AdmissionDecision:
    """What to do now: admit ``admit`` (in order), take admission from ``reclaim`` (newest first), and
    set every claim's ``verdicts``; ``held`` is what the admitted claims hold afterwards, every tier.
    ``changed``: the changes admitted now (each replaces its workload's admitted claim); ``pending``: the
    changes that wait, by key (their workloads stay admitted at what they hold)."""

    admit: tuple[Claim, ...]
    wait: tuple[Verdict, ...]
    reclaim: tuple[Claim, ...]
    held: Mapping[Tier, Allocation]
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)
    changed: tuple[Claim, ...] = ()
    pending: Mapping[str, Verdict] = field(default_factory=dict)


def is_admitted(obj: Mapping[str, Any] | None) -> bool:
    """Whether a host object's ``Admitted`` condition is True (what holds its project's grant)."""
    return condition_of(obj, CONDITION).get("status") == "True"


def held_by(claims: Iterable[Claim]) -> dict[Tier, Allocation]:
    """What ``claims`` hold per tier, every tier present."""
    held = {tier: Allocation() for tier in Tier}
    for claim in claims:
        held[claim.tier] = held[claim.tier] + claim.request
    return held


def shortfalls(tier: Tier, grant: Allocation, held: Allocation, request: Allocation) -> tuple[Shortfall, ...]:
    """Why ``request`` does not fit on top of ``held``: every resource it requests that would go beyond
    ``grant`` (empty: it fits)."""
    asked, have, limit = request.amounts(), held.amounts(), grant.amounts()
    return tuple(
        Shortfall(tier, name, asked[name], have[name], limit[name])
        for name in ALLOCATION_RESOURCES
        if asked[name] > 0 and asked[name] + have[name] > limit[name]
    )


def admit(
    grants: Mapping[Tier, Allocation],
    admitted: Sequence[Claim],
    waiting: Sequence[Claim],
    changes: Sequence[Claim] = (),
) -> AdmissionDecision:
    """One project's admission decision; a tier absent from ``grants`` has a grant of zero.

    ``admitted`` hold their share already (what was admitted, not what their specs ask now); ``waiting``
    (any order; a key also in ``admitted`` is ignored) are tried oldest first per tier; ``changes`` are
    admitted workloads' newer claims (a key not in ``admitted`` is ignored): one that grows nothing is
    admitted at once, one that grows is tried in its workload's queue place against the grant minus what
    the other admitted workloads hold. Pure and deterministic: the same input, the same decision.
    """
    held_claims = {claim.key: claim for claim in admitted}
    queue = [claim for claim in waiting if claim.key not in held_claims]
    changing = [c for c in changes if c.key in held_claims]
    at_once = {c.key: c for c in changing if not grows(held_claims[c.key], c)}
    admitted = [at_once.get(c.key, c) for c in admitted]  # a shrink holds its new claim before anything is counted
    growing = {c.key: c for c in changing if c.key not in at_once}
    admit_now: list[Claim] = []
    changed: list[Claim] = list(at_once.values())
    waits: list[Verdict] = []
    reclaim: list[Claim] = []
    pending: dict[str, Verdict] = {}
    held: dict[Tier, Allocation] = {}
    verdicts: dict[str, Verdict] = {}
    beyond: set[str] = set()
    for tier in RECLAIMABLE_TIERS:
        mine = sorted((c for c in admitted if c.tier is tier), key=lambda c: c.order)
        beyond |= set(workloads_beyond(grants.get(tier, Allocation()), [(c.key, c.request) for c in mine]))
    kept_claims = {c.key: c for c in admitted if c.key not in beyond}
    for tier in Tier:
        grant = grants.get(tier, Allocation())
        mine = sorted((c for c in admitted if c.tier is tier), key=lambda c: c.order)
        kept = [c for c in mine if c.key not in beyond]
        taken = [c for c in mine if c.key in beyond]
        total = sum((c.request for c in kept), Allocation())
        for claim in kept:
            verdicts.setdefault(claim.key, _admitted(claim, grant))  # a change to this tier already said more
        reclaim += sorted(taken, key=lambda c: c.order, reverse=True)
        growths = [c for c in growing.values() if c.tier is tier and c.key in kept_claims]
        for claim in sorted([*taken, *(c for c in queue if c.tier is tier), *growths], key=lambda c: c.order):
            if claim.key in growing:
                total = _try_change(tier, grant, total, kept_claims[claim.key], claim, changed, pending, verdicts)
                continue
            missing = shortfalls(tier, grant, total, claim.request)
            if not missing:
                total = total + claim.request
                admit_now.append(claim)
                verdicts[claim.key] = _admitted(claim, grant)
                continue
            reason = RECLAIMED if claim.key in beyond else QUOTA_EXCEEDED
            lead = "reclaimed, newest first, to fit" if reason == RECLAIMED else "waiting for"
            message = f"{lead} the {tier.value} grant: " + "; ".join(s.message for s in missing)
            verdict = Verdict(claim.key, False, reason, message, missing)
            verdicts[claim.key] = verdict
            waits.append(verdict)
        held[tier] = total
    reclaimed = tuple(c for c in reclaim if not verdicts[c.key].admitted)
    return AdmissionDecision(tuple(admit_now), tuple(waits), reclaimed, held, verdicts, tuple(changed), pending)


def _try_change(
    tier: Tier,
    grant: Allocation,
    total: Allocation,
    holds: Claim,
    change: Claim,
    changed: list[Claim],
    pending: dict[str, Verdict],
    verdicts: dict[str, Verdict],
) -> Allocation:
    """Admit a growing change when it fits beside every other admitted claim; ``total``'s new value. For the rest
    of the pass it counts as the larger of old and new in each resource (a change to another tier: the old claim
    stays counted in its tier), so no admission of the same pass uses room it frees: the pass's writes land in any
    order, and the host never records more than the grant in between."""
    others = total - holds.request if holds.tier is tier else total
    missing = shortfalls(tier, grant, others, change.request)
    if not missing:
        changed.append(change)
        verdicts[change.key] = _admitted(change, grant)
        if holds.tier is not tier:
            return others + change.request
        have, want = holds.request.amounts(), change.request.amounts()
        return others + Allocation(*(max(have[r], want[r]) for r in ALLOCATION_RESOURCES))
    message = (
        f"the change waits for the {tier.value} grant (what was admitted keeps running, holding "
        f"{holds.request.describe()}): " + "; ".join(s.message for s in missing)
    )
    pending[change.key] = Verdict(change.key, False, QUOTA_EXCEEDED, message, missing)
    return total


def _admitted(claim: Claim, grant: Allocation) -> Verdict:
    message = f"admitted in {claim.tier.value}: holds {claim.request.describe()} of the grant of {grant.describe()}"
    return Verdict(claim.key, True, ADMITTED, message)
