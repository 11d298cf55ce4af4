"""Status of a workload from the native objects it owns, and of a federated workload from its shards.

Conditions follow the Kubernetes convention (Ready, Progressing, Degraded) so kubectl, the portal and
the SDK read them the same way; lastTransitionTime only moves when a condition's status changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from workloads.core.labels import ZONE_LABEL, workload_selector

_STUCK_REASONS = frozenset({"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError",
                            "InvalidImageName"})


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def set_condition(conditions: Sequence[Mapping[str, Any]], type: str, status: str, reason: str, message: str,
                  observed_generation: int, now: datetime) -> list[dict[str, Any]]:
    """New list with ``type`` set; keeps lastTransitionTime when the status did not change."""
    result = [dict(c) for c in conditions]
    previous = next((c for c in result if c.get("type") == type), None)
    changed = previous is None or previous.get("status") != status
    condition = {"type": type, "status": status, "reason": reason, "message": message,
                 "observedGeneration": observed_generation,
                 "lastTransitionTime": rfc3339(now) if changed or previous is None
                 else previous.get("lastTransitionTime", rfc3339(now))}
    if previous is None:
        result.append(condition)
    else:
        result[result.index(previous)] = condition
    return result


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("status") or {}


def _conditions(obj: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {c.get("type"): c for c in _status(obj).get("conditions") or []}


def _shard(obj: Mapping[str, Any], desired: int, ready: int, updated: int, state: str, message: str = ""
           ) -> dict[str, Any]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {"name": (obj.get("metadata") or {}).get("name", ""), "zone": labels.get(ZONE_LABEL, ""),
            "replicas": desired, "readyReplicas": ready, "updatedReplicas": updated, "state": state,
            "message": message}


def _replicated(obj: Mapping[str, Any]) -> dict[str, Any]:
    status, spec = _status(obj), obj.get("spec") or {}
    generation = (obj.get("metadata") or {}).get("generation", 0)
    if obj.get("kind") == "DaemonSet":
        desired, ready = status.get("desiredNumberScheduled", 0), status.get("numberReady", 0)
        updated = status.get("updatedNumberScheduled", 0)
    else:
        desired, ready = spec.get("replicas", status.get("replicas", 0)), status.get("availableReplicas", 0)
        updated = status.get("updatedReplicas", 0)
    progressing = _conditions(obj).get("Progressing") or {}
    if progressing.get("reason") == "ProgressDeadlineExceeded":
        return _shard(obj, desired, ready, updated, "Failed", str(progressing.get("message", "")))
    observed = status.get("observedGeneration", 0) >= generation
    done = observed and ready >= desired and updated >= desired
    return _shard(obj, desired, ready, updated, "Available" if done else "Progressing")


def _job(obj: Mapping[str, Any]) -> dict[str, Any]:
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


def _pod(obj: Mapping[str, Any]) -> dict[str, Any]:
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


def derive_status(kind: str, cr: Mapping[str, Any], owned_objects: Sequence[Mapping[str, Any]], *,
                  now: datetime) -> dict[str, Any]:
    """The CR's status block from its owned objects (Deployments, Jobs, DaemonSets, Pods, CronJobs...)."""
    metadata = cr.get("metadata") or {}
    generation = int(metadata.get("generation") or 0)
    operations = (cr.get("spec") or {}).get("operations") or {}
    shards: list[dict[str, Any]] = []
    extra: dict[str, Any] = {}
    for obj in sorted(owned_objects, key=lambda o: str((o.get("metadata") or {}).get("name"))):
        if obj.get("kind") in ("Deployment", "DaemonSet"):
            shards.append(_replicated(obj))
        elif obj.get("kind") in ("Job", "PyTorchJob", "TFJob"):
            shards.append(_job(obj))
            extra.update({k: shards[-1][k] for k in ("active", "succeeded", "failed")})
        elif obj.get("kind") == "Pod":
            shards.append(_pod(obj))
            extra["phase"] = shards[-1]["phase"]
        elif obj.get("kind") == "CronJob":
            state = "Suspended" if (obj.get("spec") or {}).get("suspend") else "Scheduled"
            shards.append(_shard(obj, 0, 0, 0, state))
            if _status(obj).get("lastScheduleTime"):
                extra["lastScheduleTime"] = _status(obj)["lastScheduleTime"]
            extra["active"] = len(_status(obj).get("active") or [])
        elif obj.get("kind") == "HorizontalPodAutoscaler":
            status = _status(obj)
            shards.append(_shard(obj, status.get("desiredReplicas", 0), status.get("currentReplicas", 0),
                                 status.get("currentReplicas", 0), "Available"))
    ready, progressing, degraded, reason, message = _verdict(kind, shards, operations)
    conditions: list[dict[str, Any]] = list((cr.get("status") or {}).get("conditions") or [])
    for type_, value in (("Ready", ready), ("Progressing", progressing), ("Degraded", degraded)):
        conditions = set_condition(conditions, type_, "True" if value else "False", reason, message, generation,
                                   now)
    status = {"observedGeneration": generation, "conditions": conditions, "shards": shards,
              "replicas": sum(s["replicas"] for s in shards), "readyReplicas": sum(s["readyReplicas"] for s in shards),
              "updatedReplicas": sum(s["updatedReplicas"] for s in shards),
              "selector": workload_selector(kind, str(metadata.get("name", ""))), **extra}
    if "phase" not in status:
        status["phase"] = "Paused" if operations.get("paused") or operations.get("stopped") else reason
    return status


def _verdict(kind: str, shards: Sequence[Mapping[str, Any]], operations: Mapping[str, Any]
             ) -> tuple[bool, bool, bool, str, str]:
    failed = [s for s in shards if s["state"] == "Failed"]
    if failed:
        return False, False, True, "Failed", "; ".join(f"{s['name']}: {s['message']}" for s in failed)
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


def aggregate_shards(shard_statuses: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One view of a federated workload from the status of its CR in each member cluster.

    Ready only when every shard is Ready; Degraded when any is; transition times are the latest
    transition among the shards, so the result is a pure function of its input.
    """
    shards, conditions = [], []
    for cluster, status in sorted(shard_statuses.items()):
        own = {c.get("type"): c for c in status.get("conditions") or []}
        shards.append({"cluster": cluster, "replicas": status.get("replicas", 0),
                       "readyReplicas": status.get("readyReplicas", 0),
                       "updatedReplicas": status.get("updatedReplicas", 0),
                       "state": "Ready" if (own.get("Ready") or {}).get("status") == "True" else
                       ((own.get("Ready") or {}).get("reason") or "Unknown"),
                       "message": (own.get("Ready") or {}).get("message", "")})
    for type_, combine in (("Ready", all), ("Progressing", any), ("Degraded", any)):
        per_shard = [{c.get("type"): c for c in s.get("conditions") or []}.get(type_) or {}
                     for s in shard_statuses.values()]
        value = bool(per_shard) and combine(c.get("status") == "True" for c in per_shard)
        times = sorted(str(c["lastTransitionTime"]) for c in per_shard if c.get("lastTransitionTime"))
        culprits = sorted(name for name, s in shard_statuses.items()
                          if ({c.get("type"): c for c in s.get("conditions") or []}.get(type_) or {}).get("status")
                          != ("True" if type_ == "Ready" else "False"))
        conditions.append({"type": type_, "status": "True" if value else "False",
                           "reason": "AllShards" if not culprits else "Shards",
                           "message": "" if not culprits else f"clusters: {', '.join(culprits)}",
                           "lastTransitionTime": times[-1] if times else ""})
    return {"replicas": sum(s["replicas"] for s in shards), "readyReplicas": sum(s["readyReplicas"] for s in shards),
            "updatedReplicas": sum(s["updatedReplicas"] for s in shards), "shards": shards, "conditions": conditions}
