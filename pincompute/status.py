"""Status of a workload from the native objects it owns, and of a federated workload from its shards.

Conditions follow the Kubernetes convention (Ready, Progressing, Degraded) so kubectl, the portal and
the SDK read them the same way; lastTransitionTime only moves when a condition's status changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any, NotRequired, TypedDict, cast

from pincompute.conditions import condition_of as condition_of
from pincompute.conditions import rfc3339 as rfc3339
from pincompute.conditions import set_condition as set_condition
from pincompute.conditions import set_conditions as set_conditions
from pincompute.federation.refusal import REFUSED, member_refused, refused_condition
from pincompute.labels import ZONE_LABEL, workload_selector
from pincompute.pod_refusals import says_not_yet

_STUCK_REASONS = frozenset(
    {"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "InvalidImageName"}
)


# The shapes below are the CRDs' status schema (crds.STATUS), as the operator writes it.


class Condition(TypedDict):
    type: str  # Ready | Progressing | Degraded
    status: str  # "True" | "False" | "Unknown"
    reason: str
    message: str
    lastTransitionTime: str  # RFC 3339; "" when no shard reported one
    observedGeneration: NotRequired[int]


class ShardStatus(TypedDict):
    """One native object's share of a workload in a member cluster (a zone's Deployment, a Job, the Pod)."""

    name: str
    zone: str
    replicas: int
    readyReplicas: int
    updatedReplicas: int
    state: str  # Available | Progressing | Failed | Running | Pending | Succeeded | Suspended | Scheduled
    message: str
    phase: NotRequired[str]  # Pods
    active: NotRequired[int]  # Jobs
    succeeded: NotRequired[int]
    failed: NotRequired[int]


class _KindStatus(TypedDict, total=False):
    """Status fields not every workload reports."""

    active: int  # Jobs, CronJobs
    succeeded: int
    failed: int
    lastScheduleTime: str  # CronJobs
    lastContainerRestart: str  # the reconciler's restartContainer bookkeeping


class WorkloadStatus(_KindStatus):
    """The ``status`` of a workload CR in a member cluster, derived from the native objects it owns."""

    observedGeneration: int
    conditions: list[dict[str, Any]]  # ours (Condition) and any another controller set
    shards: list[ShardStatus]
    replicas: int
    readyReplicas: int
    updatedReplicas: int
    selector: str  # for the scale subresource
    phase: str  # a Pod's phase (PinPod), else the verdict's reason, or Paused


class ClusterShard(TypedDict):
    """One member cluster's shard of a federated workload, as the host shows it."""

    cluster: str
    zone: str  # the placement's zone ("" when the cluster spans several)
    replicas: int
    readyReplicas: int  # 0 while the member is unreachable: nothing can be confirmed ready
    updatedReplicas: int
    state: str  # Ready, else the shard's Ready reason, or Unknown (unreachable, or no Ready condition)
    message: str
    phase: str  # the member CR's status.phase ("" when unknown)
    conditions: list[dict[str, Any]]  # the member CR's own conditions, as last seen
    lastSeen: str  # RFC 3339: when the member's status was last observed ("" never)
    unreachableSince: NotRequired[str]  # RFC 3339: the member's watch is down since then


class FederatedStatus(TypedDict):
    """A federated workload's status on the host, from the status of its CR in each member cluster."""

    replicas: int
    readyReplicas: int
    updatedReplicas: int
    shards: list[ClusterShard]
    conditions: list[Condition]


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("status") or {}


def _conditions(obj: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {c.get("type"): c for c in _status(obj).get("conditions") or []}


def _shard(
    obj: Mapping[str, Any], desired: int, ready: int, updated: int, state: str, message: str = ""
) -> ShardStatus:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {
        "name": (obj.get("metadata") or {}).get("name", ""),
        "zone": labels.get(ZONE_LABEL, ""),
        "replicas": desired,
        "readyReplicas": ready,
        "updatedReplicas": updated,
        "state": state,
        "message": message,
    }


def _replicated(obj: Mapping[str, Any]) -> ShardStatus:
    status, spec = _status(obj), obj.get("spec") or {}
    failure = _conditions(obj).get("ReplicaFailure") or {}
    generation = (obj.get("metadata") or {}).get("generation", 0)
    if obj.get("kind") == "DaemonSet":
        desired, ready = status.get("desiredNumberScheduled", 0), status.get("numberReady", 0)
        updated = status.get("updatedNumberScheduled", 0)
    else:
        desired, ready = spec.get("replicas", status.get("replicas", 0)), status.get("availableReplicas", 0)
        updated = status.get("updatedReplicas", 0)
    progressing = _conditions(obj).get("Progressing") or {}
    said = str(failure.get("message", ""))
    if failure.get("status") == "True" and not says_not_yet(said):  # its pods cannot be created (Pod Security, quota)
        return _shard(obj, desired, status.get("availableReplicas", 0), 0, REFUSED, said)
    if progressing.get("reason") == "ProgressDeadlineExceeded":
        return _shard(obj, desired, ready, updated, "Failed", str(progressing.get("message", "")))
    observed = status.get("observedGeneration", 0) >= generation
    done = observed and ready >= desired and updated >= desired
    return _shard(obj, desired, ready, updated, "Available" if done else "Progressing")


def _job(obj: Mapping[str, Any]) -> ShardStatus:
    status, conditions = _status(obj), _conditions(obj)
    total = (obj.get("spec") or {}).get("completions", 1)
    succeeded = status.get("succeeded", 0)
    if (conditions.get("Failed") or {}).get("status") == "True":
        state, message = "Failed", str(conditions["Failed"].get("message", ""))
    elif (conditions.get("Complete") or conditions.get("Succeeded") or {}).get("status") == "True":
        state, message = "Succeeded", ""
    elif (conditions.get("Suspended") or {}).get("status") == "True":
        state, message = "Suspended", ""
    else:
        state, message = "Running" if status.get("active") or conditions.get("Running") else "Pending", ""
    shard = _shard(obj, total, succeeded, succeeded, state, message)
    shard.update({"active": status.get("active", 0), "succeeded": succeeded, "failed": status.get("failed", 0)})
    return shard


def _pod(obj: Mapping[str, Any]) -> ShardStatus:
    status = _status(obj)
    statuses = list(status.get("containerStatuses") or [])
    for waiting in (s.get("state", {}).get("waiting") or {} for s in statuses):
        if waiting.get("reason") in _STUCK_REASONS:
            shard = _shard(obj, 1, 0, 1, "Failed", f"{waiting['reason']}: {waiting.get('message', '')}".strip())
            shard["phase"] = status.get("phase", "Pending")
            return shard
    ready = status.get("phase") == "Running" and bool(statuses) and all(s.get("ready") for s in statuses)
    state = "Failed" if status.get("phase") == "Failed" else ("Available" if ready else "Progressing")
    shard = _shard(obj, 1, int(ready), 1, state)
    shard["phase"] = status.get("phase", "Pending")
    return shard


def derive_status(
    kind: str,
    cr: Mapping[str, Any],
    owned_objects: Sequence[Mapping[str, Any]],
    *,
    now: datetime,
    refusals: Mapping[str, str] = MappingProxyType({}),
) -> WorkloadStatus:
    """The CR's status block from its owned objects (Deployments, Jobs, DaemonSets, Pods, CronJobs...).

    ``refusals``: what the member said refusing the pods of an object, by the object's name (``pod_refusals``: a
    Job's or DaemonSet's FailedCreate, a CronJob's run's, the operator's own create refused); such an object is a
    ``Refused`` shard, present or not (a refused Pod never exists)."""
    metadata = cr.get("metadata") or {}
    generation = int(metadata.get("generation") or 0)
    operations = (cr.get("spec") or {}).get("operations") or {}
    shards: list[ShardStatus] = []
    extra: _KindStatus = {}
    phase: str | None = None  # a Pod's
    for obj in sorted(owned_objects, key=lambda o: str((o.get("metadata") or {}).get("name"))):
        if obj.get("kind") in ("Deployment", "DaemonSet"):
            shards.append(_replicated(obj))
        elif obj.get("kind") in ("Job", "PyTorchJob", "TFJob"):
            job = _job(obj)
            shards.append(job)
            extra.update({"active": job["active"], "succeeded": job["succeeded"], "failed": job["failed"]})
        elif obj.get("kind") == "Pod":
            pod = _pod(obj)
            shards.append(pod)
            phase = pod["phase"]
        elif obj.get("kind") == "CronJob":
            state = "Suspended" if (obj.get("spec") or {}).get("suspend") else "Scheduled"
            shards.append(_shard(obj, 0, 0, 0, state))
            if _status(obj).get("lastScheduleTime"):
                extra["lastScheduleTime"] = _status(obj)["lastScheduleTime"]
            extra["active"] = len(_status(obj).get("active") or [])
        elif obj.get("kind") == "HorizontalPodAutoscaler":
            hpa = _status(obj)
            shards.append(
                _shard(
                    obj,
                    hpa.get("desiredReplicas", 0),
                    hpa.get("currentReplicas", 0),
                    hpa.get("currentReplicas", 0),
                    "Available",
                )
            )
    for shard in shards:
        if refusals.get(shard["name"]):
            shard.update({"state": REFUSED, "message": refusals[shard["name"]], "updatedReplicas": 0})
    seen = {s["name"] for s in shards}
    shards += [
        _shard({"metadata": {"name": n}}, 0, 0, 0, REFUSED, m)
        for n, m in sorted(refusals.items())
        if m and n not in seen
    ]
    ready, progressing, degraded, reason, message = _verdict(kind, shards, operations)
    conditions: list[dict[str, Any]] = list((cr.get("status") or {}).get("conditions") or [])
    for type_, value in (("Ready", ready), ("Progressing", progressing), ("Degraded", degraded)):
        conditions = set_condition(conditions, type_, "True" if value else "False", reason, message, generation, now)
    conditions = refused_condition(
        conditions, [(s["name"], s["message"]) for s in shards if s["state"] == REFUSED], generation, now
    )
    if phase is None:
        phase = "Paused" if operations.get("paused") or operations.get("stopped") else reason
    status: WorkloadStatus = {
        "observedGeneration": generation,
        "conditions": conditions,
        "shards": shards,
        "replicas": sum(s["replicas"] for s in shards),
        "readyReplicas": sum(s["readyReplicas"] for s in shards),
        "updatedReplicas": sum(s["updatedReplicas"] for s in shards),
        "selector": workload_selector(kind, str(metadata.get("name", ""))),
        **extra,
        "phase": phase,
    }
    return status


def _verdict(
    kind: str, shards: Sequence[ShardStatus], operations: Mapping[str, Any]
) -> tuple[bool, bool, bool, str, str]:
    failed = [s for s in shards if s["state"] in ("Failed", REFUSED)]
    if failed:
        reason = REFUSED if any(s["state"] == REFUSED for s in failed) else "Failed"
        return False, False, True, reason, "; ".join(f"{s['name']}: {s['message']}" for s in failed)
    if operations.get("stopped") or operations.get("paused"):
        word = "Stopped" if operations.get("stopped") else "Paused"
        return True, False, False, word, f"{kind} is {word.lower()} by its owner"
    if not shards:
        return False, True, False, "Creating", "waiting for the native objects to appear"
    if all(s["state"] in ("Available", "Succeeded", "Scheduled", "Suspended") for s in shards):
        reason = "Succeeded" if all(s["state"] == "Succeeded" for s in shards) else "Available"
        return True, False, False, reason, ""
    waiting = [s["name"] for s in shards if s["state"] not in ("Available", "Succeeded", "Scheduled")]
    return False, True, False, "Progressing", f"waiting for {', '.join(waiting)}"


_NOTHING: Mapping[str, str] = MappingProxyType({})

# The federated conditions: the status every shard must have for the whole to be fine, and the reason
# when one has not (a shard that reports no Ready is not ready; no Progressing/Degraded is not either).
_FEDERATED_CONDITIONS = {
    "Ready": ("True", "ShardsNotReady"),
    "Progressing": ("False", "ShardsProgressing"),
    "Degraded": ("False", "ShardsDegraded"),
}


def aggregate_shards(
    shard_statuses: Mapping[str, Mapping[str, Any]],
    *,
    unreachable: Mapping[str, str] = _NOTHING,
    zones: Mapping[str, str] = _NOTHING,
    last_seen: Mapping[str, str] = _NOTHING,
) -> FederatedStatus:
    """One view of a federated workload from the status of its CR in each member cluster.

    ``unreachable`` maps a member whose watch is down to since when (RFC 3339); its shard is Unknown
    ("member unreachable since ..."), with its last known status kept for desired replicas, phase and
    conditions. ``zones`` and ``last_seen`` (RFC 3339) fill the rows. Conditions, per the Kubernetes
    convention: Ready is False when a shard is not ready, else Unknown when a member is unreachable,
    else True; Progressing and Degraded are True when any shard's is, else Unknown when a member is
    unreachable, else False. Transition times are the latest among the shards' (an unreachable
    member's is its ``since``), so the result is a pure function of its input: no clock, no order.
    """
    clusters = sorted(set(shard_statuses) | set(unreachable))
    shards = [_cluster_shard(c, shard_statuses.get(c) or {}, unreachable, zones, last_seen) for c in clusters]
    own = {row["cluster"]: {str(c.get("type")): c for c in row["conditions"]} for row in shards}
    lost = [c for c in clusters if c in unreachable]
    lost_text = "; ".join(f"{c} unreachable since {unreachable[c]}" for c in lost)
    conditions: list[Condition] = []
    for type_, (good, bad_reason) in _FEDERATED_CONDITIONS.items():
        seen = {c: (own[c].get(type_) or {}).get("status") for c in clusters if c not in unreachable}
        hit = [c for c, value in seen.items() if (value != "True" if good == "True" else value == "True")]
        times = sorted(
            unreachable[c] if c in unreachable else str((own[c].get(type_) or {}).get("lastTransitionTime") or "")
            for c in clusters
        )
        if not clusters:
            status = "True" if type_ == "Progressing" else "False"
            reason, message = "NoShards", "no member cluster runs a shard yet"
        elif hit:
            status = "False" if good == "True" else "True"
            reason, message = bad_reason, "; ".join(filter(None, [f"clusters: {', '.join(hit)}", lost_text]))
        elif lost:
            status, reason, message = "Unknown", "MemberUnreachable", lost_text
        else:
            status, reason, message = good, "AllShards", ""
        condition: Condition = {
            "type": type_,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": times[-1] if times else "",
        }
        conditions.append(condition)
    conditions += cast(list[Condition], member_refused({c: own[c] for c in clusters if c not in unreachable}))
    return {
        "replicas": sum(s["replicas"] for s in shards),
        "readyReplicas": sum(s["readyReplicas"] for s in shards),
        "updatedReplicas": sum(s["updatedReplicas"] for s in shards),
        "shards": shards,
        "conditions": conditions,
    }


def _cluster_shard(
    cluster: str,
    status: Mapping[str, Any],
    unreachable: Mapping[str, str],
    zones: Mapping[str, str],
    last_seen: Mapping[str, str],
) -> ClusterShard:
    conditions = [dict(c) for c in status.get("conditions") or []]
    conditions.sort(key=lambda c: str(c.get("type")))
    ready = next((c for c in conditions if c.get("type") == "Ready"), {})
    row: ClusterShard = {
        "cluster": cluster,
        "zone": zones.get(cluster, ""),
        "replicas": int(status.get("replicas") or 0),
        "readyReplicas": int(status.get("readyReplicas") or 0),
        "updatedReplicas": int(status.get("updatedReplicas") or 0),
        "state": "Ready" if ready.get("status") == "True" else str(ready.get("reason") or "Unknown"),
        "message": str(ready.get("message") or ""),
        "phase": str(status.get("phase") or ""),
        "conditions": conditions,
        "lastSeen": last_seen.get(cluster, ""),
    }
    if cluster in unreachable:
        row.update(
            {
                "readyReplicas": 0,
                "updatedReplicas": 0,
                "state": "Unknown",
                "message": f"member unreachable since {unreachable[cluster]}",
                "unreachableSince": unreachable[cluster],
            }
        )
    return row
