"""Host workload objects as the portal and the federation leave them, for the read-path bench.

The bytes a list serves are compared with the raw object's, so the raw object must be the real one: the
manifest the submission service writes (``submission.complete`` of the catalog's example, the federation's
finalizer, POSTed with the portal's field manager, so the apiserver records its managedFields), and a status
built by the same pure functions the federation controller writes it with (admission verdict, placement
record, aggregation of the member shard's status, Scheduled condition), PATCHed with the operator's field
manager. Nothing here is hand-shaped to be large or small.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from pincompute.cluster_scheduling import PlacementDecision
from pincompute.federation.admission import ADMITTED
from pincompute.federation.aggregation import ShardObservation, aggregate
from pincompute.federation.propagation import placement_status
from pincompute.labels import FEDERATION_FINALIZER
from pincompute.placement import Placement
from pincompute.status import set_condition, set_conditions

KINDS = ("PinApp", "PinPod", "PinPod")  # a third apps, as the pods' labels say
PLURAL = {"PinApp": "pinapps", "PinPod": "pinpods"}


def kind_of(i: int) -> str:
    return KINDS[i % len(KINDS)]


def templates(project: Any) -> dict[str, dict[str, Any]]:
    """Per kind, the host manifest the submission service writes for the catalog's example in ``project``."""
    from workloads.examples import example
    from workloads.submission import complete

    out = {}
    for kind in set(KINDS):
        manifest = complete(project, example(kind, project.name))
        manifest["metadata"]["finalizers"] = [FEDERATION_FINALIZER]
        out[kind] = manifest
    return out


def manifest(templates: dict[str, dict[str, Any]], i: int) -> dict[str, Any]:
    body = copy.deepcopy(templates[kind_of(i)])
    body["metadata"]["name"] = f"wl-{i:05d}"
    return body


def status(obj: dict[str, Any], member: str, zone: str, now: datetime | None = None) -> dict[str, Any]:
    """The status the federation writes for ``obj`` admitted, placed on ``member`` and running there."""
    now = now or datetime.now(UTC)
    generation = int(obj["metadata"].get("generation") or 1)
    spec = obj.get("spec") or {}
    replicas = int(spec.get("replicas") or 1)
    shard = Placement(member, zone, "", 0, 1, replicas if obj["kind"] == "PinApp" else None)
    decision = PlacementDecision([shard], {member: 87.5}, {})
    member_status = {
        "phase": "Running",
        "replicas": replicas,
        "readyReplicas": replicas,
        "updatedReplicas": replicas,
        "observedGeneration": 1,
        "conditions": set_condition([], "Ready", "True", "AllReady", f"{replicas}/{replicas} ready", 1, now),
    }
    federated = aggregate([ShardObservation(member, zone, member_status, seen_at=now)])
    tier = str(spec.get("tier") or "OnDemand")
    conditions = set_condition(
        [],
        ADMITTED,
        "True",
        ADMITTED,
        f"admitted in {tier}: holds cpu 500m, memory 512Mi of the grant of cpu 64, memory 256Gi",
        generation,
        now,
    )
    conditions = set_conditions(conditions, federated["conditions"], generation, now)
    conditions = set_condition(conditions, "Scheduled", "True", "Scheduled", f"{member} ({zone})", generation, now)
    return {
        "observedGeneration": generation,
        "phase": "Running",
        "replicas": federated["replicas"],
        "readyReplicas": federated["readyReplicas"],
        "updatedReplicas": federated["updatedReplicas"],
        "shards": federated["shards"],
        "conditions": conditions,
        "currentRevision": f"{obj['metadata']['name']}-6d5f8c7b9",
        "placement": placement_status([shard], decision, generation=generation, now=now),
    }
