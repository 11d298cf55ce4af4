"""The status a host workload's reconcile writes: the members' shards aggregated, with its placement and admission.

Pure: built from the host object, the aggregation of its shards' observations and what the reconcile found; the
propagator reads the shards and writes the result (``same_status`` tells when there is nothing to write).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pincompute.federation.admission import CHANGE_PENDING
from pincompute.federation.admission import CONDITION as ADMITTED
from pincompute.federation.refusal import is_current
from pincompute.labels import workload_selector
from pincompute.placement import Placement
from pincompute.status import condition_of, set_condition, set_conditions

SCHEDULED = "Scheduled"


def host_status(
    obj: Mapping[str, Any],
    federated: Mapping[str, Any],
    shards: list[Placement],
    now: datetime,
    *,
    revision: str = "",
    problem: str = "",
    queued: bool = False,
    unschedulable: str = "",
    invalid: str = "",
    failed_over: str = "",
) -> dict[str, Any]:
    """The status merge patch: conditions (those of other writers kept), phase, replica counts, the pods' selector,
    shards."""
    generation = int(obj["metadata"].get("generation") or 0)
    old = obj.get("status") or {}
    # the conditions set below keep their lastTransitionTime while their status holds (set_condition)
    ours = {ADMITTED, CHANGE_PENDING, SCHEDULED, *(c["type"] for c in federated["conditions"])}
    # a member's refusal outlives the shards it prunes: admission holds no claim until the spec changes
    conditions = [c for c in old.get("conditions") or [] if c.get("type") in ours or is_current(c, obj)]
    conditions = set_conditions(conditions, federated["conditions"], generation, now)
    scheduled = ("True", "Scheduled", where(shards)) if shards else ("False", "Unschedulable", unschedulable)
    if failed_over and shards:
        scheduled = ("True", "FailedOver", f"{where(shards)}; {failed_over}")
    if problem and shards:
        scheduled = ("True", "PlacementKept", f"{where(shards)}; could not place afresh: {problem}")
    if queued:
        admitted = condition_of(obj, ADMITTED)
        scheduled = ("False", "NotAdmitted", admitted.get("message") or "waiting for admission")
    if invalid:
        scheduled = ("False", "InvalidSpec", invalid)
        conditions = set_condition(conditions, "Degraded", "True", "InvalidSpec", invalid, generation, now)
    conditions = set_condition(conditions, SCHEDULED, *scheduled, generation, now)
    status: dict[str, Any] = {
        "observedGeneration": generation,
        "phase": phase(
            federated,
            queued=queued,
            unschedulable=not shards and not queued,
            invalid=bool(invalid),
            operations=(obj.get("spec") or {}).get("operations") or {},
        ),
        "replicas": federated["replicas"],
        "readyReplicas": federated["readyReplicas"],
        "updatedReplicas": federated["updatedReplicas"],
        # the scale subresource's selector (an HPA on the host refuses a target without one): the labels every
        # shard's pods carry on the members, as each member's operator writes it for its own shard
        "selector": workload_selector(str(obj.get("kind", "")), str(obj["metadata"].get("name", ""))),
        "shards": federated["shards"],
        "conditions": conditions,
    }
    if revision:
        status["currentRevision"] = revision
    if not shards:
        status["placement"] = None
    return status


def where(shards: list[Placement]) -> str:
    return "on " + ", ".join(f"{p.cluster}/{p.zone}" if p.zone else p.cluster for p in shards)


def phase(
    federated: Mapping[str, Any], *, queued: bool, unschedulable: bool, invalid: bool, operations: Mapping[str, Any]
) -> str:
    if invalid:
        return "Invalid"
    if queued:
        return "Queued"
    if unschedulable:
        return "Unschedulable"
    if operations.get("stopped"):
        return "Stopped"
    if operations.get("paused"):
        return "Paused"
    ready: Mapping[str, Any] = next((c for c in federated["conditions"] if c["type"] == "Ready"), {})
    phases = {s["phase"] for s in federated["shards"]}
    if phases == {"Succeeded"}:
        return "Succeeded"
    if ready.get("status") == "True":
        return "Running"
    if ready.get("status") == "Unknown":
        return "Unknown"
    return "Progressing"


def same_status(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether writing ``new`` (a merge patch: None removes a key) would change nothing in ``old``."""
    return all(old.get(k) == v for k, v in new.items() if v is not None) and all(
        k not in old for k, v in new.items() if v is None
    )
