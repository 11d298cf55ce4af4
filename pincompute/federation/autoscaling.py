"""What a PinScaler holds of its project's grant: its target PinApp's claim counts the most replicas the scaler's
HorizontalPodAutoscalers may run.

A PinScaler runs no pods, but the HPAs it becomes (one per zone shard of its PinApp, ``placement.hpa_max_per_shard``)
scale the PinApp's Deployments up to their ``maxReplicas``. So a PinApp's claim counts ``max(replicas, reach)``
replicas, ``reach`` being the sum of those HPA maxima over the PinApp's zones for the largest ``maxReplicas`` its
scaler may apply (the base bounds or any schedule window's); with several scalers, the largest reach. A scaler
counts for the PinApp its spec targets now and for the one its admitted spec targets, so a raise or a retarget
holds both until it is admitted (as any change counts at the larger of old and new).

The claim is the PinApp's (its ``status.admission``): the admitted total stays one sum over the project's records,
and a PinApp's own change (a bigger pod) is judged with its HPAs' reach. A scaler's record holds nothing and says
which target and ``maxReplicas`` were admitted (``ScalerBounds``); the propagator carries only that admitted spec to
the members. A scaler whose bounds grow nothing (a lower max, the same target) is admitted at once; one that grows
its target's claim is admitted with the target's change (whose record is written first), and until that fits it
waits: ``ChangePending`` with the numbers when an earlier spec was admitted (the members' HPAs keep its bounds), else
not admitted (no HPA anywhere). A waiting raise never holds its PinApp's own change hostage: when the PinApp's
change with the raise does not fit, the change is tried again without it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pincompute.federation.admission import QUOTA_EXCEEDED, AdmissionDecision, Claim, ScalerBounds, Verdict, admit
from pincompute.grants import Allocation
from pincompute.placement import Placement, hpa_max_per_shard
from pincompute.specs import PinApp, PinScaler
from pincompute.tiers import Tier

TARGET_KIND = "PinApp"


def bounds_of(scaler: PinScaler) -> ScalerBounds:
    """The scaler's target and the largest ``maxReplicas`` of its base bounds and schedule windows."""
    return ScalerBounds(scaler.target, max([scaler.max_replicas, *(w.max_replicas for w in scaler.schedules)]))


def grows_target(asked: ScalerBounds, admitted: ScalerBounds | None) -> bool:
    """Whether ``asked`` may run more than ``admitted`` did: a first admission, another target or a higher max."""
    return admitted is None or asked.target != admitted.target or asked.max_replicas > admitted.max_replicas


@dataclass(frozen=True)
class Steering:
    """One PinScaler: its bounds now (None: its spec cannot be judged) and as admitted (None: not admitted)."""

    key: str
    asked: ScalerBounds | None
    admitted: ScalerBounds | None


def reach(app: str, zones: int, steering: Iterable[Steering], *, asked: bool = True) -> int:
    """The most replicas the HPAs of the scalers targeting PinApp ``app`` (over ``zones`` zones) may run, 0 when
    none does; ``asked`` False: only the admitted bounds count (what the members may run now)."""
    highs = []
    for scaler in steering:
        if scaler.admitted is not None and scaler.admitted.target == app:
            highs.append(scaler.admitted.max_replicas)
        if asked and scaler.asked is not None and scaler.asked.target == app:
            highs.append(scaler.asked.max_replicas)
    return max((sum(hpa_max_per_shard(high, zones)) for high in highs), default=0)


def target_name(scaler: Mapping[str, Any]) -> str:
    """The PinApp a PinScaler object targets (``spec.targetRef.name``; "" when it names none)."""
    return str(((scaler.get("spec") or {}).get("targetRef") or {}).get("name") or "")


def scaler_shards(target: Sequence[Placement]) -> list[Placement]:
    """A PinScaler's shards for its target PinApp's ``target`` shards: shard i of n over the shards the PinApp runs
    now, in their order. A failover adds shards beyond the zone count (their index above it) or folds a lost zone's
    replicas into a shard that stays; numbered by zone, two HPAs would share one zone's bounds and a shard that took
    a whole zone over would keep half the floor. Over the shards that exist, the HPAs' minima sum to at least the
    scaler's ``minReplicas`` and their maxima to its ``maxReplicas`` (at least one each); unchanged by a placement
    without a failover, whose shards are 0..n-1 already."""
    ordered = sorted(target, key=lambda p: (p.shard_index, p.cluster))
    count = len(ordered)
    return [dataclasses.replace(p, shard_index=i, shard_count=count, replicas=None) for i, p in enumerate(ordered)]


def autoscaled(app: PinApp, replicas: int) -> PinApp:
    """``app`` as its claim counts it when HPAs may run it at ``replicas``: at the larger of that and its own."""
    return app if replicas <= app.replicas else dataclasses.replace(app, replicas=replicas)


@dataclass(frozen=True)
class ScaledDecision:
    """``decision`` for the project's claims, and the scalers whose bounds wait (by key, with the numbers)."""

    decision: AdmissionDecision
    scalers_waiting: Mapping[str, Verdict]


def admit_scaled(
    grants: Mapping[Tier, Allocation],
    admitted: Sequence[Claim],
    waiting: Sequence[Claim],
    changes: Sequence[Claim],
    without_raises: Mapping[str, Claim | None],
    steering: Iterable[Steering],
) -> ScaledDecision:
    """``admission.admit`` with the scalers' bounds in their PinApps' claims (``changes`` count every scaler's asked
    bounds); ``without_raises``: for an admitted PinApp whose change counts a scaler's raise, the change without the
    raises (None: then nothing changes), tried when the change with them does not fit. A scaler that grows its
    target admitted now (or not admitted at all) is admitted; one whose target's change waits, or was tried without
    its raise, waits."""
    first = admit(grants, admitted, waiting, changes)
    retried = {key for key in first.pending if key in without_raises}
    decision = first
    if retried:
        kept = [c for c in changes if c.key not in retried]
        alone = [c for key in sorted(retried) if (c := without_raises[key]) is not None]
        decision = admit(grants, admitted, waiting, [*kept, *alone])
    held = {claim.key: claim for claim in admitted}
    scalers_waiting: dict[str, Verdict] = {}
    for scaler in steering:
        if scaler.asked is None or not grows_target(scaler.asked, scaler.admitted):
            continue
        app = f"{TARGET_KIND}/{scaler.asked.target}"
        why = first.pending.get(app) if app in retried else decision.pending.get(app)
        if why is None:
            continue
        message = (
            f"maxReplicas {scaler.asked.max_replicas} would let PinApp {scaler.asked.target}'s autoscaler run it "
            f"beyond what it holds ({held[app].request.describe()}), and that waits for the grant: "
            + "; ".join(s.message for s in why.shortfalls)
        )
        scalers_waiting[scaler.key] = Verdict(scaler.key, False, QUOTA_EXCEEDED, message, why.shortfalls)
    return ScaledDecision(decision, scalers_waiting)
