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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.db import transaction

from base.errors import Forbidden
from pincompute.errors import FieldError, SpecInvalid
from pincompute.federation.admission import Claim, claim_of, created_at, grows, is_admitted, recorded_admission
from pincompute.grants import Allocation
from pincompute.quantity import format_amount
from pincompute.runtime import load_profile
from pincompute.specs import Workload, parse
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
def growth_checked(project: Project, live: Mapping[str, Any], workload: Workload) -> Iterator[None]:
    """Around the write of ``workload`` over ``live``: when it grows an admitted workload's claim, the project is
    locked and the growth checked (``ExceedsGrant``) until the write is done."""
    held = _held(live)
    if held is None:
        yield
        return
    nodes = held.request.pods if workload.kind == "PinterestDaemon" else 1  # a daemon's pods: the nodes admitted
    claim = claim_of(workload, held.created, profile=load_profile(), node_count=nodes)
    if not grows(held, claim):
        yield
        return
    with transaction.atomic():
        lock_project(project)
        others = _others(project, live)
        _refuse_beyond(project, live, held, claim, others.get(claim.tier, Allocation()))
        yield


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


def _others(project: Project, live: Mapping[str, Any]) -> dict[Tier, Allocation]:
    """What the project's other admitted workloads hold per tier, read live: each at what it was admitted with and,
    when a change of it waits, also what that change asks (the federation may admit it first)."""
    me = (live.get("kind"), (live.get("metadata") or {}).get("name"))
    total = {tier: Allocation() for tier in Tier}
    for obj in host.list_namespace(project.namespace):
        if (obj.get("kind"), (obj.get("metadata") or {}).get("name")) == me:
            continue
        held = _held(obj)
        if held is None:
            continue
        counted = held.request
        try:
            asks = claim_of(parse(_manifest(obj)), held.created, profile=load_profile(), node_count=held.request.pods)
        except SpecInvalid:
            asks = None
        if asks is not None and asks.tier is held.tier:
            have, want = counted.amounts(), asks.request.amounts()
            counted = Allocation(*(max(have[r], want[r]) for r in ("cpu", "memory", "gpu", "pods")))
        elif asks is not None:
            total[asks.tier] = total[asks.tier] + asks.request
        total[held.tier] = total[held.tier] + counted
    return total


def _refuse_beyond(project: Project, live: Mapping[str, Any], held: Claim, claim: Claim, others: Allocation) -> None:
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
        kind, name = live.get("kind"), (live.get("metadata") or {}).get("name")
        raise ExceedsGrant(
            f"The change grows {kind} {name} beyond what project {project.name}'s grant has room for now; nothing "
            "was changed: " + "; ".join(said.values()),
            fields=[FieldError(path, text) for path, text in said.items()],
        )


def _manifest(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {key: obj[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in obj}
