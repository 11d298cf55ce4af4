"""From a host object to its shards: the placement request, the decision as recorded in the host's
status, and the member custom resource each shard is server-side-applied as.

A shard is the host object's spec under the same kind, namespace and name on its member, with the
placement annotations the member operator reads (``operator/placement_annotations.py``), the host
object's uid and the hash of the spec it carries (how a zone-by-zone rollout sees progress).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pincompute.cluster_scheduling import PlacementDecision, PlacementRequest
from pincompute.labels import (
    CLUSTER_ANNOTATION,
    FEDERATED_LABEL,
    HOST_UID_ANNOTATION,
    MANAGED_BY,
    MANAGED_BY_LABEL,
    REGION_ANNOTATION,
    REPLICAS_ANNOTATION,
    SHARD_COUNT_ANNOTATION,
    SHARD_INDEX_ANNOTATION,
    SPEC_HASH_ANNOTATION,
    ZONE_ANNOTATION,
)
from pincompute.placement import Placement
from pincompute.quota import pod_request_with_profile, pods_of, workload_pods
from pincompute.runtime.profile import RuntimeProfile
from pincompute.specs import PinApp, Workload
from pincompute.status import rfc3339

REPLICA_KINDS = frozenset({"PinApp", "PinterestService"})
"""Kinds whose shard size is a replica count the member operator reads from the replicas annotation."""


def placement_request(
    workload: Workload, profile: RuntimeProfile | None = None, *, spread: bool = False
) -> PlacementRequest | None:
    """What the scheduler needs to place ``workload``; None for a kind that runs no pods (PinScaler
    follows its target). A pod's node selector picks nodes, not clusters, so only the hardware
    family and the tolerations narrow the clusters."""
    shape = pods_of(workload, 1)
    if shape is None:
        return None
    pod, _ = shape
    return PlacementRequest(
        kind=workload.kind,
        tier=workload.meta.tier,
        request_per_replica=pod_request_with_profile(pod, workload.kind, profile),
        replicas=workload_pods(workload),
        zones=tuple(workload.zones) if isinstance(workload, PinApp) else None,
        hardware_family=pod.hardware_family,
        tolerations=tuple(pod.tolerations),
        spread=spread,
    )


def spec_hash(spec: Mapping[str, Any]) -> str:
    """A short stable digest of a spec (canonical JSON)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def shard_manifest(host: Mapping[str, Any], placement: Placement, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The member custom resource of one shard: ``spec`` (the host's, or a rollout-held variant of it)
    with the placement annotations; labels are the host object's plus the federation's."""
    meta = host.get("metadata") or {}
    annotations = {
        CLUSTER_ANNOTATION: placement.cluster,
        ZONE_ANNOTATION: placement.zone,
        REGION_ANNOTATION: placement.region,
        SHARD_INDEX_ANNOTATION: str(placement.shard_index),
        SHARD_COUNT_ANNOTATION: str(placement.shard_count),
        HOST_UID_ANNOTATION: str(meta.get("uid") or ""),
        SPEC_HASH_ANNOTATION: spec_hash(spec),
    }
    if host.get("kind") in REPLICA_KINDS and placement.replicas is not None:
        annotations[REPLICAS_ANNOTATION] = str(placement.replicas)
    labels = {**(meta.get("labels") or {}), FEDERATED_LABEL: "true", MANAGED_BY_LABEL: MANAGED_BY}
    return {
        "apiVersion": host.get("apiVersion"),
        "kind": host.get("kind"),
        "metadata": {
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
            "labels": labels,
            "annotations": annotations,
        },
        "spec": json.loads(json.dumps(spec)),
    }


NOT_FEDERATED = "NotFederated"
"""The reason a member operator gives for a workload object on its member that no federation placed."""


def unplaced_reason(obj: Mapping[str, Any]) -> str | None:
    """Why a workload object on a member is no shard of the federation's, or None for a shard.

    ``shard_manifest`` stamps every shard with the federated label and its host object's uid. Anything else was
    written on the member directly (around the host's admission, policy, placement, quota and audit): the member
    operator runs nothing from it."""
    meta = obj.get("metadata") or {}
    missing = []
    if (meta.get("labels") or {}).get(FEDERATED_LABEL) != "true":
        missing.append(f"label {FEDERATED_LABEL}=true")
    if not (meta.get("annotations") or {}).get(HOST_UID_ANNOTATION):
        missing.append(f"annotation {HOST_UID_ANNOTATION}")
    if not missing:
        return None
    return (
        f"not placed by the federation (no {' and no '.join(missing)}): workloads are submitted on the host, "
        "where they are admitted against the project's quota and placed; nothing runs from this object here"
    )


def placement_status(
    shards: Sequence[Placement],
    decision: PlacementDecision | None,
    *,
    generation: int,
    now: datetime,
    replaced_at: str = "",
) -> dict[str, Any]:
    """The decision as the host object's ``status.placement`` records it (scores as text: no floats)."""
    record: dict[str, Any] = {
        "generation": generation,
        "decidedAt": rfc3339(now),
        "clusters": [
            {
                "cluster": p.cluster,
                "zone": p.zone,
                "region": p.region,
                "shardIndex": p.shard_index,
                "shardCount": p.shard_count,
                **({"replicas": p.replicas} if p.replicas is not None else {}),
            }
            for p in shards
        ],
        "rejected": [],
        "scores": [],
    }
    if decision is not None:
        record["rejected"] = [{"cluster": c, "reasons": list(r)} for c, r in sorted(decision.rejected.items())]
        record["scores"] = [{"cluster": c, "score": f"{s:.1f}"} for c, s in sorted(decision.scores.items())]
    if replaced_at:
        record["replacedAt"] = replaced_at
    return record


def placements_of(status: Mapping[str, Any] | None) -> list[Placement]:
    """The shards a host object's status records (empty: not placed)."""
    rows = ((status or {}).get("placement") or {}).get("clusters") or []
    return [
        Placement(
            str(row.get("cluster")),
            str(row.get("zone") or ""),
            str(row.get("region") or ""),
            int(row.get("shardIndex") or 0),
            int(row.get("shardCount") or 1),
            int(row["replicas"]) if row.get("replicas") is not None else None,
        )
        for row in rows
        if row.get("cluster")
    ]
