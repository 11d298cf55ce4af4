"""The portal's early check of a change that grows an admitted workload's claim (a scale, an edit, a resume or
start of what the spec then asks): refused at once, with the numbers, when it does not fit the project's grant
beside what the project's other admitted workloads hold, and nothing is written.

The federation's admission is the authority (``pincompute.federation.admission``): whatever reaches the host, a
growth it cannot fit waits there and the members keep the admitted generation. This check saves the caller that
wait. Checks of one project are serialized by the project row's lock (``projects.access.lock_project``, held in
a transaction from the read to the write), and the other workloads are read live from the host under it (the watch
cache may not have the write the previous holder just made): two growths of one project through the portal never
both pass on the same room. A change that grows nothing, and a workload not admitted yet (it waits in the queue;
``NeverFits`` already refused what can never fit), take no lock.

A PinScaler's bounds count in its target PinApp's claim (``pincompute.federation.autoscaling``): creating or editing a
scaler so that its PinApp's autoscaler may run more than the PinApp holds is a growth of that PinApp, checked the same
way; an edit of a PinApp is counted with the bounds of the scalers admitted on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.db import transaction

from base.errors import Forbidden
from pincompute.errors import FieldError, SpecInvalid
from pincompute.federation.admission import (
    Claim,
    ScalerBounds,
    claim_of,
    created_at,
    grows,
    is_admitted,
    recorded_admission,
)
from pincompute.federation.autoscaling import Steering, autoscaled, bounds_of, grows_target, reach
from pincompute.grants import ALLOCATION_RESOURCES, Allocation
from pincompute.quantity import format_amount
from pincompute.runtime import load_profile
from pincompute.specs import PinApp, PinScaler, Workload, parse
from pincompute.tenancy import admission_grant
from pincompute.tiers import Tier
from projects.access import lock_project
from projects.grants import grants_of
from projects.models import Project
from workloads import host


class ExceedsGrant(Forbidden):
    """The change grows an admitted workload beyond the room its project's grant has now: nothing was written."""

    code = "quota_exceeded"


@contextmanager
def growth_checked(project: Project, live: Mapping[str, Any] | None, workload: Workload) -> Iterator[None]:
    """Around the write of ``workload`` over ``live`` (None: a create): when it grows an admitted workload's claim
    (a PinScaler's: its PinApp's), the project is locked and the growth checked (``ExceedsGrant``) until the write
    is done."""
    if isinstance(workload, PinScaler):
        if not grows_target(bounds_of(workload), _admitted_bounds(live)):
            yield
            return
        with transaction.atomic():
            lock_project(project)
            _check_scaler(project, live, workload)
            yield
        return
    held = _held(live) if live is not None else None
    if live is None or held is None:
        yield
        return
    claim = _claim(project, held, workload)
    if not grows(held, claim):
        yield
        return
    with transaction.atomic():
        lock_project(project)
        objects = host.list_namespace(project.namespace)
        others = _others(objects, _key(live))
        what = f"The change grows {live.get('kind')} {(live.get('metadata') or {}).get('name')}"
        _refuse_beyond(project, what, held, claim, others.get(claim.tier, Allocation()))
        yield


def _claim(project: Project, held: Claim, workload: Workload) -> Claim:
    """What ``workload`` would hold: a daemon on the nodes admitted, a PinApp with its admitted scalers' reach."""
    nodes = held.request.pods if workload.kind == "PinterestDaemon" else 1  # a daemon's pods: the nodes admitted
    if isinstance(workload, PinApp):
        scalers = host.list_kind("PinScaler", project.namespace)
        replicas = reach(workload.meta.name, len(workload.zones), _steering(scalers), asked=False)
        workload = autoscaled(workload, replicas)
    return claim_of(workload, held.created, profile=load_profile(), node_count=nodes)


def _admitted_bounds(live: Mapping[str, Any] | None) -> ScalerBounds | None:
    record = recorded_admission(live) if live is not None and is_admitted(live) else None
    return record.scaler if record is not None else None


def _check_scaler(project: Project, live: Mapping[str, Any] | None, scaler: PinScaler) -> None:
    """Refuse ``scaler`` when its bounds grow its admitted PinApp's claim beyond the room left (a PinApp not admitted
    yet will wait in the queue with the bounds counted)."""
    objects = host.list_namespace(project.namespace)
    target = next(
        (o for o in objects if o.get("kind") == "PinApp" and (o.get("metadata") or {}).get("name") == scaler.target),
        None,
    )
    held = _held(target) if target is not None else None
    if target is None or held is None:
        return
    try:
        app = parse(_manifest(target))
    except SpecInvalid:
        return
    if not isinstance(app, PinApp):
        return
    key = f"PinScaler/{scaler.meta.name}"
    steering = [s for s in _steering(objects) if s.key != key]
    steering.append(Steering(key, bounds_of(scaler), _admitted_bounds(live)))
    replicas = reach(app.meta.name, len(app.zones), steering)
    claim = claim_of(autoscaled(app, replicas), held.created, profile=load_profile())
    if grows(held, claim):
        what = (
            f"maxReplicas {bounds_of(scaler).max_replicas} of PinScaler {scaler.meta.name} grows PinApp {app.meta.name}"
            f"'s claim (its autoscaler's reach)"
        )
        _refuse_beyond(project, what, held, claim, _others(objects, _key(target)).get(claim.tier, Allocation()))


def _steering(objects: list[dict[str, Any]]) -> list[Steering]:
    """The scalers among ``objects``: the bounds each asks now (None: its spec is not valid) and as admitted."""
    out = []
    for obj in objects:
        if obj.get("kind") != "PinScaler":
            continue
        try:
            asked: ScalerBounds | None = bounds_of(_parsed_scaler(obj))
        except SpecInvalid:
            asked = None
        out.append(Steering(_key(obj), asked, _admitted_bounds(obj)))
    return out


def _parsed_scaler(obj: Mapping[str, Any]) -> PinScaler:
    scaler = parse(_manifest(obj))
    assert isinstance(scaler, PinScaler)
    return scaler


def _key(obj: Mapping[str, Any]) -> str:
    return f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"


def _held(obj: Mapping[str, Any]) -> Claim | None:
    """What an admitted host object holds (its recorded admission; before records, its claim), None if not admitted."""
    if not is_admitted(obj):
        return None
    meta = obj.get("metadata") or {}
    key = f"{obj.get('kind')}/{meta.get('name')}"
    record = recorded_admission(obj)
    if record is not None:
        return Claim(key, record.tier, record.request, created_at(obj), str(meta.get("uid") or ""))
    try:
        return claim_of(parse(_manifest(obj)), created_at(obj), profile=load_profile())
    except SpecInvalid:
        return None


def _others(objects: list[dict[str, Any]], me: str) -> dict[Tier, Allocation]:
    """What the project's admitted workloads but ``me`` hold per tier, read live: each at what it was admitted with
    and, when a change of it waits, also what that change asks (the federation may admit it first; a PinApp's with
    its scalers' bounds)."""
    steering = _steering(objects)
    total = {tier: Allocation() for tier in Tier}
    for obj in objects:
        if _key(obj) == me:
            continue
        held = _held(obj)
        if held is None:
            continue
        counted = held.request
        try:
            workload = parse(_manifest(obj))
        except SpecInvalid:
            workload = None
        if isinstance(workload, PinApp):
            workload = autoscaled(workload, reach(workload.meta.name, len(workload.zones), steering))
        asks = None
        if workload is not None:
            asks = claim_of(workload, held.created, profile=load_profile(), node_count=held.request.pods)
        if asks is not None and asks.tier is held.tier:
            have, want = counted.amounts(), asks.request.amounts()
            counted = Allocation(*(max(have[r], want[r]) for r in ALLOCATION_RESOURCES))
        elif asks is not None:
            total[asks.tier] = total[asks.tier] + asks.request
        total[held.tier] = total[held.tier] + counted
    return total


def _refuse_beyond(project: Project, what: str, held: Claim, claim: Claim, others: Allocation) -> None:
    tier = claim.tier
    grant = admission_grant(grants_of(project).get(tier, Allocation())).amounts()
    asks, have, now = claim.request.amounts(), others.amounts(), held.request.amounts() if held.tier is tier else {}
    said = {}
    for resource, amount in asks.items():
        if amount > now.get(resource, 0) and amount + have[resource] > grant[resource]:

            def fmt(value: int, resource: str = resource) -> str:
                return format_amount(resource, value)

            said[f"{tier.value}.{resource}"] = (
                f"{tier.value} {resource}: it would hold {fmt(amount)} (admitted: {fmt(now.get(resource, 0))}); "
                f"the project's other admitted workloads hold {fmt(have[resource])} of the grant of "
                f"{fmt(grant[resource])}, so {fmt(grant[resource] - have[resource])} is left"
            )
    if said:
        raise ExceedsGrant(
            f"{what} beyond what project {project.name}'s grant has room for now; nothing was changed: "
            + "; ".join(said.values()),
            fields=[FieldError(path, text) for path, text in said.items()],
        )


def _manifest(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {key: obj[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in obj}
